//! Who is calling: the principal an authorization layer found for a request (the HTTP
//! transport's bearer-token check, or the author's own middleware), or the server's local
//! principal where no authorization is configured; its scopes, and the failure of a call that
//! lacks some.

use mcp_core::{ErrorCode, ToolError};
use serde_json::{Map, Value};

/// The reason of a failure for missing scopes.
pub(crate) const INSUFFICIENT_SCOPE: &str = "insufficient_scope";

/// The caller of a request, as its access token says: subject, client, tenant, scopes, and
/// every claim for what the SDK does not model.
///
/// Over Streamable HTTP with `Authorization` (feature `http`) the runtime builds it from the
/// validated token; behind your own authentication, insert one into the request's extensions
/// (`request.extensions_mut().insert(principal)`) in a middleware in front of
/// `Server::http_router`. Handlers read it with
/// [`Ctx::principal`](crate::Ctx::principal).
///
/// A request that arrives where no authorization is configured (stdio, in-process calls,
/// HTTP without `ServerBuilder::authorization` (feature `http`), when
/// no middleware put a principal in the request) is from the server's **local principal**:
/// [`Principal::local`] unless
/// [`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal) sets a narrower
/// one. Declared `scopes(..)`, `ctx.require_scopes(..)`, `hide_unauthorized_tools` and scoped
/// resources and prompts apply to it as to a token's principal.
///
/// ```
/// use mcp_runtime::Principal;
///
/// let claims = serde_json::json!({
///     "sub": "user-42", "client_id": "notes-app", "tid": "acme", "scope": "notes:read notes:write",
/// });
/// let p = Principal::from_claims(claims.as_object().unwrap().clone());
/// assert_eq!(p.subject(), Some("user-42"));
/// assert_eq!(p.client_id(), Some("notes-app"));
/// assert_eq!(p.tenant(), Some("acme"));
/// assert!(p.has_scope("notes:write"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Principal {
    subject: Option<String>,
    client_id: Option<String>,
    tenant: Option<String>,
    scopes: Vec<String>,
    claims: Map<String, Value>,
    /// Holds every scope, whatever a check asks for (the default local principal).
    every_scope: bool,
    /// The server's local principal (set by the builder), not a token's.
    local: bool,
}

/// Claims that name the OAuth client, in the order they are read: RFC 9068 `client_id`, then
/// `azp` (`OpenID` Connect, Keycloak, Google), `cid` (Okta), `appid` (Microsoft Entra v1).
const CLIENT_CLAIMS: &[&str] = &["client_id", "azp", "cid", "appid"];
/// Claims that name the tenant: `tid` (Microsoft Entra), `tenant_id`, `tenant`, `org_id`.
const TENANT_CLAIMS: &[&str] = &["tid", "tenant_id", "tenant", "org_id"];

impl Principal {
    /// A principal with a subject and nothing else; add to it with the builder methods.
    pub fn new(subject: impl Into<String>) -> Self {
        Principal { subject: Some(subject.into()), ..Principal::default() }
    }

    /// The principal an access token's claims describe: `sub`; the client from `client_id`,
    /// `azp`, `cid` or `appid`; the tenant from `tid`, `tenant_id`, `tenant` or `org_id`;
    /// the scopes from `scope` (space-separated, RFC 9068), `scp` (a list or a
    /// space-separated string: Microsoft Entra, Okta) or `scopes`. Every claim stays
    /// readable with [`Principal::claims`].
    pub fn from_claims(claims: Map<String, Value>) -> Self {
        let text = |names: &[&str]| {
            names.iter().find_map(|n| match claims.get(*n) {
                Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
                Some(Value::Number(n)) => Some(n.to_string()),
                _ => None,
            })
        };
        let mut scopes = Vec::new();
        for name in ["scope", "scp", "scopes"] {
            match claims.get(name) {
                Some(Value::String(s)) => scopes.extend(s.split_whitespace().map(str::to_owned)),
                Some(Value::Array(items)) => scopes.extend(items.iter().filter_map(Value::as_str).map(str::to_owned)),
                _ => {}
            }
        }
        let mut seen = std::collections::HashSet::new();
        scopes.retain(|s| seen.insert(s.clone()));
        Principal {
            subject: text(&["sub"]),
            client_id: text(CLIENT_CLAIMS),
            tenant: text(TENANT_CLAIMS),
            scopes,
            claims,
            every_scope: false,
            local: false,
        }
    }

