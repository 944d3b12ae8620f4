//! Streamable HTTP under attack: each hostile client of issue 29, replayed against the
//! fixture server (or a server in this process, where the test must drive the server itself),
//! and what the server must do instead of falling over, holding memory, or showing what the
//! caller may not see.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mcp_runtime::Server;
use mcp_tests::client::Client;
use mcp_tests::http::{InProcess, Response, request, send};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const JSON_AND_SSE: &str = "application/json, text/event-stream";
const MIB: u64 = 1024;

fn server(env: &[(&str, &str)]) -> Client {
    Client::spawn_http(SERVER, env, &[])
}

fn headers<'a>(session: Option<&'a str>, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut headers = vec![("Content-Type", "application/json"), ("Accept", JSON_AND_SSE)];
    if let Some(s) = session {
        headers.push(("Mcp-Session-Id", s));
    }
    headers.extend_from_slice(extra);
    headers
}

fn post(port: u16, session: Option<&str>, extra: &[(&str, &str)], body: &Value) -> Response {
    request(port, "POST", "/mcp", &headers(session, extra), body.to_string().as_bytes()).expect("the server answers")
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "attacker", "version": "1"}}})
}

/// A 2025 session (initialize, then `notifications/initialized`), as the caller `extra` says.
fn session_as(port: u16, extra: &[(&str, &str)]) -> String {
    let response = post(port, None, extra, &initialize());
    let (status, id) = (response.status, response.header("mcp-session-id").map(str::to_owned));
    let text = response.text();
    assert_eq!(status, 200, "initialize: {text}");
    let id = id.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(port, Some(&id), extra, &initialized).status, 202);
    id
}

fn session(port: u16) -> String {
    session_as(port, &[])
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
}

/// The status of a `ping` in the session: 200 while it lives, 404 once it ended.
fn ping(port: u16, session: &str) -> u16 {
    let response = post(port, Some(session), &[], &json!({"jsonrpc": "2.0", "id": "p", "method": "ping"}));
    let status = response.status;
    drop(response.text());
    status
}

fn eventually(mut done: impl FnMut() -> bool, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// Whether the server closed the connection within `within` (reads return end of file or a
/// reset; nothing else is sent first but perhaps an error response).
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).expect("a read timeout");
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Row 1: a call's SSE answer that no one reads does not keep its session alive

#[test]
fn a_session_whose_sse_answer_no_one_reads_is_reaped() {
    let c = server(&[("FIXTURE_SESSION_IDLE_MS", "300"), ("FIXTURE_MAX_SESSIONS", "3")]);
    let port = c.http_port().expect("http");
    let dropped = session(port);
    // The handler ends the response before its answer; the client never resumes.
    let mut paused = post(port, Some(&dropped), &[], &call(1, "pause_stream", json!({})));
    assert_eq!(paused.header("content-type"), Some("text/event-stream"));
    while paused.next_event().is_some() {}
    drop(paused);
    // Past the idle limit and the reaper's round (a ping would use the session: none until then).
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(ping(port, &dropped), 404, "the session whose answer was never read is still live");
    // The cap is not held by it: three sessions open, and a fourth still can.
    let live: Vec<String> = (0..4).map(|_| session(port)).collect();
    assert_eq!(ping(port, &live[3]), 200);
}

// ---------------------------------------------------------------------------------------
// Row 2: half-sent headers and stalled bodies

#[test]
fn half_sent_headers_are_closed_within_the_header_timeout() {
    let c = server(&[("FIXTURE_HTTP_HEADER_TIMEOUT_MS", "500")]);
    let port = c.http_port().expect("http");
    let mut stalled: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
            s.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: app").expect("writes");
            s
        })
        .collect();
    let started = Instant::now();
    for s in &mut stalled {
        assert!(closed_within(s, Duration::from_secs(5)), "a connection with half-sent headers is still open");
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    // An idle connection (no request at all) is closed the same way.
    let mut idle = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    assert!(closed_within(&mut idle, Duration::from_secs(5)), "an idle connection is still open");
    // A real client is served meanwhile.
    let s = session(port);
    assert_eq!(ping(port, &s), 200);
}

