//! Authorization over Streamable HTTP, end to end: tokens minted here with the keys in
//! `tests/keys`, a JWKS served on loopback by the test, the fixture tools behind
//! `JwtValidator`. Valid tokens of each algorithm reach `whoami`; every kind of bad token is
//! 401 with the challenge; key rotation and a JWKS endpoint that goes down and comes back;
//! `purge_cache` and its scope; the protected resource metadata; hidden tools; sessions bound
//! to their principal; and `fixture-server` configured by its `FIXTURE_AUTH_*` variables, whose
//! output never shows a token.

use std::time::Duration;

use base64::Engine as _;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestCtx;
use mcp_runtime::{Authorization, JwtValidator, ServerBuilder};
use mcp_tests::client::Client;
use mcp_tests::http::request;
use mcp_tests::oauth::{ISSUER, JwksServer, TestKey, claims, jwks, now, token};
use serde_json::{Value, json};

const AUDIENCE: &str = "https://mcp.example.test/mcp";
const METADATA: &str = "https://mcp.example.test/.well-known/oauth-protected-resource/mcp";
const JSON_AND_SSE: &str = "application/json, text/event-stream";
const SCOPES: [&str; 2] = ["notes:read", "cache:purge"];
/// The challenge of a request without a token.
const CHALLENGE: &str = "Bearer resource_metadata=\"https://mcp.example.test/.well-known/oauth-protected-resource/mcp\", scope=\"notes:read cache:purge\"";

/// A fixture server with authorization, served in-process on a loopback port until dropped.
struct Served {
    port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The fixture tools behind a `JwtValidator` for `jwks_url` (refreshing at most every 100 ms,
/// so that rotation and recovery show within a test), with `configure` applied.
fn serve(jwks_url: &str, configure: impl FnOnce(ServerBuilder) -> ServerBuilder) -> Served {
    let jwt = JwtValidator::new(jwks_url, ISSUER, AUDIENCE).min_refresh(Duration::from_millis(100));
    let builder = mcp_tests::fixture::builder(false)
        .authorization(Authorization::jwt(jwt).scopes_supported(SCOPES))
        .shutdown_grace(Duration::from_millis(100));
    let server = configure(builder).build().expect("the server builds");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    listener.set_nonblocking(true).expect("nonblocking");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
            let _ = server
                .serve_http_on(listener, async move {
                    let _ = stopped.await;
                })
                .await;
        });
    });
    Served { port, stop: Some(stop), thread: Some(thread) }
}

fn stateless(b: ServerBuilder) -> ServerBuilder {
    b.stateless_http(true)
}

/// What one POST got: status, `WWW-Authenticate`, the session id minted, and the JSON body.
struct Answer {
    status: u16,
    challenge: Option<String>,
    session: Option<String>,
    body: Value,
}

fn post(port: u16, bearer: Option<&str>, session: Option<&str>, body: &Value) -> Answer {
    let authorization = bearer.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("Content-Type", "application/json"), ("Accept", JSON_AND_SSE)];
    if let Some(a) = &authorization {
        headers.push(("Authorization", a.as_str()));
    }
    if let Some(s) = session {
        headers.push(("Mcp-Session-Id", s));
    }
    let response = request(port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("the server answers");
    let (status, challenge, session) = (
        response.status,
        response.header("www-authenticate").map(str::to_owned),
        response.header("mcp-session-id").map(str::to_owned),
    );
    let text = response.text();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Answer { status, challenge, session, body }
}

fn call(name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

/// A `tools/call` of `name` on a stateless server with `bearer`.
fn call_with(port: u16, bearer: Option<&str>, name: &str) -> Answer {
    post(port, bearer, None, &call(name))
}

fn whoami(scopes: &[&str]) -> Value {
    json!({"name": null, "version": null, "capabilities": [], "subject": "user-42", "client_id": "notes-app",
           "scopes": scopes, "tenant": "acme"})
}

#[test]
fn a_valid_token_of_each_algorithm_reaches_whoami_with_its_claims() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1, TestKey::Ec1, TestKey::Ed1]));
    let served = serve(&idp.url(), stateless);
    for key in [TestKey::Rsa1, TestKey::Ec1, TestKey::Ed1] {
        let answer = call_with(served.port, Some(&token(key, &claims(AUDIENCE, "notes:read"))), "whoami");
        assert_eq!(answer.status, 200, "{key:?}: {}", answer.body);
        assert_eq!(answer.body["result"]["structuredContent"], whoami(&["notes:read"]), "{key:?}");
    }
    // The keys were fetched once for all three.
    assert_eq!(idp.fetches(), 1);
}

