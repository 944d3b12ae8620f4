//! Bring-your-own authentication over Streamable HTTP, with servers built here in-process: a
//! custom [`TokenValidator`] through [`Authorization::new`] (opaque tokens, not JWTs), a
//! [`Principal`] put on the request by the author's own axum middleware (in front of
//! [`Server::http_router`], and through [`Server::serve_http_with`]), and what a tool reads
//! of the HTTP request with `ctx.http_request()`.

use std::sync::{Arc, Mutex};

use axum::middleware::{self, Next};
use mcp_runtime::prelude::*;
use mcp_runtime::{Authorization, InvalidToken, Principal, Server, ServerBuilder, TokenProblem, TokenValidator};
use mcp_tests::http::{InProcess, free_port, request, wait_listening};
use serde_json::{Value, json};

const RESOURCE: &str = "https://notes.example.test/mcp";
const METADATA: &str = "https://notes.example.test/.well-known/oauth-protected-resource/mcp";

/// Who is calling, as the runtime hands it to a tool.
#[tool]
fn caller(ctx: &Ctx) -> String {
    match ctx.principal() {
        Some(p) if p.is_local() => "local".into(),
        Some(p) => format!(
            "{} tenant={} scopes={}",
            p.subject().unwrap_or("-"),
            p.tenant().unwrap_or("-"),
            p.scopes().join(",")
        ),
        None => "anonymous".into(),
    }
}

/// Writes a note.
#[tool(scopes("notes:write"))]
fn write_note(
    /// The note's name.
    name: String,
) -> String {
    format!("wrote {name}")
}

/// Something the author's middleware puts on the request for the tools.
#[derive(Clone)]
struct RequestTag(String);

/// What the tool sees of the HTTP request it came in.
#[tool]
fn request_seen(ctx: &Ctx) -> String {
    let Some(parts) = ctx.http_request() else { return "no HTTP request".into() };
    let trace = parts.headers.get("x-trace").and_then(|v| v.to_str().ok()).unwrap_or("-");
    let tag = parts.extensions.get::<RequestTag>().map_or("-", |t| t.0.as_str());
    format!("{} {} trace={trace} tag={tag}", parts.method, parts.uri.path())
}

fn builder() -> ServerBuilder {
    Server::builder("byo-auth", "0").tool(caller).tool(write_note).tool(request_seen)
}

/// Opaque tokens looked up in a table, as an introspection endpoint or a session store would;
/// every token it is asked about is recorded.
#[derive(Clone, Default)]
struct Table {
    asked: Arc<Mutex<Vec<String>>>,
}

impl TokenValidator for Table {
    fn validate<'a>(
        &'a self,
        token: &'a str,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Principal, InvalidToken>> + Send + 'a>> {
        Box::pin(async move {
            self.asked.lock().unwrap().push(token.to_owned());
            match token {
                "tok-alice" => Ok(Principal::new("alice").with_tenant("acme").with_scopes(["notes:read"])),
                "tok-bob" => Ok(Principal::new("bob").with_scopes(["notes:read", "notes:write"])),
                "tok-old" => Err(InvalidToken::new(TokenProblem::Expired, "expired yesterday")),
                _ => Err(InvalidToken::new(TokenProblem::Other, "not in the table")),
            }
        })
    }
}

/// A stateless `tools/call` of `name` with `arguments`, with `headers` added.
fn post_call(port: u16, headers: &[(&str, &str)], name: &str, arguments: &Value) -> (u16, Option<String>, Value) {
    let body =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    let mut all = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    all.extend_from_slice(headers);
    let response = request(port, "POST", "/mcp", &all, body.to_string().as_bytes()).expect("the server answers");
    let (status, challenge) = (response.status, response.header("www-authenticate").map(str::to_owned));
    let text = response.text();
    (status, challenge, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}

/// The text of a tool's result (success or envelope).
fn text(body: &Value) -> &str {
    body["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no result text: {body:#}"))
}

/// The envelope text with its request id replaced by `<id>`.
fn envelope(body: &Value) -> String {
    let text = text(body);
    let at = text.rfind("request ").expect("a request id") + "request ".len();
    format!("{}<id>)", &text[..at])
}

const NO_SCOPE: &str = "Error: Insufficient scope: write_note requires `notes:write`.\n\nRecovery: The access token lacks the scope `notes:write`; obtain a token that grants it (re-authorize with the scope requested), then retry.\n\n(reason insufficient_scope · not retryable · request <id>)";