#[test]
fn a_stalled_body_gets_408_within_the_body_timeout() {
    let c = server(&[("FIXTURE_HTTP_BODY_TIMEOUT_MS", "500")]);
    let port = c.http_port().expect("http");
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: {JSON_AND_SSE}\r\nContent-Length: 4000000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).expect("writes");
    stream.write_all(" ".repeat(100_000).as_bytes()).expect("writes");
    stream.set_read_timeout(Some(Duration::from_secs(5))).expect("a read timeout");
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "a stalled body got {answer:?}");
    assert!(answer.contains("did not arrive within 500 ms"), "{answer}");
}

// ---------------------------------------------------------------------------------------
// Row 4: one client cannot fill the session cap

#[test]
fn one_address_flooding_initialize_keeps_only_its_own_cap() {
    let c = server(&[("FIXTURE_MAX_SESSIONS_PER_CLIENT", "5"), ("FIXTURE_MAX_SESSIONS", "1000")]);
    let port = c.http_port().expect("http");
    let first = session(port);
    let flood: Vec<String> = (0..30).map(|_| session(port)).collect();
    // Its oldest sessions made room for the newest: five live, the rest ended.
    assert_eq!(ping(port, &first), 404, "the flood's oldest session should have been ended");
    let live = flood.iter().filter(|s| ping(port, s) == 200).count();
    assert_eq!(live, 5, "sessions live for one address");
}

#[test]
fn at_the_session_cap_initialize_ends_the_least_recently_used_idle_session() {
    let c = server(&[("FIXTURE_MAX_SESSIONS", "3")]);
    let port = c.http_port().expect("http");
    let a = session(port);
    let b = session(port);
    let busy = session(port);
    // `busy` runs a call: it is never the one ended. `a` is used again: `b` is the least
    // recently used idle session.
    let waiting = send(
        port,
        "POST",
        "/mcp",
        &headers(Some(&busy), &[]),
        call(7, "wait_cancel", json!({})).to_string().as_bytes(),
    )
    .expect("sent");
    assert!(eventually(|| c.stderr().contains("waiting for a cancel"), Duration::from_secs(5)));
    assert_eq!(ping(port, &a), 200);
    let d = session(port);
    assert_eq!(ping(port, &b), 404);
    assert_eq!(ping(port, &a), 200);
    assert_eq!(ping(port, &d), 200);
    assert_eq!(ping(port, &busy), 200);
    drop(waiting);
}

// ---------------------------------------------------------------------------------------
// Row 5: listens hold no call slot; DELETE frees a session's calls

const MODERN: &str = "2026-07-28";

fn modern(id: Value, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn post_modern(port: u16, body: &Value) -> Response {
    let method = body["method"].as_str().unwrap_or_default().to_owned();
    let name = body["params"]["name"].as_str().map(str::to_owned);
    let mut extra = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method.as_str())];
    if let Some(name) = &name {
        extra.push(("Mcp-Name", name.as_str()));
    }
    post(port, None, &extra, body)
}

