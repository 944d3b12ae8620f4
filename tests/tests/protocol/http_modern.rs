//! Streamable HTTP in the 2026-07-28 era, beside 2025-11-25 on the same endpoint: each rung
//! of the modern ladder with its HTTP status, JSON-RPC code and id; the `Mcp-Method` /
//! `Mcp-Name` mirrors (plain and `=?base64?…?=`); no sessions for modern traffic, in both
//! postures (with sessions and `--stateless`), and legacy sessions that keep working in
//! between; cancellation by closing the response; `subscriptions/listen` streams (in
//! process, where tools can be added and removed while the server runs). Every modern body
//! received is checked against the official 2026-07-28 schema.

use std::time::{Duration, Instant};

use mcp_runtime::ServerBuilder;
use mcp_runtime::prelude::*;
use mcp_tests::client::Client;
use mcp_tests::http::{Response, request, send};
use mcp_tests::spec_schema::{Version, check_message};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const JSON_AND_SSE: &str = "application/json, text/event-stream";
const MODERN: &str = "2026-07-28";
const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
const SUBSCRIPTION_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// The fixture server's two postures: with sessions, and `--stateless`.
const MODES: [&[&str]; 2] = [&[], &["--stateless"]];

fn server(args: &[&str]) -> Client {
    Client::spawn_http(SERVER, &[], args)
}

/// What `_meta["io.modelcontextprotocol/serverInfo"]` must say.
fn server_info() -> Value {
    json!({"name": "fixture-server", "version": env!("CARGO_PKG_VERSION")})
}

// ---------------------------------------------------------------------------------------
// Messages and headers

/// A modern claim with these client capabilities.
fn claim(capabilities: Value) -> Value {
    json!({VERSION_KEY: MODERN, CAPABILITIES_KEY: capabilities})
}

/// A request whose `params._meta` is `meta`.
fn with_meta(id: Value, method: &str, params: Value, meta: Value) -> Value {
    let mut params = params;
    params["_meta"] = meta;
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A modern request: `params._meta` carries the 2026-07-28 claim, with no capabilities.
fn modern(id: Value, method: &str, params: Value) -> Value {
    with_meta(id, method, params, claim(json!({})))
}

type Headers = Vec<(String, String)>;

/// The headers a well-formed modern POST of `body` carries: the version, `Mcp-Method`, and
/// `Mcp-Name` for `tools/call`.
fn modern_headers(body: &Value) -> Headers {
    let mut headers: Headers = vec![
        ("Content-Type".into(), "application/json".into()),
        ("Accept".into(), JSON_AND_SSE.into()),
        ("MCP-Protocol-Version".into(), MODERN.into()),
    ];
    if let Some(method) = body["method"].as_str() {
        headers.push(("Mcp-Method".into(), method.into()));
        if method == "tools/call"
            && let Some(name) = body["params"]["name"].as_str()
        {
            headers.push(("Mcp-Name".into(), name.into()));
        }
    }
    headers
}

/// Sets a header (replacing one of the same name), or removes it with `None`.
fn set(mut headers: Headers, name: &str, value: Option<&str>) -> Headers {
    headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    if let Some(value) = value {
        headers.push((name.to_owned(), value.to_owned()));
    }
    headers
}

fn borrowed(headers: &Headers) -> Vec<(&str, &str)> {
    headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect()
}

fn post(port: u16, headers: &Headers, body: &str) -> Response {
    request(port, "POST", "/mcp", &borrowed(headers), body.as_bytes()).expect("the server answers")
}

/// `=?base64?…?=` with standard base64 and padding.
fn b64(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    format!("=?base64?{out}?=")
}

#[test]
fn the_base64_helper_pads_as_the_standard_does() {
    assert_eq!(b64("add"), "=?base64?YWRk?=");
    assert_eq!(b64("echo"), "=?base64?ZWNobw==?=");
    assert_eq!(b64("tools/call"), "=?base64?dG9vbHMvY2FsbA==?=");
    assert_eq!(b64("tools/list"), "=?base64?dG9vbHMvbGlzdA==?=");
}

// ---------------------------------------------------------------------------------------
// Responses

/// A whole response: status, headers, and the body as JSON (`Null` when empty).
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

fn reply(response: Response) -> Reply {
    let status = response.status;
    let headers = response.headers.clone();
    let text = response.text();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("a body that is not JSON ({e}): {text:?}"))
    };
    Reply { status, headers, body }
}