    /// The default local principal: no subject, client or tenant, holding every scope. It is
    /// the caller of every request that arrives where no authorization is configured (stdio,
    /// in-process, HTTP without `authorization`), unless
    /// [`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal) sets another.
    ///
    /// ```
    /// use mcp_runtime::Principal;
    ///
    /// let local = Principal::local();
    /// assert!(local.is_local() && local.holds_every_scope());
    /// assert!(local.has_scope("notes:admin"));
    /// assert_eq!(local.subject(), None);
    /// ```
    pub fn local() -> Self {
        Principal { every_scope: true, local: true, ..Principal::default() }
    }

    /// Makes this principal hold every scope, whatever a check asks for (its
    /// [`scopes`](Self::scopes) list stays as set).
    #[must_use]
    pub fn with_every_scope(mut self) -> Self {
        self.every_scope = true;
        self
    }

    /// Whether this principal holds every scope ([`Principal::local`] does).
    pub fn holds_every_scope(&self) -> bool {
        self.every_scope
    }

    /// Whether this is the server's local principal (the caller of a request that arrives
    /// where no authorization is configured), not one an authorization layer found.
    pub fn is_local(&self) -> bool {
        self.local
    }

    /// This principal, marked as the server's local one.
    pub(crate) fn into_local(mut self) -> Self {
        self.local = true;
        self
    }

    /// Sets the OAuth client the token was issued to.
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Sets the tenant.
    #[must_use]
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.tenant = Some(tenant.into());
        self
    }

    /// Sets the scopes granted.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the raw claims.
    #[must_use]
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject (`sub`): the user, or the client itself for a client-credentials token.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The OAuth client the token was issued to.
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The tenant, for multi-tenant identity providers.
    pub fn tenant(&self) -> Option<&str> {
        self.tenant.as_deref()
    }

    /// The scopes granted, in the token's order, without repeats.
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// Whether `scope` was granted (always, for a principal that
    /// [holds every scope](Self::holds_every_scope)).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.every_scope || self.scopes.iter().any(|s| s == scope)
    }

    /// Every claim of the token (empty for a principal built by hand without them).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// One claim of the token.
    pub fn claim(&self, name: &str) -> Option<&Value> {
        self.claims.get(name)
    }

    /// Of `required`, the scopes this principal lacks, in `required`'s order.
    pub fn missing_scopes<'r>(&self, required: &[&'r str]) -> Vec<&'r str> {
        required.iter().copied().filter(|s| !self.has_scope(s)).collect()
    }

    /// What binds state to this caller (the sealed `requestState` of a 2026-07-28 ask, a
    /// consent record, an HTTP session): client id, subject and tenant, as a JSON array
    /// (`["notes-app","user-42","acme"]`, `null` for a missing one), so that no two
    /// principals share a binding whatever their values hold.
    pub(crate) fn binding(&self) -> String {
        serde_json::to_string(&[&self.client_id, &self.subject, &self.tenant])
            .unwrap_or_else(|_| unreachable!("three optional strings serialize"))
    }
}

/// The binding of a request's principal ([`Principal::binding`]); the empty string when the
/// request has none or is from the local principal (stdio, in-process, unauthenticated HTTP),
/// which no token's principal's binding equals.
pub(crate) fn binding(principal: Option<&Principal>) -> String {
    principal.filter(|p| !p.local).map(Principal::binding).unwrap_or_default()
}

/// Who a caller is for the limits one caller may not exceed (its HTTP sessions, its consent
/// records): its principal, or without one its address, or the one local client of stdio and
/// in-process calls.
pub(crate) fn client_key(principal: Option<&Principal>, peer: Option<std::net::IpAddr>) -> String {
    match (principal, peer) {
        (Some(p), _) => format!("principal {}", p.binding()),
        (None, Some(ip)) => format!("address {ip}"),
        (None, None) => String::new(),
    }
}

/// Whether `principal` holds every scope of `required` (a request without one holds none):
/// what decides whether lists, completions and subscriptions show a guarded item at all.
pub(crate) fn grants(principal: Option<&Principal>, required: &[&str]) -> bool {
    match principal {
        Some(p) => required.iter().all(|s| p.has_scope(s)),
        None => required.is_empty(),
    }
}