#[test]
fn open_listen_streams_take_no_call_slot() {
    let c = server(&[("FIXTURE_MAX_IN_FLIGHT", "2")]);
    let port = c.http_port().expect("http");
    let listens: Vec<Response> = (0..4)
        .map(|i| {
            let mut r = post_modern(
                port,
                &modern(json!(i), "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})),
            );
            assert_eq!(r.status, 200);
            assert!(r.next_event().is_some(), "the acknowledgement");
            r
        })
        .collect();
    let r =
        post_modern(port, &modern(json!("sum"), "tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}})));
    let text = r.text();
    assert!(text.contains("\"sum\":3"), "a call while 4 listens are open: {text}");
    drop(listens);
}

#[test]
fn deleting_a_session_cancels_its_calls_and_frees_their_slots() {
    let c = server(&[("FIXTURE_MAX_IN_FLIGHT", "1")]);
    let port = c.http_port().expect("http");
    let hog = session(port);
    let waiting =
        send(port, "POST", "/mcp", &headers(Some(&hog), &[]), call(1, "wait_cancel", json!({})).to_string().as_bytes())
            .expect("sent");
    assert!(eventually(|| c.stderr().contains("waiting for a cancel"), Duration::from_secs(5)));
    let deleted = request(port, "DELETE", "/mcp", &[("Mcp-Session-Id", hog.as_str())], b"").expect("answers");
    assert_eq!(deleted.status, 200);
    let other = session(port);
    let ok = || {
        let r = post(port, Some(&other), &[], &call(2, "add", json!({"a": 2, "b": 2})));
        r.text().contains("\"sum\":4")
    };
    assert!(eventually(ok, Duration::from_secs(3)), "the deleted session's call still holds the only slot");
    drop(waiting);
}

// ---------------------------------------------------------------------------------------
// Rows 10, 13, 14: strict parsing of Last-Event-ID, the version header, Host and Origin

#[test]
fn malformed_or_overflowing_last_event_ids_are_400() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let s = session(port);
    for last in ["1-18446744073709551615", "+1-+0", "1-", "x-1", "1-2-3", "18446744073709551616-0"] {
        let r = request(
            port,
            "GET",
            "/mcp",
            &[("Accept", "text/event-stream"), ("Mcp-Session-Id", s.as_str()), ("Last-Event-ID", last)],
            b"",
        )
        .expect("answers");
        assert_eq!(r.status, 400, "Last-Event-ID {last:?}");
        assert!(r.text().contains("Last-Event-ID"));
    }
    assert_eq!(ping(port, &s), 200, "the server serves on");
}

#[test]
fn get_and_delete_check_the_version_header_as_post_does() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let s = session(port);
    for method in ["GET", "DELETE"] {
        let r = request(
            port,
            method,
            "/mcp",
            &[("Accept", "text/event-stream"), ("Mcp-Session-Id", s.as_str()), ("MCP-Protocol-Version", "1999-01-01")],
            b"",
        )
        .expect("answers");
        assert_eq!(r.status, 400, "{method} with an unknown version");
        assert!(r.text().contains("unsupported MCP-Protocol-Version \\\"1999-01-01\\\""));
    }
    assert_eq!(ping(port, &s), 200, "the refused DELETE ended nothing");
}

#[test]
fn a_host_or_origin_with_text_after_the_ipv6_bracket_is_403() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    for (name, value) in [("Host", "[::1]evil.com"), ("Host", "[::1]:80evil"), ("Origin", "http://[::1]evil.com")] {
        let r = post(port, None, &[(name, value)], &initialize());
        assert_eq!(r.status, 403, "{name}: {value}");
    }
    let fine = post(port, None, &[("Host", "[::1]:8080"), ("Origin", "http://[::1]:3000")], &initialize());
    assert_eq!(fine.status, 200);
}

#[test]
fn refused_hosts_are_logged_once_a_minute_per_source() {
    let c = server(&[]);
    let port = c.http_port().expect("http");
    for _ in 0..50 {
        assert_eq!(post(port, None, &[("Host", "evil.example")], &initialize()).status, 403);
    }
    let warnings = || c.stderr().matches("refused a request for a host that is not allowed").count();
    assert!(eventually(|| warnings() >= 1, Duration::from_secs(2)));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(warnings(), 1, "stderr:\n{}", c.stderr());
}

// ---------------------------------------------------------------------------------------
// Row 6: a notification storm over detached sessions (in process: the test changes lists)

/// `VmRSS` of this process, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS")
}

/// Memory figures of this process must not see another test's allocations.
static MEASURED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Added and removed to change the tool list.
#[mcp_runtime::tool]
fn churn() -> String {
    "churn".into()
}