#[test]
fn a_custom_token_validator_decides_who_calls() {
    let table = Table::default();
    let auth = Authorization::new(RESOURCE, table.clone())
        .authorization_servers(["https://login.example.test/"])
        .scopes_supported(["notes:read", "notes:write"]);
    let served = InProcess::serve(builder().stateless_http(true).authorization(auth).build().expect("builds"));
    let port = served.port;
    let challenge = format!("Bearer resource_metadata=\"{METADATA}\", scope=\"notes:read notes:write\"");
    let refused =
        |description: &str| format!("{challenge}, error=\"invalid_token\", error_description=\"{description}\"");
    let unauthorized = json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Unauthorized: the bearer token is not valid for this server; obtain a new one"}});

    // No token: asked for one, and the validator is not consulted.
    let (status, got, body) = post_call(port, &[], "caller", &json!({}));
    assert_eq!((status, got.as_deref()), (401, Some(challenge.as_str())), "{body}");
    // The validator's refusals, by kind.
    let (status, got, body) = post_call(port, &[("Authorization", "Bearer tok-old")], "caller", &json!({}));
    assert_eq!((status, got, body), (401, Some(refused("The access token expired")), unauthorized.clone()));
    let (status, got, body) = post_call(port, &[("Authorization", "Bearer tok-mallory")], "caller", &json!({}));
    assert_eq!((status, got, body), (401, Some(refused("The access token is invalid")), unauthorized));
    // The validator's principals reach the tools, with their scopes.
    let alice = [("Authorization", "Bearer tok-alice")];
    let bob = [("Authorization", "Bearer tok-bob")];
    let (status, _, body) = post_call(port, &alice, "caller", &json!({}));
    assert_eq!((status, text(&body)), (200, "alice tenant=acme scopes=notes:read"), "{body:#}");
    let (_, _, body) = post_call(port, &alice, "write_note", &json!({"name": "n"}));
    assert_eq!(envelope(&body), NO_SCOPE);
    let (_, _, body) = post_call(port, &bob, "caller", &json!({}));
    assert_eq!(text(&body), "bob tenant=- scopes=notes:read,notes:write");
    let (_, _, body) = post_call(port, &bob, "write_note", &json!({"name": "n"}));
    assert_eq!(body["result"], json!({"content": [{"type": "text", "text": "wrote n"}]}));
    // The validator was given each token exactly as sent, once per request.
    assert_eq!(
        *table.asked.lock().unwrap(),
        ["tok-old", "tok-mallory", "tok-alice", "tok-alice", "tok-bob", "tok-bob"]
    );
    // The metadata describes this resource.
    let response = request(port, "GET", "/.well-known/oauth-protected-resource/mcp", &[], b"").expect("answered");
    assert_eq!(response.status, 200);
    let metadata: Value = serde_json::from_str(&response.text()).expect("JSON");
    assert_eq!(
        metadata,
        json!({"resource": RESOURCE, "authorization_servers": ["https://login.example.test/"],
               "bearer_methods_supported": ["header"], "scopes_supported": ["notes:read", "notes:write"]})
    );
}

/// The author's authentication: `X-User: <name>` is trusted (a gateway in front checked it),
/// and `X-Scopes` lists the scopes; it also tags the request for the tools.
async fn who(mut request: axum::extract::Request, next: Next) -> axum::response::Response {
    let principal = {
        let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        header("x-user").map(|user| {
            let scopes = header("x-scopes").unwrap_or_default();
            Principal::new(user).with_scopes(scopes.split(',').filter(|s| !s.is_empty()).map(str::to_owned))
        })
    };
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    request.extensions_mut().insert(RequestTag("from-middleware".into()));
    next.run(request).await
}

fn with_middleware(server: &Server) -> axum::Router {
    axum::Router::new().nest("/mcp", server.http_router().layer(middleware::from_fn(who)))
}