/// Panics unless `message` (a response to `method`, or a notification) is valid 2026-07-28.
fn checked(method: Option<&str>, message: &Value) {
    if let Err(report) = check_message(Version::V2026_07_28, method, message) {
        panic!("not a valid 2026-07-28 message: {report}\n{message:#}");
    }
}

/// A modern POST with its usual headers; the reply, its body checked against the schema.
fn post_modern(port: u16, body: &Value) -> Reply {
    post_checked(port, &modern_headers(body), body)
}

/// A POST with these headers; the reply, its body checked against the schema as an answer to
/// the body's method.
fn post_checked(port: u16, headers: &Headers, body: &Value) -> Reply {
    let r = reply(post(port, headers, &body.to_string()));
    if !r.body.is_null() {
        checked(body["method"].as_str(), &r.body);
    }
    r
}

/// Asserts a protocol error: status, code, the request's id; returns the error object.
fn assert_error(r: &Reply, status: u16, code: i64, id: &Value) -> Value {
    assert_eq!((r.status, &r.body["error"]["code"], &r.body["id"]), (status, &json!(code), id), "{:#}", r.body);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert!(r.body["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{:#}", r.body);
    r.body["error"].clone()
}

/// Asserts a modern result: 200, the id, `resultType` complete, and the server's info.
fn assert_complete(r: &Reply, id: &Value) -> Value {
    assert_eq!((r.status, &r.body["id"]), (200, id), "{:#}", r.body);
    let result = &r.body["result"];
    assert_eq!(result["resultType"], json!("complete"), "{:#}", r.body);
    assert_eq!(result["_meta"][SERVER_INFO_KEY], server_info(), "{:#}", r.body);
    result.clone()
}

// ---------------------------------------------------------------------------------------
// Legacy sessions (2025-11-25) beside modern traffic

fn legacy_headers(session: Option<&str>) -> Headers {
    let mut headers: Headers =
        vec![("Content-Type".into(), "application/json".into()), ("Accept".into(), JSON_AND_SSE.into())];
    if let Some(s) = session {
        headers.push(("Mcp-Session-Id".into(), s.into()));
    }
    headers
}

fn post_legacy(port: u16, session: Option<&str>, body: &Value) -> Reply {
    let r = reply(post(port, &legacy_headers(session), &body.to_string()));
    if let Some(method) = body["method"].as_str()
        && body.get("id").is_some()
        && let Err(report) = check_message(Version::V2025_11_25, Some(method), &r.body)
    {
        panic!("not a valid 2025-11-25 message: {report}\n{:#}", r.body);
    }
    r
}

/// A legacy session: `initialize`, then `notifications/initialized`; its id.
fn legacy_session(port: u16) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "http-modern", "version": "1"}}});
    let r = post_legacy(port, None, &init);
    assert_eq!(r.status, 200);
    assert_eq!(r.body["result"]["protocolVersion"], json!("2025-11-25"));
    let id = r.header("mcp-session-id").expect("a session id").to_owned();
    let accepted = post_legacy(port, Some(&id), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(accepted.status, 202);
    id
}

// ---------------------------------------------------------------------------------------
// Results and sessions

#[test]
fn modern_results_are_complete_and_carry_the_server_info_in_both_postures() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");

        let r = post_modern(port, &modern(json!(1), "server/discover", json!({})));
        let result = assert_complete(&r, &json!(1));
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(result["supportedVersions"], json!([MODERN]), "{args:?}");
        assert!(result["capabilities"]["tools"].is_object(), "{result:#}");

        let r = post_modern(port, &modern(json!("list"), "tools/list", json!({})));
        let result = assert_complete(&r, &json!("list"));
        assert_eq!((&result["ttlMs"], &result["cacheScope"]), (&json!(0), &json!("private")), "{args:?}");
        let names: Vec<&str> =
            result["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
        assert!(names.contains(&"add") && names.contains(&"wait_cancel"), "{names:?}");

        let call = modern(json!(3), "tools/call", json!({"name": "add", "arguments": {"a": 2, "b": 3}}));
        let r = post_modern(port, &call);
        let result = assert_complete(&r, &json!(3));
        assert_eq!(result["structuredContent"], json!({"sum": 5}), "{args:?}");
        assert_eq!(result.get("isError"), None);
        // No session is minted for modern traffic.
        assert_eq!(r.header("mcp-session-id"), None, "{args:?}");
    }
}