#[test]
fn a_notification_storm_over_a_thousand_detached_sessions_stays_small() {
    let _measured = MEASURED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let server: Server = mcp_tests::fixture::builder(false).max_sessions_per_client(10_000).build().expect("builds");
    let serving = InProcess::serve(server.clone());
    let port = serving.port;
    let count: usize = std::env::var("STORM_SESSIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let sessions: Vec<String> = (0..count).map(|_| session(port)).collect();
    let before = rss_kib();
    // Paced, so that each session's forwarding task sees each change (they would merge if
    // they came faster than it reads them).
    for _ in 0..750 {
        server.add_tool(churn).expect("added");
        std::thread::sleep(Duration::from_millis(2));
        server.remove_tool("churn");
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::sleep(Duration::from_secs(1));
    let after = rss_kib();
    eprintln!("storm: VmRSS {before} KiB before, {after} KiB after");
    assert!(
        after.saturating_sub(before) < 50 * MIB,
        "1,500 list changes over 1,000 detached sessions took this process from {before} KiB to {after} KiB"
    );
    // Each session still hears of the change when it opens its stream: one pending per kind.
    let mut stream = request(
        port,
        "GET",
        "/mcp",
        &[("Accept", "text/event-stream"), ("Mcp-Session-Id", sessions[count / 2].as_str())],
        b"",
    )
    .expect("answers");
    assert_eq!(stream.status, 200);
    let (_, data) = stream.next_event().expect("a pending notification");
    assert_eq!(
        serde_json::from_str::<Value>(&data).expect("JSON")["method"],
        json!("notifications/tools/list_changed")
    );
    drop(stream);
}

// ---------------------------------------------------------------------------------------
// Row 3: scopes hide what they guard in lists, completion and subscriptions, in both eras

/// The caller `X-Test-Subject` names, with `X-Test-Scopes` (the fixture's principal
/// middleware, `FIXTURE_PRINCIPAL_HEADER=1`).
fn as_caller<'a>(subject: &'a str, scopes: &'a str) -> [(&'a str, &'a str); 2] {
    [("X-Test-Subject", subject), ("X-Test-Scopes", scopes)]
}

/// One request's answer, from a JSON body or the SSE event that carries it.
fn answer_of(mut response: Response) -> Value {
    if response.header("content-type") == Some("text/event-stream") {
        while let Some((_, data)) = response.next_event() {
            let message: Value = serde_json::from_str(&data).expect("JSON");
            if message.get("id").is_some() {
                return message;
            }
        }
        panic!("the stream ended without an answer");
    }
    serde_json::from_str(&response.text()).expect("a JSON answer")
}

/// What a caller sees of the secret template and prompt, in one era: the resources listed,
/// the templates, the prompts, the completions of both, and a subscription.
fn what_a_caller_sees(port: u16, caller: &[(&str, &str)], modern_era: bool) -> Value {
    let session = (!modern_era).then(|| session_as(port, caller));
    let ask = |id: u64, method: &str, params: Value| -> Value {
        let answer = if modern_era {
            let body = modern(json!(id), method, params);
            let mut extra = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", method)];
            extra.extend_from_slice(caller);
            answer_of(post(port, None, &extra, &body))
        } else {
            let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            answer_of(post(port, session.as_deref(), caller, &body))
        };
        // What differs between callers or calls, made comparable.
        let mut shown = answer
            .get("result")
            .cloned()
            .unwrap_or_else(|| json!({"error": answer["error"]["code"], "reason": answer["error"]["data"]["reason"]}));
        if let Some(map) = shown.as_object_mut() {
            for key in ["_meta", "resultType", "ttlMs", "cacheScope"] {
                map.remove(key);
            }
        }
        shown
    };
    let complete = |id, reference: Value| {
        ask(id, "completion/complete", json!({"ref": reference, "argument": {"name": "name", "value": "a"}}))
    };
    let subscription = if modern_era {
        let body = modern(
            json!(9),
            "subscriptions/listen",
            json!({"notifications": {"resourceSubscriptions": ["secret://alpha"]}}),
        );
        let mut extra = vec![("MCP-Protocol-Version", MODERN), ("Mcp-Method", "subscriptions/listen")];
        extra.extend_from_slice(caller);
        let mut stream = post(port, None, &extra, &body);
        let (_, ack) = stream.next_event().expect("the acknowledgement");
        let ack: Value = serde_json::from_str(&ack).expect("JSON");
        ack["params"]["notifications"].clone()
    } else {
        ask(9, "resources/subscribe", json!({"uri": "secret://alpha"}))
    };
    json!({
        "resources": ask(1, "resources/list", json!({})),
        "templates": ask(2, "resources/templates/list", json!({})),
        "prompts": ask(3, "prompts/list", json!({})),
        "template completion": complete(4, json!({"type": "ref/resource", "uri": "secret://{name}"})),
        "prompt completion": complete(5, json!({"type": "ref/prompt", "name": "secret_brief"})),
        "subscription": subscription,
    })
}

#[test]
fn scopes_hide_what_they_guard_in_lists_completion_and_subscriptions() {
    let c = server(&[("FIXTURE_PRINCIPAL_HEADER", "1")]);
    let port = c.http_port().expect("http");
    let refused = json!({"error": -32005, "reason": "insufficient_scope"});
    for modern_era in [false, true] {
        let outsider = what_a_caller_sees(port, &as_caller("eve", "notes:read"), modern_era);
        let ack = if modern_era { json!({}) } else { refused.clone() };
        assert_eq!(
            outsider,
            json!({
                // The chart's view and the fixture's skills (tests/skills) need no scope.
                "resources": {"resources": [
                    {"uri": "ui://chart/view.html", "name": "chart_view", "description": "The chart view: one HTML page that draws the values of the `chart` call it is shown for. It loads nothing remote.", "mimeType": "text/html;profile=mcp-app", "_meta": {"ui": {"prefersBorder": true}}},
                    {"uri": "skill://code-review/SKILL.md", "name": "code-review", "description": "Review a change for correctness, tests and documentation, in that order.", "mimeType": "text/markdown", "size": 203},
                    {"uri": "skill://release-notes/SKILL.md", "name": "release-notes", "description": "Write the release notes of a version from the changelog's Unreleased section.", "mimeType": "text/markdown", "size": 242},
                ]},
                "templates": {"resourceTemplates": []},
                "prompts": {"prompts": []},
                "template completion": refused,
                "prompt completion": refused,
                "subscription": ack,
            }),
            "a caller without secret:read (modern era: {modern_era})"
        );
        let insider = what_a_caller_sees(port, &as_caller("alice", "secret:read"), modern_era);
        let names: Vec<&str> = insider["resources"]["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .filter_map(|r| r["uri"].as_str())
            .collect();
        let skills = ["skill://code-review/SKILL.md", "skill://release-notes/SKILL.md"];
        let secrets = ["secret://alpha", "secret://beta", "secret://gamma"];
        assert_eq!(names, [secrets.as_slice(), &["ui://chart/view.html"], &skills].concat(), "{insider}");
        assert_eq!(insider["templates"]["resourceTemplates"][0]["uriTemplate"], "secret://{name}", "{insider}");
        assert_eq!(insider["prompts"]["prompts"][0]["name"], "secret_brief", "{insider}");
        let values = json!({"completion": {"values": ["alpha"], "total": 1, "hasMore": false}});
        assert_eq!(insider["template completion"], values, "{insider}");
        assert_eq!(insider["prompt completion"], values, "{insider}");
        let subscribed = if modern_era { json!({"resourceSubscriptions": ["secret://alpha"]}) } else { json!({}) };
        assert_eq!(insider["subscription"], subscribed, "{insider}");
    }
}

// ---------------------------------------------------------------------------------------
// Row 8: SSE answers kept for replay are capped in bytes

#[test]
fn sse_answers_kept_for_replay_stay_under_their_byte_caps() {
    // Not a measurement of this process, but 60 MiB read here would skew one.
    let _measured = MEASURED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let c = server(&[]);
    let port = c.http_port().expect("http");
    let s = session(port);
    let blob = |id: u64, bytes: u32| {
        let mut body = call(id, "blob", json!({"bytes": bytes, "progress": true}));
        body["params"]["_meta"] = json!({"progressToken": id});
        let mut response = post(port, Some(&s), &[], &body);
        assert_eq!(response.header("content-type"), Some("text/event-stream"));
        let mut first = None;
        let mut got = 0;
        while let Some((id, data)) = response.next_event() {
            first = first.or(id);
            got += data.len();
        }
        (first.expect("events have ids"), got)
    };
    let resume = |last: &str| {
        let headers = [("Accept", "text/event-stream"), ("Mcp-Session-Id", s.as_str()), ("Last-Event-ID", last)];
        let mut response = request(port, "GET", "/mcp", &headers, b"").expect("answers");
        let status = response.status;
        let mut replayed = 0;
        if status == 200 {
            while let Some((_, data)) = response.next_event() {
                replayed += data.len();
            }
        }
        (status, replayed)
    };
    // A small answer is kept: resuming after its first event replays it.
    let (first, _) = blob(1, 1000);
    let (status, replayed) = resume(&first);
    assert_eq!(status, 200);
    assert!(replayed > 1000, "the small answer is replayed ({replayed} bytes)");
    // Warm-up (the allocator keeps a few freed 3 MiB buffers per worker thread for reuse:
    // a fixed cost, reached after three answers), then 20 answers of 3 MiB each, read whole.
    for id in 100..104 {
        blob(id, 3 << 20);
    }
    let before = c.status_kib("VmRSS").expect("VmRSS");
    let mut firsts = Vec::new();
    for id in 3..23 {
        let (first, got) = blob(id, 3 << 20);
        assert!(got > 3 << 20, "answer {id} arrived whole ({got} bytes)");
        firsts.push(first);
    }
    let after = c.status_kib("VmRSS").expect("VmRSS");
    eprintln!("20 answers of 3 MiB: VmRSS {before} KiB before, {after} KiB after");
    assert!(
        after.saturating_sub(before) < 16 * MIB,
        "20 replayable 3 MiB answers took the server from {before} KiB to {after} KiB"
    );
    // Past the per-stream cap, an answer sent is let go: resuming before it is 404.
    assert_eq!(resume(&firsts[0]).0, 404);
}

// ---------------------------------------------------------------------------------------
// Row 9: a caller's unanswered consent asks are capped

/// A 2026-07-28 `delete_item` call, answering its consent ask when `answer` has a state.
fn delete_item(id: u64, answer: Option<&str>) -> String {
    let mut params = json!({"name": "delete_item", "arguments": {"id": "kept"}, "_meta": {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}});
    if let Some(state) = answer {
        params["requestState"] = json!(state);
        params["inputResponses"] = json!({"consent": {"action": "accept", "content": {"confirm": true}}});
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

/// The `requestState` of a consent ask, or what came instead.
fn asked(out: &[String]) -> Result<String, Value> {
    let answer: Value = serde_json::from_str(out.last().expect("an answer")).expect("JSON");
    match answer["result"]["requestState"].as_str() {
        Some(state) if answer["result"]["resultType"] == "input_required" => Ok(state.to_owned()),
        _ => Err(answer),
    }
}

#[test]
fn thirty_thousand_unanswered_consent_asks_hold_one_callers_cap_of_records() {
    let _measured = MEASURED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    runtime.block_on(async {
        let server = mcp_tests::fixture::builder(false).build().expect("builds");
        let mut conn = server.connect();
        let put = json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "put_item",
            "arguments": {"id": "kept"}, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}}});
        conn.send(&put.to_string()).await;
        let first = asked(&conn.send(&delete_item(1, None)).await).expect("asked");
        let before = rss_kib();
        let mut last = first.clone();
        for id in 2..30_001 {
            last = asked(&conn.send(&delete_item(id, None)).await).expect("asked");
        }
        let after = rss_kib();
        eprintln!("30,000 consent asks: VmRSS {before} KiB before, {after} KiB after");
        let records = server.state().list("consent").await.expect("the store answers");
        assert_eq!(
            records.len(),
            64 + 1,
            "the records of one caller (and their list), first ones: {:?}",
            &records[..records.len().min(3)]
        );
        assert!(after.saturating_sub(before) < 32 * MIB, "{before} KiB before, {after} KiB after");
        // The oldest ask was let go: answering it asks again. The newest is still good.
        let again = asked(&conn.send(&delete_item(30_001, Some(&first))).await);
        assert!(again.is_ok(), "the first ask's record outlived the cap: {again:?}");
        let done = conn.send(&delete_item(30_002, Some(&last))).await;
        let done: Value = serde_json::from_str(done.last().expect("an answer")).expect("JSON");
        assert_eq!(done["result"]["structuredContent"], json!({"deleted": "kept"}), "{done}");
    });
}