/// A token in compact form from raw header and claims, with `signature` (base64url) as is.
fn raw_token(header: &Value, claims: &Value, signature: &str) -> String {
    let b64 = |v: &Value| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string());
    format!("{}.{}.{signature}", b64(header), b64(claims))
}

#[test]
fn every_bad_token_is_401_with_the_challenge() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), stateless);
    let good = claims(AUDIENCE, "notes:read");
    let with = |key: &str, value: Value| {
        let mut c = good.clone();
        c[key] = value;
        c
    };
    let hs256_with_public_key = {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256);
        header.kid = Some("rsa-1".into());
        let key = jsonwebtoken::EncodingKey::from_secret(&TestKey::Rsa1.public_pem());
        jsonwebtoken::encode(&header, &good, &key).expect("sign")
    };
    let malformed = "The access token is malformed or uses a key or algorithm this server does not accept";
    let audience = "The access token was not issued for this resource by a trusted issuer";
    let cases: Vec<(&str, String, &str)> = vec![
        ("not a JWT", "not-a-jwt".into(), malformed),
        ("expired", token(TestKey::Rsa1, &with("exp", json!(now() - 3600))), "The access token expired"),
        ("not yet valid", token(TestKey::Rsa1, &with("nbf", json!(now() + 3600))), "The access token is not valid yet"),
        ("wrong issuer", token(TestKey::Rsa1, &with("iss", json!("https://evil.example.test/"))), audience),
        ("wrong audience", token(TestKey::Rsa1, &with("aud", json!("https://other.example.test/mcp"))), audience),
        (
            "no audience",
            token(TestKey::Rsa1, &{
                let mut c = good.clone();
                c.as_object_mut().map(|m| m.remove("aud"));
                c
            }),
            audience,
        ),
        ("unknown kid", token(TestKey::Rsa2, &good), malformed),
        ("alg none", raw_token(&json!({"alg": "none", "typ": "JWT"}), &good, ""), malformed),
        ("alg none, with kid", raw_token(&json!({"alg": "none", "kid": "rsa-1"}), &good, ""), malformed),
        ("HS256 signed with the public key", hs256_with_public_key, malformed),
        (
            "a signature of another key under this kid",
            {
                let real = token(TestKey::Rsa1, &good);
                let other = token(TestKey::Rsa2, &good);
                let (head, _) = real.rsplit_once('.').expect("three parts");
                let (_, sig) = other.rsplit_once('.').expect("three parts");
                format!("{head}.{sig}")
            },
            "The access token signature is invalid",
        ),
    ];
    for (what, bad, description) in cases {
        let answer = call_with(served.port, Some(&bad), "whoami");
        assert_eq!(answer.status, 401, "{what}: {}", answer.body);
        assert_eq!(
            answer.challenge.as_deref(),
            Some(format!("{CHALLENGE}, error=\"invalid_token\", error_description=\"{description}\"").as_str()),
            "{what}"
        );
        assert_eq!(
            answer.body,
            json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Unauthorized: the bearer token is not valid for this server; obtain a new one"}}),
            "{what}"
        );
    }
    // No token at all: the challenge without an error code.
    let answer = call_with(served.port, None, "whoami");
    assert_eq!((answer.status, answer.challenge.as_deref()), (401, Some(CHALLENGE)));
    // Another scheme is not a bearer token.
    let response = request(
        served.port,
        "POST",
        "/mcp",
        &[("Content-Type", "application/json"), ("Accept", JSON_AND_SSE), ("Authorization", "Basic dXNlcjpwYXNz")],
        call("whoami").to_string().as_bytes(),
    )
    .expect("answered");
    assert_eq!(response.status, 401);
    assert!(response.header("www-authenticate").is_some_and(|c| c.contains("error=\"invalid_token\"")));
    // GET and DELETE are guarded too.
    let get = request(served.port, "GET", "/mcp", &[("Accept", "text/event-stream")], b"").expect("answered");
    assert_eq!((get.status, get.header("www-authenticate")), (401, Some(CHALLENGE)));
    // The unknown kid refetched the JWKS once, not once per request.
    assert!(idp.fetches() <= 2, "fetched {} times", idp.fetches());
}