#[test]
fn a_modern_request_ignores_any_session_id_and_mints_none() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        let call = modern(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": "hi"}}));
        for sid in [None, Some("NOPE-NOT-A-SESSION"), Some("")] {
            let headers = set(modern_headers(&call), "Mcp-Session-Id", sid);
            let r = post_checked(port, &headers, &call);
            let result = assert_complete(&r, &json!(1));
            assert_eq!(result["content"][0]["text"], json!("hi"), "{args:?} {sid:?}");
            assert_eq!(r.header("mcp-session-id"), None, "{args:?} {sid:?}");
        }
    }
}

#[test]
fn legacy_sessions_keep_working_between_modern_requests() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = legacy_session(port);
    let legacy_call = |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "add", "arguments": {"a": id, "b": 1}}});
    for round in 0..3_i64 {
        // Modern, with the legacy session's id (ignored) and without one.
        let call = modern(json!(100 + round), "tools/call", json!({"name": "add", "arguments": {"a": round, "b": 10}}));
        let r = post_checked(port, &set(modern_headers(&call), "Mcp-Session-Id", Some(&sid)), &call);
        assert_eq!(assert_complete(&r, &json!(100 + round))["structuredContent"], json!({"sum": round + 10}));
        assert_eq!(r.header("mcp-session-id"), None);
        let r = post_modern(port, &modern(json!(200 + round), "tools/list", json!({})));
        assert_complete(&r, &json!(200 + round));

        // Legacy, in its session: the 2025 shapes, without resultType or serverInfo.
        let r = post_legacy(port, Some(&sid), &legacy_call(round));
        assert_eq!(r.status, 200);
        assert_eq!(r.body["result"]["structuredContent"], json!({"sum": round + 1}));
        assert_eq!(r.body["result"].get("resultType"), None, "{:#}", r.body);
        assert_eq!(r.body["result"].get("_meta"), None, "{:#}", r.body);
        let r = post_legacy(port, Some(&sid), &json!({"jsonrpc": "2.0", "id": 300 + round, "method": "tools/list"}));
        assert_eq!(r.status, 200);
        assert_eq!(r.body["result"].get("ttlMs"), None, "{:#}", r.body);
        let r = post_legacy(port, Some(&sid), &json!({"jsonrpc": "2.0", "id": 400 + round, "method": "ping"}));
        assert_eq!((r.status, &r.body["result"]), (200, &json!({})));
    }
    // The legacy side still requires its session.
    let r = post_legacy(port, None, &legacy_call(9));
    assert_eq!((r.status, &r.body["error"]["code"]), (400, &json!(-32600)));
}

#[test]
fn the_same_modern_requests_work_with_and_without_sessions() {
    let requests = [
        modern(json!(1), "server/discover", json!({})),
        modern(json!(2), "tools/list", json!({})),
        modern(json!(3), "tools/call", json!({"name": "search_docs", "arguments": {"query": "q", "limit": 2}})),
    ];
    let answers: Vec<Vec<Value>> = MODES
        .iter()
        .map(|args| {
            let c = server(args);
            let port = c.http_port().expect("http");
            requests
                .iter()
                .map(|body| {
                    let r = post_modern(port, body);
                    assert_complete(&r, &body["id"]);
                    r.body
                })
                .collect()
        })
        .collect();
    assert_eq!(answers[0], answers[1], "the posture does not change a modern answer");
}

// ---------------------------------------------------------------------------------------
// The ladder

#[test]
fn a_version_header_that_disagrees_with_the_body_is_32020() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        // Header 2026-07-28, body v999.0.0.
        let body = with_meta(json!(1), "tools/list", json!({}), json!({VERSION_KEY: "v999.0.0", CAPABILITIES_KEY: {}}));
        let r = post_checked(port, &modern_headers(&body), &body);
        assert_error(&r, 400, -32020, &json!(1));
        // Body 2026-07-28, header missing or another version.
        let body = modern(json!("two"), "tools/list", json!({}));
        for header in [None, Some("2025-11-25"), Some("v999.0.0"), Some("2026-07-29")] {
            let headers = set(modern_headers(&body), "MCP-Protocol-Version", header);
            let r = post_checked(port, &headers, &body);
            assert_error(&r, 400, -32020, &json!("two"));
        }
        // The same on a tools/call.
        let call = modern(json!(3), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 1}}));
        let r = post_checked(port, &set(modern_headers(&call), "MCP-Protocol-Version", None), &call);
        assert_error(&r, 400, -32020, &json!(3));
    }
}