// ---------------------------------------------------------------------------------------
// Rows 7, 11, 12: the JWKS fetch, anonymous tokens, an endless JWKS

mod jwks {
    use super::*;
    use mcp_runtime::{Authorization, JwtValidator};
    use mcp_tests::oauth::{ISSUER, JwksServer, TestKey, claims, jwks, token};

    const AUDIENCE: &str = "https://mcp.example.test/mcp";

    /// The fixture behind a `JwtValidator` of `idp`, refreshing at most every 100 ms.
    fn served(idp: &JwksServer) -> InProcess {
        let jwt = JwtValidator::new(idp.url(), ISSUER, AUDIENCE).min_refresh(Duration::from_millis(100));
        let server = mcp_tests::fixture::builder(false)
            .stateless_http(true)
            .authorization(Authorization::jwt(jwt))
            .build()
            .expect("builds");
        InProcess::serve(server)
    }

    /// The status of a `ping` with `token`.
    fn ping_with(port: u16, token: &str) -> u16 {
        let bearer = format!("Bearer {token}");
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "x"}}});
        let response = post(port, None, &[("Authorization", bearer.as_str())], &body);
        let status = response.status;
        drop(response.text());
        status
    }

    #[test]
    fn a_token_naming_an_unknown_key_delays_no_one_else_while_the_jwks_host_is_slow() {
        let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
        let server = served(&idp);
        let valid = token(TestKey::Rsa1, &claims(AUDIENCE, ""));
        assert_eq!(ping_with(server.port, &valid), 200);
        std::thread::sleep(Duration::from_millis(150));
        idp.set_delay(Duration::from_secs(3));
        let (fetches, answered) = (idp.fetches(), idp.answered());
        // An unknown kid: the server fetches the JWKS again, and the host takes its time.
        let unknown = token(TestKey::Rsa2, &claims(AUDIENCE, ""));
        let port = server.port;
        let stranger = std::thread::spawn(move || ping_with(port, &unknown));
        assert!(eventually(|| idp.fetches() > fetches, Duration::from_secs(5)), "the JWKS was fetched again");
        // While that fetch waits on the host, valid tokens are served from the keys held.
        for _ in 0..5 {
            assert_eq!(ping_with(server.port, &valid), 200);
        }
        assert_eq!(idp.answered(), answered, "the valid requests waited for the slow fetch");
        assert_eq!(stranger.join().expect("joins"), 401);
    }

    #[test]
    fn a_token_naming_neither_subject_nor_client_is_401() {
        let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
        let server = served(&idp);
        let mut anonymous = claims(AUDIENCE, "");
        let map = anonymous.as_object_mut().expect("claims");
        map.remove("sub");
        map.remove("client_id");
        let bearer = format!("Bearer {}", token(TestKey::Rsa1, &anonymous));
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let response = post(server.port, None, &[("Authorization", bearer.as_str())], &body);
        assert_eq!(response.status, 401);
        assert_eq!(
            response.header("www-authenticate"),
            Some(
                "Bearer resource_metadata=\"https://mcp.example.test/.well-known/oauth-protected-resource/mcp\", error=\"invalid_token\", error_description=\"The access token names neither a subject nor a client\""
            )
        );
        // With a subject alone, or a client alone, it is served.
        for keep in ["sub", "client_id"] {
            let mut one = claims(AUDIENCE, "");
            let other = if keep == "sub" { "client_id" } else { "sub" };
            one.as_object_mut().expect("claims").remove(other);
            assert_eq!(ping_with(server.port, &token(TestKey::Rsa1, &one)), 200, "with only {keep}");
        }
    }

    #[test]
    fn an_endless_jwks_is_read_no_further_than_its_cap() {
        let _measured = MEASURED.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let idp = JwksServer::start(jwks(&[TestKey::Rsa1]));
        idp.set_padding(256 << 20);
        let server = served(&idp);
        let before = rss_kib();
        assert_eq!(ping_with(server.port, &token(TestKey::Rsa1, &claims(AUDIENCE, ""))), 401);
        assert!(eventually(|| idp.answered() == 1, Duration::from_secs(10)), "the endpoint's answer ended");
        let after = rss_kib();
        eprintln!("a 256 MiB JWKS: VmRSS {before} KiB before, {after} KiB after; {} bytes sent", idp.written());
        assert!(idp.written() < 16 << 20, "the server read {} bytes of the JWKS", idp.written());
        assert!(after.saturating_sub(before) < 16 * MIB, "{before} KiB before, {after} KiB after");
    }
}