/// Fails unless `principal` holds every scope of `required`: the failure a caller without
/// them gets, from a `scopes(..)` declaration or from `ctx.require_scopes(..)`. A request
/// without a principal lacks them all.
pub(crate) fn require(principal: Option<&Principal>, required: &[&str], name: &str) -> Result<(), ToolError> {
    let missing = match principal {
        Some(p) => p.missing_scopes(required),
        None => required.to_vec(),
    };
    if missing.is_empty() {
        return Ok(());
    }
    let list = |scopes: &[&str]| scopes.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ");
    let (noun, them) = if missing.len() == 1 { ("scope", "it") } else { ("scopes", "them") };
    let message = format!("Insufficient scope: {name} requires {}.", list(required));
    let hint = if principal.is_some_and(Principal::is_local) {
        format!(
            "This request carries no access token (no authorization is configured for its transport), and the server's local principal lacks the {noun} {}; call it over an authorized connection whose token grants {them}, or ask the server's operator to grant {them} to local callers (`ServerBuilder::local_principal`).",
            list(&missing)
        )
    } else if principal.is_some() {
        format!(
            "The access token lacks the {noun} {}; obtain a token that grants {them} (re-authorize with the {noun} requested), then retry.",
            list(&missing)
        )
    } else {
        format!(
            "This request carries no access token; call it over an authorized connection whose token grants the {noun} {}.",
            list(&missing)
        )
    };
    Err(ToolError::new(ErrorCode::Forbidden, message)
        .reason(INSUFFICIENT_SCOPE)
        .retryable(false)
        .hint(hint)
        .data(serde_json::json!({ "requiredScopes": required, "missingScopes": missing })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn claims_of_common_providers_are_read() {
        let entra = Principal::from_claims(claims(
            serde_json::json!({"sub": "u", "appid": "app", "tid": "t", "scp": "Notes.Read Notes.Write"}),
        ));
        assert_eq!((entra.subject(), entra.client_id(), entra.tenant()), (Some("u"), Some("app"), Some("t")));
        assert_eq!(entra.scopes(), ["Notes.Read", "Notes.Write"]);
        let okta = Principal::from_claims(claims(serde_json::json!({"sub": "u", "cid": "c", "scp": ["a", "b", "a"]})));
        assert_eq!(okta.client_id(), Some("c"));
        assert_eq!(okta.scopes(), ["a", "b"]);
        assert_eq!(okta.tenant(), None);
    }

    #[test]
    fn bindings_are_unambiguous() {
        let a = Principal::new("b").with_client_id("a,").with_tenant("c");
        let b = Principal::new(",b").with_client_id("a").with_tenant("c");
        assert_ne!(a.binding(), b.binding());
        assert_eq!(a.binding(), r#"["a,","b","c"]"#);
        assert_eq!(binding(None), "");
        assert_eq!(Principal::default().binding(), "[null,null,null]");
    }

    #[test]
    fn a_missing_scope_is_named() {
        let p = Principal::new("u").with_scopes(["notes:read"]);
        assert!(require(Some(&p), &["notes:read"], "t").is_ok());
        let err = require(Some(&p), &["notes:read", "notes:write"], "t").unwrap_err();
        assert_eq!(err.reason_str(), Some(INSUFFICIENT_SCOPE));
        assert_eq!(err.code(), ErrorCode::Forbidden);
        assert_eq!(err.message_str(), "Insufficient scope: t requires `notes:read`, `notes:write`.");
        assert!(require(None, &["x"], "t").is_err());
    }

    #[test]
    fn the_local_principal_holds_what_it_is_given() {
        let every = Principal::local();
        assert!(require(Some(&every), &["a", "b"], "t").is_ok());
        assert!(grants(Some(&every), &["a"]));
        assert_eq!(binding(Some(&every)), "");
        let narrow = Principal::default().with_scopes(["a"]).into_local();
        assert!(require(Some(&narrow), &["a"], "t").is_ok());
        let err = require(Some(&narrow), &["a", "b"], "t").unwrap_err();
        assert!(err.hint_str().is_some_and(|h| h.contains("local principal lacks the scope `b`")), "{err:?}");
        assert!(!grants(Some(&narrow), &["b"]));
    }
}