#[test]
fn a_token_without_the_scopes_every_request_needs_is_403() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), |b| {
        let jwt = JwtValidator::new(idp.url(), ISSUER, AUDIENCE);
        b.stateless_http(true).authorization(Authorization::jwt(jwt).required_scopes(["notes:read"]))
    });
    let without = call_with(served.port, Some(&token(TestKey::Rsa1, &claims(AUDIENCE, "cache:purge"))), "whoami");
    assert_eq!(without.status, 403, "{}", without.body);
    assert_eq!(
        without.challenge.as_deref(),
        Some(format!("Bearer resource_metadata=\"{METADATA}\", scope=\"notes:read\", error=\"insufficient_scope\", error_description=\"The access token lacks a scope this resource requires\"").as_str())
    );
    assert_eq!(
        without.body,
        json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Forbidden: the bearer token lacks a scope this server requires"}})
    );
    // A missing token is asked for with the required scopes.
    let none = call_with(served.port, None, "whoami");
    assert_eq!(
        none.challenge.as_deref(),
        Some(format!("Bearer resource_metadata=\"{METADATA}\", scope=\"notes:read\"").as_str())
    );
    let with = call_with(served.port, Some(&token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"))), "whoami");
    assert_eq!(with.status, 200);
}

#[test]
fn a_resource_handler_sees_the_principal_over_http() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), |b| b.stateless_http(true).resource(scoped::caller));
    let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "audit://caller"}});
    let answer = post(served.port, Some(&token(TestKey::Rsa1, &claims(AUDIENCE, "audit:read"))), None, &read);
    assert_eq!(answer.body["result"]["contents"][0]["text"], json!("user-42 of notes-app in acme"), "{}", answer.body);
    let refused = post(served.port, Some(&token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"))), None, &read);
    assert_eq!(refused.body["error"]["code"], json!(-32005), "{}", refused.body);
    assert_eq!(refused.body["error"]["data"]["missingScopes"], json!(["audit:read"]));
}

#[test]
fn a_rotated_key_is_picked_up_without_a_restart() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), stateless);
    let claims = claims(AUDIENCE, "notes:read");
    assert_eq!(call_with(served.port, Some(&token(TestKey::Rsa1, &claims)), "whoami").status, 200);
    // The issuer rotates: rsa-2 in, rsa-1 out.
    idp.set(jwks(&[TestKey::Rsa2]));
    std::thread::sleep(Duration::from_millis(150));
    let answer = call_with(served.port, Some(&token(TestKey::Rsa2, &claims)), "whoami");
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["result"]["structuredContent"], whoami(&["notes:read"]));
    assert_eq!(idp.fetches(), 2);
}

#[test]
fn a_jwks_endpoint_that_is_down_is_401_and_recovery_follows_when_it_returns() {
    let mut idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    idp.stop();
    let served = serve(&idp.url(), stateless);
    let valid = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"));
    let answer = call_with(served.port, Some(&valid), "whoami");
    assert_eq!(answer.status, 401, "{}", answer.body);
    assert_eq!(
        answer.challenge.as_deref(),
        Some(
            format!(
                "{CHALLENGE}, error=\"invalid_token\", error_description=\"The access token cannot be verified now; retry later\""
            )
            .as_str()
        )
    );
    // Still down: still refused (that it is not asked again meanwhile is
    // `a_failing_jwks_endpoint_is_not_asked_again_within_the_minimum_interval`).
    assert_eq!(call_with(served.port, Some(&valid), "whoami").status, 401);
    idp.restart();
    std::thread::sleep(Duration::from_millis(150));
    let answer = call_with(served.port, Some(&valid), "whoami");
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_eq!(answer.body["result"]["structuredContent"], whoami(&["notes:read"]));
    // Once held, the keys outlive another outage.
    idp.stop();
    std::thread::sleep(Duration::from_millis(150));
    assert_eq!(call_with(served.port, Some(&valid), "whoami").status, 200);
}