#[test]
fn a_version_this_server_does_not_serve_is_32022_with_the_supported_ones() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        for method in ["tools/list", "tools/call", "server/discover"] {
            let params = if method == "tools/call" { json!({"name": "add", "arguments": {}}) } else { json!({}) };
            let body = with_meta(json!(5), method, params, json!({VERSION_KEY: "v999.0.0", CAPABILITIES_KEY: {}}));
            let headers = set(modern_headers(&body), "MCP-Protocol-Version", Some("v999.0.0"));
            let r = post_checked(port, &headers, &body);
            let error = assert_error(&r, 400, -32022, &json!(5));
            assert_eq!(error["data"], json!({"supported": [MODERN], "requested": "v999.0.0"}), "{args:?} {method}");
        }
    }
}

#[test]
fn a_malformed_claim_is_32602_with_http_400() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        let headers = modern_headers(&json!({"method": "tools/list"}));
        let cases = [
            ("no params", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            ("no _meta", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})),
            ("_meta without a version", with_meta(json!(1), "tools/list", json!({}), json!({CAPABILITIES_KEY: {}}))),
            ("no clientCapabilities", with_meta(json!(1), "tools/list", json!({}), json!({VERSION_KEY: MODERN}))),
            (
                "clientCapabilities not an object",
                with_meta(json!(1), "tools/list", json!({}), json!({VERSION_KEY: MODERN, CAPABILITIES_KEY: []})),
            ),
            (
                "protocolVersion a number",
                with_meta(json!(1), "tools/list", json!({}), json!({VERSION_KEY: 20_260_728, CAPABILITIES_KEY: {}})),
            ),
            (
                "protocolVersion null",
                with_meta(json!(1), "tools/list", json!({}), json!({VERSION_KEY: null, CAPABILITIES_KEY: {}})),
            ),
        ];
        for (what, body) in cases {
            let r = post_checked(port, &headers, &body);
            assert_eq!(r.status, 400, "{args:?} {what}: {:#}", r.body);
            assert_error(&r, 400, -32602, &json!(1));
        }
        // A version that is not a string is -32602 without the header too.
        let body = with_meta(json!(2), "tools/list", json!({}), json!({VERSION_KEY: 20_260_728, CAPABILITIES_KEY: {}}));
        let r = post_checked(port, &set(modern_headers(&body), "MCP-Protocol-Version", None), &body);
        assert_error(&r, 400, -32602, &json!(2));
    }
}

#[test]
fn mcp_method_must_mirror_the_body_plainly_or_in_base64() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        let body = modern(json!(1), "tools/list", json!({}));
        for (sent, ok) in [
            (None, false),
            (Some("tools/call".to_owned()), false),
            (Some("TOOLS/LIST".to_owned()), false),
            (Some(b64("tools/call")), false),
            (Some("=?base64?not base64!?=".to_owned()), false),
            (Some("tools/list".to_owned()), true),
            (Some(b64("tools/list")), true),
        ] {
            let r = post_checked(port, &set(modern_headers(&body), "Mcp-Method", sent.as_deref()), &body);
            if ok {
                assert_complete(&r, &json!(1));
            } else {
                let error = assert_error(&r, 400, -32020, &json!(1));
                assert!(error["message"].as_str().is_some_and(|m| m.contains("Mcp-Method")), "{sent:?}: {error}");
            }
        }
    }
}

