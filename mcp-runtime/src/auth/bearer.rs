//! The HTTP transport as an OAuth 2.1 resource server (MCP authorization): what a request's
//! bearer token must be ([`TokenValidator`]), what the server advertises about itself (RFC 9728
//! protected resource metadata) and the `WWW-Authenticate` challenges of 401 and 403 answers.
//! The transport runs [`Authorization::authenticate`] before anything else reads the request
//! (after the Host/Origin check); the principal it gives rides on the request to `Ctx`.
//!
//! The token itself is never logged: failures are logged by kind, with the validator's reason.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::auth::principal::Principal;

/// A boxed, sendable future.
type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// Why a token was refused. The message is logged (never with the token); the client sees
/// `error="invalid_token"` and a fixed description by kind.
#[derive(Debug, thiserror::Error)]
#[error("{kind}: {detail}")]
pub struct InvalidToken {
    kind: TokenProblem,
    detail: String,
}

/// The kinds of [`InvalidToken`]: what the client is told (`error_description`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenProblem {
    /// Not a token this server can read (not a JWT, an algorithm not allowed, no such key).
    Malformed,
    /// The signature does not verify.
    BadSignature,
    /// Past its `exp`.
    Expired,
    /// Before its `nbf`.
    NotYetValid,
    /// Issued by another issuer, or for another audience.
    WrongAudienceOrIssuer,
    /// The keys to check it with cannot be had now (the JWKS endpoint is down).
    KeysUnavailable,
    /// Valid, but names neither a subject (`sub`) nor a client (`client_id`): no caller to
    /// bind sessions, sealed state or consent to (RFC 9068 requires both).
    Anonymous,
    /// Anything else the validator refuses.
    Other,
}

impl std::fmt::Display for TokenProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.description())
    }
}

impl TokenProblem {
    /// The `error_description` of the challenge: fixed text, nothing the caller sent.
    pub fn description(self) -> &'static str {
        match self {
            TokenProblem::Malformed => {
                "The access token is malformed or uses a key or algorithm this server does not accept"
            }
            TokenProblem::BadSignature => "The access token signature is invalid",
            TokenProblem::Expired => "The access token expired",
            TokenProblem::NotYetValid => "The access token is not valid yet",
            TokenProblem::WrongAudienceOrIssuer => {
                "The access token was not issued for this resource by a trusted issuer"
            }
            TokenProblem::KeysUnavailable => "The access token cannot be verified now; retry later",
            TokenProblem::Anonymous => "The access token names neither a subject nor a client",
            TokenProblem::Other => "The access token is invalid",
        }
    }
}

impl InvalidToken {
    /// A refusal of this kind, with a detail for the log (never the token).
    pub fn new(kind: TokenProblem, detail: impl Into<String>) -> Self {
        InvalidToken { kind, detail: detail.into() }
    }

    /// Its kind.
    pub fn kind(&self) -> TokenProblem {
        self.kind
    }
}

/// Checks a bearer token and says who it belongs to. [`JwtValidator`](crate::JwtValidator)
/// checks JWTs against a JWKS; implement it for opaque tokens (RFC 7662 introspection, a
/// session store):
///
/// ```
/// use mcp_runtime::{InvalidToken, Principal, TokenProblem, TokenValidator};
///
/// struct Static;
///
/// impl TokenValidator for Static {
///     fn validate<'a>(
///         &'a self,
///         token: &'a str,
///     ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Principal, InvalidToken>> + Send + 'a>> {
///         Box::pin(async move {
///             match token {
///                 "let-me-in" => Ok(Principal::new("tester").with_scopes(["notes:read"])),
///                 _ => Err(InvalidToken::new(TokenProblem::Other, "not the test token")),
///             }
///         })
///     }
/// }
/// ```
pub trait TokenValidator: Send + Sync + 'static {
    /// The principal of a valid token, or why it is refused.
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, InvalidToken>>;
}