#[test]
fn a_failing_jwks_endpoint_is_not_asked_again_within_the_minimum_interval() {
    // An endpoint that answers, but not with a JWKS: every fetch is counted, and fails.
    let idp = JwksServer::start("not a JWKS".into());
    let served = serve(&idp.url(), |b| {
        // An interval no test run outlasts: every call below falls within it.
        let jwt = JwtValidator::new(idp.url(), ISSUER, AUDIENCE).min_refresh(Duration::from_secs(600));
        b.stateless_http(true).authorization(Authorization::jwt(jwt).scopes_supported(SCOPES))
    });
    let valid = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"));
    let unavailable = format!(
        "{CHALLENGE}, error=\"invalid_token\", error_description=\"The access token cannot be verified now; retry later\""
    );
    for attempt in 1..=3 {
        let answer = call_with(served.port, Some(&valid), "whoami");
        assert_eq!((answer.status, answer.challenge.as_deref()), (401, Some(unavailable.as_str())), "{attempt}");
        assert_eq!(idp.fetches(), 1, "attempt {attempt}: the endpoint was asked again within the interval");
    }
}

/// The envelope text of a failure, with its request id replaced by `<id>`.
fn envelope_text(result: &Value) -> String {
    let text = result["content"][0]["text"].as_str().expect("a text block").to_owned();
    let at = text.rfind("request ").expect("a request id") + "request ".len();
    format!("{}<id>)", &text[..at])
}

#[test]
fn purge_cache_needs_its_scope() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), stateless);
    let without = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"));
    let answer = call_with(served.port, Some(&without), "purge_cache");
    assert_eq!(answer.status, 200);
    let result = &answer.body["result"];
    assert_eq!(result["isError"], json!(true));
    // An output schema: the envelope travels as text only, the scopes' data in its Details line.
    assert_eq!(result.get("structuredContent"), None);
    assert_eq!(
        envelope_text(result),
        "Error: Insufficient scope: purge_cache requires `cache:purge`.\n\nRecovery: The access token lacks the scope `cache:purge`; obtain a token that grants it (re-authorize with the scope requested), then retry.\n\nDetails: {\"requiredScopes\":[\"cache:purge\"],\"missingScopes\":[\"cache:purge\"]}\n\n(reason insufficient_scope · not retryable · request <id>)"
    );
    let with = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read cache:purge"));
    let answer = call_with(served.port, Some(&with), "purge_cache");
    assert_eq!(
        answer.body["result"],
        json!({"content": [{"type": "text", "text": "{\"purged\":true}"}], "structuredContent": {"purged": true}})
    );
}

#[test]
fn the_scope_failure_carries_code_forbidden_and_the_missing_scopes() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), |b| b.stateless_http(true).structured_errors_always(true));
    let answer = call_with(served.port, Some(&token(TestKey::Rsa1, &claims(AUDIENCE, ""))), "purge_cache");
    let error = &answer.body["result"]["structuredContent"]["error"];
    let request_id = error["data"]["requestId"].clone();
    assert_eq!(
        error,
        &json!({"code": -32005, "message": "Insufficient scope: purge_cache requires `cache:purge`.", "data": {
            "requiredScopes": ["cache:purge"], "missingScopes": ["cache:purge"],
            "reason": "insufficient_scope", "retryable": false,
            "recovery": {"hint": "The access token lacks the scope `cache:purge`; obtain a token that grants it (re-authorize with the scope requested), then retry."},
            "requestId": request_id}})
    );
}