#[test]
fn mcp_name_must_mirror_a_tool_calls_name_plainly_or_in_base64() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        let body = modern(json!(1), "tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
        for (sent, ok) in [
            (None, false),
            (Some("add".to_owned()), false),
            (Some("Echo".to_owned()), false),
            (Some(b64("add")), false),
            (Some("=?base64?ZWNobw?=".to_owned()), false),
            (Some("echo".to_owned()), true),
            (Some(b64("echo")), true),
        ] {
            let r = post_checked(port, &set(modern_headers(&body), "Mcp-Name", sent.as_deref()), &body);
            if ok {
                assert_eq!(assert_complete(&r, &json!(1))["content"][0]["text"], json!("x"), "{sent:?}");
            } else {
                let error = assert_error(&r, 400, -32020, &json!(1));
                assert!(error["message"].as_str().is_some_and(|m| m.contains("Mcp-Name")), "{sent:?}: {error}");
            }
        }
        // Both mirrors in base64 at once.
        let headers =
            set(set(modern_headers(&body), "Mcp-Method", Some(&b64("tools/call"))), "Mcp-Name", Some(&b64("echo")));
        assert_complete(&post_checked(port, &headers, &body), &json!(1));
    }
}

#[test]
fn methods_removed_in_2026_and_unknown_ones_are_404_32601() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        for (i, method) in
            ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "nope/nope"]
                .into_iter()
                .enumerate()
        {
            let params = match method {
                "initialize" => {
                    json!({"protocolVersion": MODERN, "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}})
                }
                "logging/setLevel" => json!({"level": "info"}),
                "resources/subscribe" | "resources/unsubscribe" => json!({"uri": "file:///x"}),
                _ => json!({}),
            };
            let id = json!(format!("m{i}"));
            let body = modern(id.clone(), method, params);
            // Checked as an error response (the method has no 2026 result to check against).
            let r = reply(post(port, &modern_headers(&body), &body.to_string()));
            checked(None, &r.body);
            assert_error(&r, 404, -32601, &id);
            assert_eq!(r.header("mcp-session-id"), None, "{args:?} {method}");
        }
    }
}

#[test]
fn handler_level_errors_stay_http_200() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        // A bad cursor: a JSON-RPC error, but from the handler.
        for cursor in [json!("page-999"), json!("nope"), json!(7)] {
            let r = post_modern(port, &modern(json!(1), "tools/list", json!({"cursor": cursor})));
            assert_error(&r, 200, -32602, &json!(1));
        }
        // Tool failures are results.
        for (id, name, arguments, reason) in [
            (2, "nope", json!({}), "unknown_tool"),
            (3, "add", json!({"a": "x", "b": 1}), "invalid_arguments"),
            (4, "boom", json!({}), "internal_error"),
        ] {
            let r = post_modern(port, &modern(json!(id), "tools/call", json!({"name": name, "arguments": arguments})));
            let result = assert_complete(&r, &json!(id));
            assert_eq!(result["isError"], json!(true), "{name}: {result:#}");
            let text = result["content"][0]["text"].as_str().expect("text");
            assert!(text.contains(&format!("reason {reason}")), "{name}: {text}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// GET, DELETE, notifications

#[test]
fn get_and_delete_under_a_modern_header_are_405_post_only() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        let session = if args.is_empty() { Some(legacy_session(port)) } else { None };
        for method in ["GET", "DELETE"] {
            let mut headers = vec![("Accept", "text/event-stream"), ("MCP-Protocol-Version", MODERN)];
            for with_session in [false, true] {
                if with_session {
                    let Some(sid) = session.as_deref() else { continue };
                    headers.push(("Mcp-Session-Id", sid));
                }
                let r = request(port, method, "/mcp", &headers, b"").expect("answers");
                let allow = r.header("allow").map(str::to_owned);
                let r = reply(r);
                assert_eq!((r.status, allow.as_deref()), (405, Some("POST")), "{args:?} {method} {with_session}");
                // A JSON-RPC error without a request to answer (its schema validity is
                // `the_405_body_is_a_valid_2026_error_response`'s).
                assert!(r.body["error"]["message"].is_string(), "{:#}", r.body);
            }
        }
        if let Some(sid) = session {
            // The session was not ended by the modern DELETE, and legacy GET still opens its stream.
            let r = post_legacy(port, Some(&sid), &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
            assert_eq!(r.status, 200);
            let get = request(port, "GET", "/mcp", &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &sid)], b"")
                .expect("answers");
            assert_eq!(get.status, 200);
        }
    }
}

#[test]
fn the_405_body_is_a_valid_2026_error_response() {
    let c = server(&["--stateless"]);
    let port = c.http_port().expect("http");
    let r = request(port, "GET", "/mcp", &[("Accept", "text/event-stream"), ("MCP-Protocol-Version", MODERN)], b"")
        .expect("answers");
    let r = reply(r);
    assert_eq!(r.status, 405);
    checked(None, &r.body);
}

