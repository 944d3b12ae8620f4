//! Streamable HTTP, cell by cell: each rung of the validation ladder with its exact status,
//! JSON-RPC code and id; sessions (minted, required, unknown, ended); the stateless
//! posture; JSON or SSE answers; notifications and cancellation over HTTP.

use mcp_tests::client::Client;
use mcp_tests::http::{Response, request};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const JSON_AND_SSE: &str = "application/json, text/event-stream";

fn server(args: &[&str]) -> Client {
    Client::spawn_http(SERVER, &[], args)
}

fn post(port: u16, headers: &[(&str, &str)], body: &str) -> Response {
    request(port, "POST", "/mcp", headers, body.as_bytes()).expect("the server answers")
}

/// A POST with the usual headers (and the session, when given).
fn post_json(port: u16, session: Option<&str>, body: &Value) -> Response {
    let mut headers = vec![("Content-Type", "application/json"), ("Accept", JSON_AND_SSE)];
    if let Some(s) = session {
        headers.push(("Mcp-Session-Id", s));
    }
    post(port, &headers, &body.to_string())
}

/// A `wait_cancel` call with id `"w"` on its own thread (it answers only once cancelled, if
/// ever): the status and body of its response.
fn waiting_call(port: u16, sid: &str) -> std::thread::JoinHandle<(u16, String)> {
    let sid = sid.to_owned();
    std::thread::spawn(move || {
        let body = json!({"jsonrpc": "2.0", "id": "w", "method": "tools/call", "params": {"name": "wait_cancel", "arguments": {}}});
        let response = post_json(port, Some(&sid), &body);
        (response.status, response.text())
    })
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "http-test", "version": "1"}}})
}

/// A session: initialize, then `notifications/initialized`; its id.
fn session(port: u16) -> String {
    let response = post_json(port, None, &initialize());
    assert_eq!(response.status, 200);
    let id = response.header("mcp-session-id").expect("a session id").to_owned();
    assert!(response.text().contains("\"protocolVersion\":\"2025-11-25\""));
    let accepted = post_json(port, Some(&id), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(accepted.status, 202);
    id
}

/// Status, content type and JSON body of a response.
fn parts(response: Response) -> (u16, Option<String>, Value) {
    let status = response.status;
    let content_type = response.header("content-type").map(str::to_owned);
    let text = response.text();
    let body = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
    (status, content_type, body)
}

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A refusal that answers no JSON-RPC request: no `id` member (MCP's schema has `id?`).
fn unaddressed(code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "error": {"code": code, "message": message}})
}

#[test]
fn initialize_mints_a_visible_ascii_session_id_and_answers_json() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let response = post_json(port, None, &initialize());
    assert_eq!(response.status, 200);
    let id = response.header("mcp-session-id").expect("a session id").to_owned();
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| (0x21..=0x7e).contains(&b)), "{id}");
    let (_, content_type, body) = parts(response);
    assert_eq!(content_type.as_deref(), Some("application/json"));
    assert_eq!(body["id"], json!(0));
    assert_eq!(body["result"]["serverInfo"]["name"], json!("fixture-server"));
    // Another initialize is another session.
    let other = post_json(port, None, &initialize());
    assert_ne!(other.header("mcp-session-id"), Some(id.as_str()));
}