#[test]
fn the_protected_resource_metadata_is_served_at_both_well_known_paths() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), |b| b);
    for path in ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"] {
        let response = request(served.port, "GET", path, &[], b"").expect("answered");
        assert_eq!(response.status, 200, "{path}");
        assert_eq!(response.header("content-type"), Some("application/json"));
        let body: Value = serde_json::from_str(&response.text()).expect("JSON");
        assert_eq!(
            body,
            json!({"resource": AUDIENCE, "authorization_servers": [ISSUER], "bearer_methods_supported": ["header"],
                   "scopes_supported": SCOPES}),
            "{path}"
        );
    }
    // The challenge a client gets names the path-suffixed document, and this server serves it
    // there: a client that follows the challenge finds the metadata.
    let challenge = call_with(served.port, None, "whoami").challenge.expect("a challenge");
    let named = challenge
        .split_once("resource_metadata=\"")
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(url, _)| url)
        .expect("resource_metadata in the challenge");
    assert_eq!(named, METADATA);
    let path = named.strip_prefix("https://mcp.example.test").expect("the resource's origin");
    let response = request(served.port, "GET", path, &[], b"").expect("answered");
    assert_eq!(response.status, 200, "{path}");
    let body: Value = serde_json::from_str(&response.text()).expect("JSON");
    assert_eq!(body["resource"], json!(AUDIENCE));
}

fn listed(answer: &Answer) -> Vec<String> {
    let tools = answer.body["result"]["tools"].as_array().expect("a tool list");
    tools.iter().filter_map(|t| t["name"].as_str()).map(str::to_owned).collect()
}

#[test]
fn tools_the_caller_cannot_call_can_be_hidden_from_the_list() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let reader = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"));
    let purger = token(TestKey::Rsa1, &claims(AUDIENCE, "cache:purge"));
    // Off by default: listed to everyone.
    let shown = serve(&idp.url(), stateless);
    assert!(listed(&post(shown.port, Some(&reader), None, &list)).contains(&"purge_cache".to_owned()));
    drop(shown);
    let hiding = serve(&idp.url(), |b| b.stateless_http(true).hide_unauthorized_tools(true));
    let for_reader = listed(&post(hiding.port, Some(&reader), None, &list));
    assert!(!for_reader.contains(&"purge_cache".to_owned()), "{for_reader:?}");
    assert!(for_reader.contains(&"whoami".to_owned()));
    let for_purger = listed(&post(hiding.port, Some(&purger), None, &list));
    assert_eq!(for_purger.len(), for_reader.len() + 1);
    assert!(for_purger.contains(&"purge_cache".to_owned()));
    // A hidden tool is not suggested either; calling it still says which scope it needs.
    let typo = call_with(hiding.port, Some(&reader), "purge_cach");
    assert!(!typo.body.to_string().contains("Did you mean"), "{}", typo.body);
    let typo = call_with(hiding.port, Some(&purger), "purge_cach");
    assert!(typo.body.to_string().contains("Did you mean purge_cache?"), "{}", typo.body);
}

#[test]
fn a_session_belongs_to_the_principal_that_opened_it() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), |b| b);
    let alice = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"));
    let mut other = claims(AUDIENCE, "notes:read");
    other["sub"] = json!("mallory");
    let mallory = token(TestKey::Rsa1, &other);
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "auth-test", "version": "1"}}});
    let opened = post(served.port, Some(&alice), None, &init);
    assert_eq!(opened.status, 200);
    let session = opened.session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(served.port, Some(&alice), Some(&session), &initialized).status, 202);
    let mine = post(served.port, Some(&alice), Some(&session), &call("whoami"));
    assert_eq!(mine.status, 200);
    assert_eq!(mine.body["result"]["structuredContent"]["subject"], json!("user-42"));
    assert_eq!(mine.body["result"]["structuredContent"]["name"], json!("auth-test"));
    // Another principal with the same session id finds nothing.
    let stolen = post(served.port, Some(&mallory), Some(&session), &call("whoami"));
    assert_eq!(stolen.status, 404, "{}", stolen.body);
    let auth = format!("Bearer {mallory}");
    let delete = request(served.port, "DELETE", "/mcp", &[("Mcp-Session-Id", &session), ("Authorization", &auth)], b"")
        .expect("answered");
    assert_eq!(delete.status, 404);
    assert_eq!(post(served.port, Some(&alice), Some(&session), &call("whoami")).status, 200);
}

/// A resource and a prompt that need scopes, and a tool that checks one itself.
mod scoped {
    use mcp_runtime::prelude::*;