#[test]
fn a_modern_notification_is_accepted_with_202() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        let headers: Headers = vec![
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), JSON_AND_SSE.into()),
            ("MCP-Protocol-Version".into(), MODERN.into()),
        ];
        for body in [
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "x"}}),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9, "_meta": claim(json!({}))}}),
        ] {
            let r = reply(post(port, &headers, &body.to_string()));
            assert_eq!((r.status, &r.body), (202, &Value::Null), "{args:?} {body}");
            assert_eq!(r.header("mcp-session-id"), None);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Cancellation by closing the response

/// Waits (10 s at most) until `done` holds.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn cleanups(c: &Client) -> usize {
    c.stderr().lines().filter(|l| l.starts_with("cleanup ran for ")).count()
}

#[test]
fn closing_a_modern_calls_response_cancels_the_call() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        let body = modern(json!("w"), "tools/call", json!({"name": "wait_cancel", "arguments": {}}));
        let connection =
            send(port, "POST", "/mcp", &borrowed(&modern_headers(&body)), body.to_string().as_bytes()).expect("sent");
        assert!(c.wait_for_stderr("waiting for a cancel", 1), "{args:?}: the call never started:\n{}", c.stderr());
        assert_eq!(cleanups(&c), 0, "{args:?}: the handler waits until it is cancelled");
        drop(connection);
        assert!(eventually(|| cleanups(&c) == 1), "{args:?}: the handler saw ctx.cancelled(); stderr:\n{}", c.stderr());
        // The server is fine afterwards.
        let r = post_modern(port, &modern(json!(2), "tools/list", json!({})));
        assert_complete(&r, &json!(2));
    }
}

#[test]
fn closing_a_legacy_calls_response_does_not_cancel_it_in_a_session() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = legacy_session(port);
    let body = json!({"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {"name": "wait_cancel", "arguments": {}}});
    let connection =
        send(port, "POST", "/mcp", &borrowed(&legacy_headers(Some(&sid))), body.to_string().as_bytes()).expect("sent");
    assert!(c.wait_for_stderr("waiting for a cancel", 1), "the call never started:\n{}", c.stderr());
    drop(connection);
    // Not a synchronisation: a window in which a cancellation would show, were there one
    // (the stateless case below shows it well within it). The client may resume the stream.
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(cleanups(&c), 0, "a dropped connection of a session is not a cancellation");
    // Its session can still cancel it.
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "w"}});
    assert_eq!(post_legacy(port, Some(&sid), &cancel).status, 202);
    assert!(eventually(|| cleanups(&c) == 1), "stderr:\n{}", c.stderr());
}