#[test]
fn the_ladder_answers_each_rung_with_its_status_code_and_id() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = session(port);
    let ping = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    let json_headers = |extra: &[(&'static str, &'static str)]| {
        let mut h = vec![("Content-Type", "application/json"), ("Accept", JSON_AND_SSE)];
        h.extend_from_slice(extra);
        h
    };

    // Host and Origin (DNS rebinding): 403.
    let (status, _, body) = parts(post(port, &json_headers(&[("Host", "evil.example.com")]), ping));
    assert_eq!((status, body), (403, unaddressed(-32600, "Forbidden: Host not allowed")));
    let (status, _, body) = parts(post(port, &json_headers(&[("Origin", "http://evil.example.com")]), ping));
    assert_eq!((status, body), (403, unaddressed(-32600, "Forbidden: Origin not allowed")));
    // A loopback origin on any port is fine.
    let mut h = json_headers(&[("Origin", "http://localhost:5173")]);
    h.push(("Mcp-Session-Id", &sid));
    assert_eq!(post(port, &h, ping).status, 200);

    // Method: 405 with Allow.
    let put = request(port, "PUT", "/mcp", &json_headers(&[]), ping.as_bytes()).expect("answers");
    assert_eq!(put.status, 405);
    assert_eq!(put.header("allow"), Some("GET, POST, DELETE"));

    // Accept without both types: 406. Content-Type not JSON: 415.
    let only_json = [("Content-Type", "application/json"), ("Accept", "application/json")];
    assert_eq!(post(port, &only_json, ping).status, 406);
    let text = [("Content-Type", "text/plain"), ("Accept", JSON_AND_SSE)];
    assert_eq!(post(port, &text, ping).status, 415);

    // Body over the cap (4 MiB): 413.
    let huge = format!(r#"{{"jsonrpc":"2.0","id":8,"method":"ping","params":{{"pad":"{}"}}}}"#, "x".repeat(5 << 20));
    assert_eq!(post(port, &json_headers(&[]), &huge).status, 413);

    // Not JSON: 400, -32700, id null. Not a JSON-RPC message: 400, -32600, with the id when readable.
    let (status, _, body) = parts(post(port, &json_headers(&[]), "{nope"));
    assert_eq!((status, body), (400, rpc_error(&Value::Null, -32700, "Parse error")));
    let (status, _, body) = parts(post(port, &json_headers(&[]), r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#));
    assert_eq!((status, body), (400, rpc_error(&json!(9), -32600, "Invalid request: `jsonrpc` must be \"2.0\"")));
    let (status, _, body) = parts(post(port, &json_headers(&[]), r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#));
    assert_eq!(
        (status, body),
        (
            400,
            rpc_error(
                &Value::Null,
                -32600,
                "Invalid request: JSON-RPC batches are not supported; send one message per line"
            )
        )
    );

    // Session: missing 400, unknown 404, each with the request's id.
    let (status, _, body) = parts(post(port, &json_headers(&[]), ping));
    assert_eq!(
        (status, body),
        (400, rpc_error(&json!(7), -32600, "Bad request: Mcp-Session-Id header is required (send initialize first)"))
    );
    let (status, _, body) = parts(post(port, &json_headers(&[("Mcp-Session-Id", "NOPE")]), ping));
    assert_eq!(
        (status, body),
        (
            404,
            rpc_error(
                &json!(7),
                -32001,
                "Session not found: it ended or never existed; send initialize to start a new one"
            )
        )
    );

    // An unsupported protocol version header: 400 with the id.
    let mut h = json_headers(&[("MCP-Protocol-Version", "1999-01-01")]);
    h.push(("Mcp-Session-Id", &sid));
    let (status, _, body) = parts(post(port, &h, ping));
    assert_eq!(status, 400);
    assert_eq!(body["id"], json!(7));
    assert_eq!(body["error"]["code"], json!(-32600));

    // Past the ladder: a known version, a ping, a method that does not exist (a JSON-RPC
    // error, HTTP 200), a notification (202).
    let mut h = json_headers(&[("MCP-Protocol-Version", "2025-11-25")]);
    h.push(("Mcp-Session-Id", &sid));
    let (status, content_type, body) = parts(post(port, &h, ping));
    assert_eq!(
        (status, content_type.as_deref(), body),
        (200, Some("application/json"), json!({"jsonrpc": "2.0", "id": 7, "result": {}}))
    );
    let (status, _, body) =
        parts(post_json(port, Some(&sid), &json!({"jsonrpc": "2.0", "id": 10, "method": "nope/nope"})));
    assert_eq!((status, body), (200, rpc_error(&json!(10), -32601, "Method not found: nope/nope")));
    let accepted = post_json(port, Some(&sid), &json!({"jsonrpc": "2.0", "method": "notifications/whatever"}));
    assert_eq!((accepted.status, accepted.text()), (202, String::new()));
}

#[test]
fn tool_outcomes_are_http_200_envelopes() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = session(port);
    let call = |id: i64, name: &str, args: Value| {
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}});
        parts(post_json(port, Some(&sid), &body))
    };
    let (status, _, body) = call(1, "add", json!({"a": 2, "b": 3}));
    assert_eq!((status, &body["result"]["structuredContent"]), (200, &json!({"sum": 5})));
    for (id, name, args, reason) in [
        (2, "nope", json!({}), "unknown_tool"),
        (3, "add", json!({"a": "x", "b": 1}), "invalid_arguments"),
        (4, "fetch_items", json!({"ids": ["a"], "mode": "queue"}), "queue_full"),
        (5, "boom", json!({}), "internal_error"),
    ] {
        let (status, _, body) = call(id, name, args);
        assert_eq!(status, 200, "{name}");
        assert_eq!(body["id"], json!(id));
        assert_eq!(body["result"]["isError"], json!(true), "{name}: {body}");
        let text = body["result"]["content"][0]["text"].as_str().expect("text");
        assert!(text.starts_with("Error: ") && text.contains(&format!("reason {reason}")), "{name}: {text}");
    }
}