    /// The audit log.
    #[resource(uri = "audit://log", scopes("audit:read"))]
    pub(super) fn audit_log() -> &'static str {
        "nothing happened"
    }

    /// Asks for an audit summary.
    #[prompt(scopes("audit:read", "audit:summarize"))]
    pub(super) fn audit_summary() -> &'static str {
        "Summarize the audit log."
    }

    /// Who reads it.
    #[resource(uri = "audit://caller", scopes("audit:read"))]
    pub(super) fn caller(ctx: &Ctx) -> String {
        let p = ctx.principal();
        let part = |f: fn(&Principal) -> Option<&str>| p.and_then(f).unwrap_or("?").to_owned();
        format!("{} of {} in {}", part(Principal::subject), part(Principal::client_id), part(Principal::tenant))
    }

    /// Exports notes; `all` needs `notes:export`.
    #[tool]
    pub(super) fn export(ctx: &Ctx, all: bool) -> Result<String, ToolError> {
        if all {
            ctx.require_scopes(&["notes:export"])?;
        }
        Ok(format!("exported (all: {all})"))
    }
}

#[tokio::test]
async fn resources_prompts_and_handlers_check_scopes_the_same_way() {
    let server = Server::builder("scoped", "1")
        .resource(scoped::audit_log)
        .prompt(scoped::audit_summary)
        .tool(scoped::export)
        .local_principal(Principal::default())
        .build()
        .expect("builds");
    // In-process requests are from the local principal, here one without scopes.
    let read = server.read_resource("audit://log").await.expect_err("refused");
    assert_eq!(read.code, -32005);
    assert_eq!(read.message, "Insufficient scope: audit_log requires `audit:read`.");
    let data = read.data.expect("data");
    assert_eq!(data["reason"], json!("insufficient_scope"));
    assert_eq!(data["missingScopes"], json!(["audit:read"]));
    assert_eq!(
        data["recovery"]["hint"],
        json!(
            "This request carries no access token (no authorization is configured for its transport), and the server's local principal lacks the scope `audit:read`; call it over an authorized connection whose token grants it, or ask the server's operator to grant it to local callers (`ServerBuilder::local_principal`)."
        )
    );
    let prompt = server.get_prompt("audit_summary", json!({})).await.expect_err("refused");
    assert_eq!(prompt.message, "Insufficient scope: audit_summary requires `audit:read`, `audit:summarize`.");
    let call = server.call("export", json!({"all": true})).await;
    assert_eq!(call.is_error, Some(true));
    assert!(
        call.first_text().is_some_and(|t| t.starts_with("Error: Insufficient scope: export requires `notes:export`."))
    );
    assert_eq!(server.call("export", json!({"all": false})).await.first_text(), Some("exported (all: false)"));
    // The handler alone, with a caller.
    let ctx = TestCtx::new().principal(Principal::new("u").with_scopes(["notes:export"])).build();
    assert_eq!(scoped::export::handler(&ctx, true).expect("allowed"), "exported (all: true)");
    let ctx = TestCtx::new().principal(Principal::new("u").with_scopes(["notes:read"])).build();
    let err = scoped::export::handler(&ctx, true).expect_err("refused");
    assert_eq!(err.reason_str(), Some("insufficient_scope"));
    assert_eq!(err.code(), mcp_runtime::ErrorCode::Forbidden);
}