#[test]
fn a_principal_from_the_authors_middleware_reaches_the_tools() {
    let server = builder().stateless_http(true).build().expect("builds");
    let app = InProcess::router(with_middleware(&server));
    let port = app.port;
    let (status, _, body) = post_call(port, &[("X-User", "carol")], "caller", &json!({}));
    assert_eq!((status, text(&body)), (200, "carol tenant=- scopes="), "{body:#}");
    // Without the middleware's principal, the request is from the server's local principal.
    let (_, _, body) = post_call(port, &[], "caller", &json!({}));
    assert_eq!(text(&body), "local");
    // Per-tool scopes are checked against the middleware's principal.
    let (_, _, body) = post_call(port, &[("X-User", "carol")], "write_note", &json!({"name": "n"}));
    assert_eq!(envelope(&body), NO_SCOPE);
    let (_, _, body) =
        post_call(port, &[("X-User", "carol"), ("X-Scopes", "notes:write")], "write_note", &json!({"name": "n"}));
    assert_eq!(text(&body), "wrote n");
    drop(app);

    // A server that relied on requests without a principal being refused narrows the local
    // principal to no scope: the same call without `X-User` is then refused for its scope.
    let server = builder().stateless_http(true).local_principal(Principal::default()).build().expect("builds");
    let app = InProcess::router(with_middleware(&server));
    let (_, _, body) = post_call(app.port, &[], "write_note", &json!({"name": "n"}));
    assert_eq!(
        envelope(&body),
        "Error: Insufficient scope: write_note requires `notes:write`.\n\nRecovery: This request carries no access token (no authorization is configured for its transport), and the server's local principal lacks the scope `notes:write`; call it over an authorized connection whose token grants it, or ask the server's operator to grant it to local callers (`ServerBuilder::local_principal`).\n\n(reason insufficient_scope · not retryable · request <id>)"
    );
    let (_, _, body) =
        post_call(app.port, &[("X-User", "carol"), ("X-Scopes", "notes:write")], "write_note", &json!({"name": "n"}));
    assert_eq!(text(&body), "wrote n");
}

/// A legacy session over HTTP: `initialize` as `headers` say; the session id.
fn open_session(port: u16, headers: &[(&str, &str)]) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "byo", "version": "1"}}});
    let mut all = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
    all.extend_from_slice(headers);
    let response = request(port, "POST", "/mcp", &all, init.to_string().as_bytes()).expect("answered");
    assert_eq!(response.status, 200);
    response.header("mcp-session-id").expect("a session id").to_owned()
}

#[test]
fn a_session_opened_under_the_middlewares_principal_belongs_to_it() {
    let server = builder().build().expect("builds");
    let app = InProcess::router(with_middleware(&server));
    let port = app.port;
    let session = open_session(port, &[("X-User", "carol")]);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let list_as = |user: Option<&str>| {
        let mut headers = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", session.as_str()),
        ];
        if let Some(user) = user {
            headers.push(("X-User", user));
        }
        request(port, "POST", "/mcp", &headers, list.to_string().as_bytes()).expect("answered").status
    };
    assert_eq!(list_as(Some("carol")), 200);
    // Another principal, or none, holding the id alone, does not find it.
    assert_eq!(list_as(Some("dave")), 404);
    assert_eq!(list_as(None), 404);
}

#[test]
fn serve_http_with_puts_the_middleware_in_front_of_the_endpoint() {
    let server = builder().stateless_http(true).build().expect("builds");
    let port = free_port();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let serving = runtime.spawn(server.serve_http_with(("127.0.0.1", port), |mcp| mcp.layer(middleware::from_fn(who))));
    assert!(wait_listening(port), "nothing listens on {port}: {:?}", serving.is_finished());
    let (status, _, body) = post_call(port, &[("X-User", "erin")], "caller", &json!({}));
    assert_eq!((status, text(&body)), (200, "erin tenant=- scopes="), "{body:#}");
    let (_, _, body) = post_call(port, &[("X-Trace", "t-9")], "request_seen", &json!({}));
    assert_eq!(text(&body), "POST / trace=t-9 tag=from-middleware");
    // Dropping the runtime ends the server.
    drop(runtime);
}

#[test]
fn a_tool_reads_the_http_request_it_came_in() {
    let server = builder().stateless_http(true).build().expect("builds");
    let app = InProcess::router(with_middleware(&server));
    // The method, the path under the mount point, a header, and what the middleware added.
    let (status, _, body) = post_call(app.port, &[("X-Trace", "abc-123")], "request_seen", &json!({}));
    assert_eq!((status, text(&body)), (200, "POST / trace=abc-123 tag=from-middleware"), "{body:#}");
    // Without the middleware: the request, and nothing it would have added.
    let bare = InProcess::serve(builder().stateless_http(true).build().expect("builds"));
    let (_, _, body) = post_call(bare.port, &[("X-Trace", "abc-123")], "request_seen", &json!({}));
    assert_eq!(text(&body), "POST / trace=abc-123 tag=-");
    // In-process there is no HTTP request.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let result = runtime.block_on(server.call("request_seen", json!({})));
    let result = serde_json::to_value(result).expect("serializes");
    assert_eq!(result["content"][0]["text"], json!("no HTTP request"));
}