/// Issue 33 item 4: without sessions, a 2025 request's stream is the only thing that reaches
/// its call (no session carries `notifications/cancelled`, no stream is resumed): closing it
/// cancels the call, as for a 2026-07-28 request.
#[test]
fn closing_a_legacy_calls_response_cancels_it_without_sessions() {
    let c = server(&["--stateless"]);
    let port = c.http_port().expect("http");
    let body = json!({"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {"name": "wait_cancel", "arguments": {}}});
    let connection =
        send(port, "POST", "/mcp", &borrowed(&legacy_headers(None)), body.to_string().as_bytes()).expect("sent");
    assert!(c.wait_for_stderr("waiting for a cancel", 1), "the call never started:\n{}", c.stderr());
    assert_eq!(cleanups(&c), 0, "the handler waits until it is cancelled");
    drop(connection);
    assert!(eventually(|| cleanups(&c) == 1), "the handler saw ctx.cancelled(); stderr:\n{}", c.stderr());
    // The server is fine afterwards.
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
    let r = post_legacy(port, None, &list);
    assert_eq!((r.status, &r.body["id"]), (200, &json!(2)), "{}", r.body);
    assert!(r.body["result"]["tools"].is_array(), "{}", r.body);
}

// ---------------------------------------------------------------------------------------
// subscriptions/listen

/// A server served in process on a port of its own (with sessions, or stateless), on a
/// runtime of its own; `server` is a clone of it, to add and remove tools while it runs.
struct InProcess {
    port: u16,
    server: Server,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    done: std::sync::mpsc::Receiver<Result<(), mcp_runtime::Error>>,
}

impl InProcess {
    fn start(builder: ServerBuilder, stateless: bool) -> InProcess {
        let server = builder
            .stateless_http(stateless)
            .shutdown_grace(Duration::from_secs(5))
            .build()
            .expect("the server builds");
        let serving = server.clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (port_tx, port_rx) = std::sync::mpsc::channel();
        let (done_tx, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
            let result = runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let _ = port_tx.send(listener.local_addr()?.port());
                serving
                    .serve_http_on(listener, async move {
                        let _ = stopped.await;
                    })
                    .await
            });
            let _ = done_tx.send(result);
        });
        let port = port_rx.recv_timeout(Duration::from_secs(10)).expect("the server listens");
        InProcess { port, server, stop: Some(stop), done }
    }

    /// Signals the shutdown (the server stops and its listen streams end).
    fn shut_down(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }

    /// Waits for the server to return (10 s at most).
    fn wait(&self) {
        let result = self.done.recv_timeout(Duration::from_secs(10)).expect("the server stops");
        result.expect("the server stops without an error");
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Added and removed while a server runs.
#[tool]
fn late_tool() -> String {
    "late".into()
}

/// Opens a listen stream; its acknowledgement (checked); the response, to read further.
fn listen(port: u16, id: &Value, filter: Value) -> (Response, Value) {
    let body = modern(id.clone(), "subscriptions/listen", json!({"notifications": filter}));
    let mut response = post(port, &modern_headers(&body), &body.to_string());
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    assert_eq!(response.header("mcp-session-id"), None);
    let ack = next_message(&mut response).expect("the acknowledgement");
    checked(None, &ack);
    assert_eq!(ack["method"], json!("notifications/subscriptions/acknowledged"), "{ack:#}");
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_KEY], *id, "{ack:#}");
    (response, ack)
}

/// The next SSE event's data as JSON.
fn next_message(response: &mut Response) -> Option<Value> {
    let (_, data) = response.next_event()?;
    Some(serde_json::from_str(&data).unwrap_or_else(|e| panic!("an event that is not JSON ({e}): {data:?}")))
}

fn tool_names(port: u16) -> Vec<String> {
    let r = post_modern(port, &modern(json!("names"), "tools/list", json!({})));
    let result = assert_complete(&r, &json!("names"));
    result["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
}

/// Asserts the graceful end of a listen stream, then the end of the stream itself.
fn assert_graceful_end(response: &mut Response, id: &Value) {
    let end = next_message(response).expect("the graceful listen result");
    checked(Some("subscriptions/listen"), &end);
    assert_eq!(
        end,
        json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete", "_meta": {
            SERVER_INFO_KEY: server_info(), SUBSCRIPTION_KEY: id}}}),
    );
    assert_eq!(response.next_event(), None, "nothing follows the listen result");
}

#[test]
fn a_listen_stream_is_told_of_tool_changes_and_ends_gracefully_at_shutdown() {
    for stateless in [false, true] {
        let mut s = InProcess::start(mcp_tests::fixture::builder(false), stateless);
        let id = json!("listen-1");
        let (mut stream, ack) = listen(s.port, &id, json!({"toolsListChanged": true}));
        assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}), "{ack:#}");
        assert!(!tool_names(s.port).contains(&"late_tool".to_owned()));

        s.server.add_tool(late_tool).expect("added");
        let changed = next_message(&mut stream).expect("a list change");
        checked(None, &changed);
        assert_eq!(
            changed,
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": {SUBSCRIPTION_KEY: id}}}),
            "stateless {stateless}"
        );
        assert!(tool_names(s.port).contains(&"late_tool".to_owned()));
        let call = modern(json!(2), "tools/call", json!({"name": "late_tool", "arguments": {}}));
        assert_eq!(assert_complete(&post_modern(s.port, &call), &json!(2))["content"][0]["text"], json!("late"));

        assert!(s.server.remove_tool("late_tool"));
        let changed = next_message(&mut stream).expect("another list change");
        checked(None, &changed);
        assert_eq!(changed["method"], json!("notifications/tools/list_changed"));
        assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_KEY], id);
        assert!(!tool_names(s.port).contains(&"late_tool".to_owned()));
        // Removing a tool that is not there changes nothing. (Whether it stays silent is
        // checked only loosely: the shutdown below may win the race with a notification.)
        assert!(!s.server.remove_tool("late_tool"));

        s.shut_down();
        assert_graceful_end(&mut stream, &id);
        s.wait();
    }
}