#[test]
fn fixture_server_takes_its_authorization_from_the_environment_and_never_logs_a_token() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let url = idp.url();
    let env = [
        ("FIXTURE_AUTH_JWKS_URL", url.as_str()),
        ("FIXTURE_AUTH_ISSUER", ISSUER),
        ("FIXTURE_AUTH_AUDIENCE", AUDIENCE),
        ("FIXTURE_AUTH_SCOPES", "notes:read,cache:purge"),
        ("RUST_LOG", "trace"),
    ];
    let c = Client::spawn_http(env!("CARGO_BIN_EXE_fixture-server"), &env, &["--stateless"]);
    let port = c.http_port().expect("a port");
    let valid = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read cache:purge"));
    let expired = token(TestKey::Rsa1, &{
        let mut c = claims(AUDIENCE, "notes:read");
        c["exp"] = json!(now() - 3600);
        c
    });
    let refused = call_with(port, None, "whoami");
    assert_eq!((refused.status, refused.challenge.as_deref()), (401, Some(CHALLENGE)));
    assert_eq!(call_with(port, Some(&expired), "whoami").status, 401);
    let me = call_with(port, Some(&valid), "whoami");
    assert_eq!(me.body["result"]["structuredContent"], whoami(&["notes:read", "cache:purge"]));
    let purged = call_with(port, Some(&valid), "purge_cache");
    assert_eq!(purged.body["result"]["structuredContent"], json!({"purged": true}));
    let metadata = request(port, "GET", "/.well-known/oauth-protected-resource/mcp", &[], b"").expect("answered");
    let metadata: Value = serde_json::from_str(&metadata.text()).expect("JSON");
    assert_eq!(metadata["scopes_supported"], json!(SCOPES));
    // A last refused request: its record is written after every record above (one queue
    // writes them in order), so once it shows, the log of every request above is complete.
    assert_eq!(call_with(port, Some("the-last-one"), "whoami").status, 401);
    assert!(c.wait_for_stderr("refused a request's bearer token", 2), "the refusals are logged: {}", c.stderr());
    let log = c.stderr();
    assert!(log.contains("refused a request's bearer token"), "the refusal is logged: {log}");
    for secret in [&valid, &expired] {
        let signature = secret.rsplit('.').next().expect("a signature");
        assert!(!log.contains(signature), "a token reached the log");
        assert!(!log.contains(secret.as_str()), "a token reached the log");
    }
}

/// A 2026-07-28 `tools/call` of `name` with `args` and `extra` params, by a caller with
/// `bearer`, on a stateless server: the JSON-RPC answer.
fn modern_call_with(port: u16, bearer: &str, name: &str, args: Value, extra: Value) -> Value {
    let mut params = json!({"name": name, "arguments": args, "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }});
    for (k, v) in extra.as_object().expect("an object") {
        params[k] = v.clone();
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let authorization = format!("Bearer {bearer}");
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", JSON_AND_SSE),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
        ("Authorization", authorization.as_str()),
    ];
    let response = request(port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("the server answers");
    serde_json::from_str(&response.text()).expect("a JSON answer")
}

#[test]
fn sealed_state_consent_and_the_state_store_belong_to_the_caller() {
    let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
    let served = serve(&idp.url(), stateless);
    let alice = token(TestKey::Rsa1, &claims(AUDIENCE, "notes:read"));
    let with = |key: &str, value: &str| {
        let mut c = claims(AUDIENCE, "notes:read");
        c[key] = json!(value);
        token(TestKey::Rsa1, &c)
    };
    let (bob, other_app, other_tenant) = (with("sub", "user-7"), with("client_id", "other-app"), with("tid", "globex"));

    let stored = modern_call_with(served.port, &alice, "put_item", json!({"id": "a"}), json!({}));
    assert_eq!(stored["result"]["structuredContent"], json!({"stored": "a"}), "{stored}");
    // Another tenant's store has no item `a`.
    let elsewhere = modern_call_with(served.port, &other_tenant, "delete_item", json!({"id": "a"}), json!({}));
    assert!(
        elsewhere["result"]["content"][0]["text"].as_str().is_some_and(|t| t.contains("reason no_such_item")),
        "{elsewhere}"
    );

    // Alice is asked; her state opens for nobody else (another subject, client, or tenant).
    let asked = modern_call_with(served.port, &alice, "delete_item", json!({"id": "a"}), json!({}));
    let state = asked["result"]["requestState"].as_str().expect("a requestState").to_owned();
    let yes = json!({"inputResponses": {"consent": {"action": "accept", "content": {"confirm": true}}}, "requestState": state});
    for caller in [&bob, &other_app, &other_tenant] {
        let refused = modern_call_with(served.port, caller, "delete_item", json!({"id": "a"}), yes.clone());
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
        assert_eq!(refused["error"]["message"], "Invalid or expired requestState", "{refused}");
    }
    // Her own retry deletes.
    let deleted = modern_call_with(served.port, &alice, "delete_item", json!({"id": "a"}), yes);
    assert_eq!(deleted["result"]["structuredContent"], json!({"deleted": "a"}), "{deleted}");
}