#[test]
fn notifications_before_the_answer_make_it_an_sse_stream_with_ids() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = session(port);
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "work", "arguments": {"steps": 2}, "_meta": {"progressToken": "p"}}});
    let mut response = post_json(port, Some(&sid), &body);
    assert_eq!(response.status, 200);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    // The priming event first: an id to resume from, empty data.
    let (priming, data) = response.next_event().expect("a priming event");
    assert_eq!(data, "");
    let stream = priming.expect("an id").strip_suffix("-0").expect("seq 0").to_owned();
    let mut seqs = Vec::new();
    let mut messages = Vec::new();
    while let Some((id, data)) = response.next_event() {
        let id = id.expect("every event has an id");
        let (s, seq) = id.split_once('-').expect("<stream>-<seq>");
        assert_eq!(s, stream);
        seqs.push(seq.parse::<u64>().expect("a number"));
        messages.push(serde_json::from_str::<Value>(&data).expect("JSON"));
    }
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let progress: Vec<&Value> = messages.iter().filter(|m| m["method"] == "notifications/progress").collect();
    assert_eq!(progress.len(), 2);
    assert_eq!(progress[0]["params"]["progressToken"], json!("p"));
    let last = messages.last().expect("messages");
    assert_eq!(last["id"], json!(3));
    assert_eq!(last["result"]["content"][0]["text"], json!("done 2"));
}

#[test]
fn a_cancelled_call_ends_its_response_without_an_answer() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = session(port);
    let waiting = waiting_call(port, &sid);
    assert!(c.wait_for_stderr("waiting for a cancel", 1), "the call never started:\n{}", c.stderr());
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "w"}});
    assert_eq!(post_json(port, Some(&sid), &cancel).status, 202);
    let (status, text) = waiting.join().expect("the POST returns");
    assert_eq!(status, 200);
    assert!(!text.contains("\"id\":\"w\""), "a cancelled call is never answered: {text}");
}

#[test]
fn delete_ends_the_session() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = session(port);
    let deleted = request(port, "DELETE", "/mcp", &[("Mcp-Session-Id", &sid)], b"").expect("answers");
    assert_eq!(deleted.status, 200);
    let (status, _, body) = parts(post_json(port, Some(&sid), &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})));
    assert_eq!(status, 404);
    assert_eq!(body["id"], json!(1));
    let again = request(port, "DELETE", "/mcp", &[("Mcp-Session-Id", &sid)], b"").expect("answers");
    assert_eq!(again.status, 404);
    // GET needs a session too.
    let get = request(port, "GET", "/mcp", &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &sid)], b"")
        .expect("answers");
    assert_eq!(get.status, 404);
    let get = request(port, "GET", "/mcp", &[("Accept", "application/json")], b"").expect("answers");
    assert_eq!(get.status, 406);
}

#[test]
fn stateless_serves_each_post_alone() {
    let c = server(&["--stateless"]);
    let port = c.http_port().expect("http");
    // No initialize: a call is served; no session id is minted.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 1, "b": 1}}});
    let response = post_json(port, None, &body);
    assert_eq!(response.header("mcp-session-id"), None);
    let (status, _, body) = parts(response);
    assert_eq!((status, &body["result"]["structuredContent"]), (200, &json!({"sum": 2})));
    let init = post_json(port, None, &initialize());
    assert_eq!((init.status, init.header("mcp-session-id")), (200, None));
    // GET and DELETE are 405.
    for method in ["GET", "DELETE"] {
        let r = request(port, method, "/mcp", &[("Accept", "text/event-stream")], b"").expect("answers");
        assert_eq!((method, r.status, r.header("allow")), (method, 405, Some("POST")));
    }
}