#[test]
fn a_listen_stream_without_tools_is_acknowledged_without_them_and_gets_no_tool_changes() {
    let mut s = InProcess::start(mcp_tests::fixture::builder(false), false);
    let prompts_id = json!(7);
    let (mut prompts, ack) = listen(s.port, &prompts_id, json!({"promptsListChanged": true}));
    assert_eq!(ack["params"]["notifications"], json!({"promptsListChanged": true}), "{ack:#}");
    // A second listener that does want tool changes shows when one was sent.
    let tools_id = json!("tools");
    let (mut tools, _) = listen(s.port, &tools_id, json!({"toolsListChanged": true}));
    s.server.add_tool(late_tool).expect("added");
    let changed = next_message(&mut tools).expect("a list change");
    assert_eq!(changed["method"], json!("notifications/tools/list_changed"));
    s.shut_down();
    // The prompts-only stream got nothing but its end.
    assert_graceful_end(&mut prompts, &prompts_id);
    assert_graceful_end(&mut tools, &tools_id);
    s.wait();
}

#[test]
fn an_idle_listen_stream_sends_keep_alive_comments() {
    let s = InProcess::start(mcp_tests::fixture::builder(false), true);
    let id = json!("idle");
    let (mut stream, _) = listen(s.port, &id, json!({"toolsListChanged": true}));
    let opened = Instant::now();
    // The acknowledgement's blank line may come first.
    let line = loop {
        let line = stream.next_line().expect("the stream stays open");
        if !line.is_empty() {
            break line;
        }
    };
    assert_eq!(line, ": keep-alive");
    let waited = opened.elapsed();
    assert!(waited >= Duration::from_secs(10), "a keep-alive after {waited:?} of silence, not at once");
    // Still open and live after it.
    s.server.add_tool(late_tool).expect("added");
    let changed = next_message(&mut stream).expect("a list change");
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_KEY], id);
}

#[test]
fn a_listen_stream_of_the_fixture_server_ends_gracefully_on_sigterm() {
    for args in MODES {
        let mut c = server(args);
        let port = c.http_port().expect("http");
        let id = json!(42);
        let (mut stream, _) = listen(port, &id, json!({"toolsListChanged": true}));
        c.close_stdin();
        assert_graceful_end(&mut stream, &id);
        assert!(c.wait_exit(Duration::from_secs(10)).is_some(), "{args:?}: the server exits");
    }
}

#[test]
fn a_listen_with_bad_params_is_refused() {
    for args in MODES {
        let c = server(args);
        let port = c.http_port().expect("http");
        for params in [json!({}), json!({"notifications": []}), json!({"notifications": {"toolsListChanged": "yes"}})] {
            let body = modern(json!(1), "subscriptions/listen", params.clone());
            let r = reply(post(port, &modern_headers(&body), &body.to_string()));
            checked(None, &r.body);
            assert_eq!(r.body["error"]["code"], json!(-32602), "{args:?} {params}: {:#}", r.body);
            assert_eq!(r.body["id"], json!(1));
        }
    }
}

// ---------------------------------------------------------------------------------------
// A capability the client did not declare

/// Needs the client's `sampling` capability.
#[tool]
fn needs_sampling(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.require_client_capability("sampling")?;
    Ok("sampled".into())
}

#[test]
fn a_tool_needing_an_undeclared_capability_is_400_32021() {
    for stateless in [false, true] {
        let s = InProcess::start(mcp_tests::fixture::builder(false).tool(needs_sampling), stateless);
        let params = json!({"name": "needs_sampling", "arguments": {}});
        let body = modern(json!(1), "tools/call", params.clone());
        let r = post_modern(s.port, &body);
        let error = assert_error(&r, 400, -32021, &json!(1));
        let required = &error["data"]["requiredCapabilities"];
        assert!(required.is_object(), "{error:#}");
        assert!(required.get("sampling").is_some(), "{error:#}");

        let body = with_meta(json!(2), "tools/call", params, claim(json!({"sampling": {}})));
        let r = post_modern(s.port, &body);
        assert_eq!(assert_complete(&r, &json!(2))["content"][0]["text"], json!("sampled"), "stateless {stateless}");
    }
}