/// The server as an OAuth 2.1 protected resource: every HTTP request needs a valid bearer
/// token; `/.well-known/oauth-protected-resource` (and its form suffixed with the resource's
/// path) describes the resource; refusals carry `WWW-Authenticate` challenges. Register with
/// [`ServerBuilder::authorization`](crate::ServerBuilder::authorization). It guards HTTP only:
/// stdio and in-process requests are from the server's local principal
/// ([`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal); by default it
/// holds every scope).
#[derive(Clone)]
// `authorization_servers` is RFC 9728's name for it.
#[allow(clippy::struct_field_names)]
pub struct Authorization {
    pub(crate) resource: String,
    pub(crate) authorization_servers: Vec<String>,
    pub(crate) scopes_supported: Vec<String>,
    pub(crate) required_scopes: Vec<String>,
    pub(crate) validator: Arc<dyn TokenValidator>,
}

impl std::fmt::Debug for Authorization {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorization")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes_supported", &self.scopes_supported)
            .field("required_scopes", &self.required_scopes)
            .finish_non_exhaustive()
    }
}

impl Authorization {
    /// The resource's canonical URL (the MCP endpoint, `https://mcp.example.com/mcp`: what
    /// tokens name as their audience, RFC 8707) and the validator of its tokens.
    pub fn new(resource: impl Into<String>, validator: impl TokenValidator) -> Self {
        Authorization {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            validator: Arc::new(validator),
        }
    }

    /// The authorization servers (issuer URLs) clients get tokens from, advertised in the
    /// metadata (`authorization_servers`).
    #[must_use]
    pub fn authorization_servers<S: Into<String>>(mut self, issuers: impl IntoIterator<Item = S>) -> Self {
        self.authorization_servers = issuers.into_iter().map(Into::into).collect();
        self
    }

    /// The scopes the resource understands, advertised in the metadata (`scopes_supported`)
    /// and asked for in the 401 challenge (`scope`).
    #[must_use]
    pub fn scopes_supported<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes every request needs, whatever it calls (default: none). A valid token without
    /// them gets 403 with `error="insufficient_scope"`. Per-tool scopes are declared on the
    /// tool: `#[tool(scopes("notes:write"))]`.
    #[must_use]
    pub fn required_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Why the resource URL cannot be used, if it cannot: it must be an absolute `http(s)`
    /// URL without a fragment.
    pub(crate) fn check(&self) -> Result<(), String> {
        let uri: http::Uri =
            self.resource.parse().map_err(|e| format!("the resource URL {:?} is not a URL: {e}", self.resource))?;
        let scheme_ok = matches!(uri.scheme_str(), Some("https" | "http"));
        if !scheme_ok || uri.authority().is_none() || self.resource.contains('#') {
            return Err(format!(
                "the resource URL {:?} must be an absolute http(s) URL without a fragment, such as https://mcp.example.com/mcp",
                self.resource
            ));
        }
        Ok(())
    }

    /// The resource URL's path without a trailing `/` (`/mcp`; empty for the root).
    fn resource_path(&self) -> String {
        let path = self.resource.parse::<http::Uri>().map(|u| u.path().to_owned()).unwrap_or_default();
        path.trim_end_matches('/').to_owned()
    }

    /// The paths the metadata is served at: `/.well-known/oauth-protected-resource`, and the
    /// same suffixed with the resource's path (RFC 9728 §3.1) when it has one.
    pub(crate) fn metadata_paths(&self) -> Vec<String> {
        let base = "/.well-known/oauth-protected-resource".to_owned();
        let path = self.resource_path();
        if path.is_empty() { vec![base] } else { vec![format!("{base}{path}"), base] }
    }

    /// The metadata's URL, as challenges name it: the resource's origin, then the
    /// path-suffixed well-known path.
    pub(crate) fn metadata_url(&self) -> String {
        let origin = self
            .resource
            .parse::<http::Uri>()
            .ok()
            .and_then(|u| Some(format!("{}://{}", u.scheme_str()?, u.authority()?)))
            .unwrap_or_default();
        format!("{origin}/.well-known/oauth-protected-resource{}", self.resource_path())
    }