#[test]
fn sigterm_lets_a_call_in_progress_finish() {
    // One call at a time: while the slow call runs, every other call is refused as busy. That
    // refusal is the event that says the slow call is in progress, before SIGTERM is sent.
    let slow_call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "sleep_ms", "arguments": {"ms": 900}}});
    let probe = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
    // A machine so loaded that the probe is not answered within the 900 ms the call takes
    // misses the window: that attempt proves nothing, and is made again.
    for _attempt in 0..3 {
        let mut c = Client::spawn_http(SERVER, &[("FIXTURE_MAX_IN_FLIGHT", "1")], &[]);
        let port = c.http_port().expect("http");
        let sid = session(port);
        let slow = {
            let (sid, slow_call) = (sid.clone(), slow_call.clone());
            std::thread::spawn(move || parts(post_json(port, Some(&sid), &slow_call)))
        };
        let in_progress = loop {
            let (_, _, answer) = parts(post_json(port, Some(&sid), &probe));
            let text = answer["result"]["content"][0]["text"].as_str().expect("a text").to_owned();
            if text.starts_with("Error: Server busy") {
                break !slow.is_finished();
            }
            assert_eq!(text, "x", "{answer}");
            if slow.is_finished() {
                break false;
            }
        };
        if !in_progress {
            continue;
        }
        c.close_stdin();
        let (status, _, body) = slow.join().expect("answers");
        assert_eq!((status, &body["result"]["content"][0]["text"]), (200, &json!("slept 900")));
        assert!(c.wait_exit(std::time::Duration::from_secs(10)).is_some(), "the server exits after the call");
        return;
    }
    panic!("in three attempts, the slow call was never seen in progress");
}

#[test]
fn a_paused_stream_is_resumed_with_last_event_id_and_replayed_after_its_answer() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let sid = session(port);
    let body =
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "pause_stream", "arguments": {}}});
    let mut response = post_json(port, Some(&sid), &body);
    assert_eq!(response.header("content-type"), Some("text/event-stream"));
    let (priming, data) = response.next_event().expect("the priming event");
    assert_eq!(data, "");
    let priming = priming.expect("an id");
    // The handler paused the stream: the response ends without the answer.
    assert_eq!(response.next_event(), None);
    let resume = |last: &str| {
        let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", sid.as_str()), ("Last-Event-ID", last)];
        let mut r = request(port, "GET", "/mcp", &headers, b"").expect("answers");
        assert_eq!(r.status, 200);
        let mut events = Vec::new();
        while let Some(event) = r.next_event() {
            events.push(event);
        }
        events
    };
    let events = resume(&priming);
    assert_eq!(events.len(), 1, "{events:?}");
    let answer: Value = serde_json::from_str(&events[0].1).expect("JSON");
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "resumed"}]}})
    );
    // A client that lost that connection too resumes again and gets the same answer.
    assert_eq!(resume(&priming), events);
    // Past the answer, there is nothing more, and the stream ends at once.
    let asked = std::time::Instant::now();
    assert_eq!(resume(events[0].0.as_deref().expect("an id")), []);
    assert!(asked.elapsed() < std::time::Duration::from_secs(5), "a complete stream is not held open");
}

#[test]
fn a_refused_initialize_mints_no_session() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}});
    let response = post_json(port, None, &bad);
    assert_eq!(response.header("mcp-session-id"), None);
    let (status, _, body) = parts(response);
    assert_eq!(
        (status, body),
        (200, rpc_error(&json!(1), -32602, "Invalid params: initialize needs `protocolVersion` (a string)"))
    );
}

#[test]
fn calls_past_max_in_flight_are_refused_as_busy() {
    let c = Client::spawn_http(SERVER, &[("FIXTURE_MAX_IN_FLIGHT", "1")], &[]);
    let port = c.http_port().expect("http");
    let sid = session(port);
    let waiting = waiting_call(port, &sid);
    assert!(c.wait_for_stderr("waiting for a cancel", 1), "the call never started:\n{}", c.stderr());
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
    let (status, _, body) = parts(post_json(port, Some(&sid), &body));
    assert_eq!(status, 200);
    let text = body["result"]["content"][0]["text"].as_str().expect("an envelope");
    assert!(text.starts_with("Error: Server busy: 1 calls are already running."), "{text}");
    assert!(text.contains("reason server_busy · retryable"), "{text}");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "w"}});
    assert_eq!(post_json(port, Some(&sid), &cancel).status, 202);
    assert_eq!(waiting.join().expect("returns").0, 200);
    // The slot is free again.
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
    let (_, _, body) = parts(post_json(port, Some(&sid), &body));
    assert_eq!(body["result"]["content"][0]["text"], json!("x"));
}
