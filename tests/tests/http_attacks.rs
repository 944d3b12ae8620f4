//! Streamable HTTP under attack: each hostile client of issue 29, replayed against the
//! fixture server (or a server in this process, where the test must drive the server itself),
//! and what the server must do instead of falling over, holding memory, or showing what the
//! caller may not see.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mcp_runtime::Server;
use mcp_tests::client::Client;
use mcp_tests::http::{Response, request, send};
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
    let serving = server.clone();
    let (port_tx, port_rx) = std::sync::mpsc::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("a runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds");
            port_tx.send(listener.local_addr().expect("an address").port()).expect("sent");
            let _ = serving
                .serve_http_on(listener, async move {
                    let _ = stopped.await;
                })
                .await;
        });
    });
    let port = port_rx.recv_timeout(Duration::from_secs(10)).expect("listens");
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
    let _ = stop.send(());
    thread.join().expect("the server thread ends");
}