    /// The protected resource metadata document (RFC 9728 §2).
    pub(crate) fn metadata(&self) -> serde_json::Value {
        let mut doc = serde_json::json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "bearer_methods_supported": ["header"],
        });
        if !self.scopes_supported.is_empty() {
            doc["scopes_supported"] = serde_json::json!(self.scopes_supported);
        }
        doc
    }

    /// The `WWW-Authenticate` value of a 401: the metadata's URL, the scopes to ask for, and
    /// `invalid_token` when a token was sent.
    pub(crate) fn challenge(&self, problem: Option<TokenProblem>) -> String {
        let mut value = format!("Bearer resource_metadata=\"{}\"", self.metadata_url());
        let scopes = if self.required_scopes.is_empty() { &self.scopes_supported } else { &self.required_scopes };
        if !scopes.is_empty() {
            let _ = write!(value, ", scope=\"{}\"", scopes.join(" "));
        }
        if let Some(problem) = problem {
            let _ = write!(value, ", error=\"invalid_token\", error_description=\"{}\"", problem.description());
        }
        value
    }

    /// The `WWW-Authenticate` value of a 403 for a token without the required scopes.
    pub(crate) fn scope_challenge(&self) -> String {
        format!(
            "Bearer resource_metadata=\"{}\", scope=\"{}\", error=\"insufficient_scope\", error_description=\"The access token lacks a scope this resource requires\"",
            self.metadata_url(),
            self.required_scopes.join(" ")
        )
    }

    /// The principal of a request's `Authorization` header, or why there is none.
    pub(crate) async fn authenticate(&self, header: Option<&http::HeaderValue>) -> Result<Principal, Refused> {
        let Some(header) = header else { return Err(Refused::NoToken) };
        let token = header
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|token| !token.is_empty());
        let Some(token) = token else {
            tracing::info!(target: "mcp_runtime::auth", "refused a request: the Authorization header is not a bearer token");
            return Err(Refused::Invalid(TokenProblem::Malformed));
        };
        let principal = self.validator.validate(token).await.map_err(|e| {
            tracing::info!(target: "mcp_runtime::auth", problem = ?e.kind, detail = %e.detail, "refused a request's bearer token");
            Refused::Invalid(e.kind)
        })?;
        if principal.subject().is_none() && principal.client_id().is_none() {
            // Two such callers could not be told apart: each would reach the other's sessions,
            // sealed states and consent records.
            tracing::info!(target: "mcp_runtime::auth", "refused a request's bearer token: it names neither a subject nor a client");
            return Err(Refused::Invalid(TokenProblem::Anonymous));
        }
        let required: Vec<&str> = self.required_scopes.iter().map(String::as_str).collect();
        if !principal.missing_scopes(&required).is_empty() {
            tracing::info!(target: "mcp_runtime::auth", subject = principal.subject(), "refused a request: the token lacks a required scope");
            return Err(Refused::Scope);
        }
        Ok(principal)
    }
}

/// Why a request was refused before it was read.
#[derive(Debug)]
pub(crate) enum Refused {
    /// No `Authorization` header: 401 without an error code.
    NoToken,
    /// A token that is not valid: 401 `invalid_token`.
    Invalid(TokenProblem),
    /// A valid token without the scopes every request needs: 403 `insufficient_scope`.
    Scope,
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Never;

    impl TokenValidator for Never {
        fn validate<'a>(&'a self, _token: &'a str) -> BoxFuture<'a, Result<Principal, InvalidToken>> {
            Box::pin(async { Err(InvalidToken::new(TokenProblem::Other, "never")) })
        }
    }

    #[test]
    fn metadata_lives_beside_the_resource() {
        let auth = Authorization::new("https://mcp.example.com/mcp", Never).scopes_supported(["a", "b"]);
        assert!(auth.check().is_ok());
        assert_eq!(auth.metadata_url(), "https://mcp.example.com/.well-known/oauth-protected-resource/mcp");
        assert_eq!(
            auth.metadata_paths(),
            ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            auth.challenge(None),
            "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\", scope=\"a b\""
        );
        let root = Authorization::new("https://mcp.example.com/", Never);
        assert_eq!(root.metadata_paths(), ["/.well-known/oauth-protected-resource"]);
        assert!(Authorization::new("mcp.example.com/mcp", Never).check().is_err());
        assert!(Authorization::new("https://x/mcp#f", Never).check().is_err());
    }
}
