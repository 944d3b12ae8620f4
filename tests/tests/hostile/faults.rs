//! Faults, against `fixture-server` over real pipes and sockets: handlers that panic or never
//! return while other calls run, clients that go away in the middle of an answer, and the
//! process told to stop with calls in flight. In every case nothing already answered is
//! lost, nothing half-written reaches a client, and the server keeps serving (or stops
//! cleanly). A state store that goes away is `state::a_store_that_goes_away_*`.
//!
//! No test here asserts a speed: waits are bounded generously so a loaded machine passes.

use std::collections::HashMap;
use std::process::Command;
use std::time::{Duration, Instant};

use mcp_tests::client::{Client, Pipes};
use mcp_tests::http::{request, send};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A stdio server, initialized, its stdin written from a thread.
fn stdio_server(env: &[(&str, &str)]) -> Client {
    let mut c = Client::spawn_with(SERVER, env, Pipes { stdin_thread: true, ..Pipes::default() });
    c.send_raw(INIT);
    let answers = read_answers(&mut c, 1, Duration::from_secs(10));
    assert!(answers.contains_key(&json!(0)), "initialize is answered");
    c.send_raw(INITIALIZED);
    c
}

fn call_line(id: i64, name: &str, arguments: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
}

/// Every response read until `n` of them came or `within` passed, by id. Each line must be
/// one whole JSON-RPC message.
fn read_answers(c: &mut Client, n: usize, within: Duration) -> HashMap<Value, Value> {
    let end = Instant::now() + within;
    let mut answers = HashMap::new();
    while answers.len() < n {
        let left = end.saturating_duration_since(Instant::now());
        let Some(line) = c.recv_line_within(left) else { break };
        let message: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("a line that is not JSON ({e}): {line:?}"));
        if let Some(id) = message.get("id").filter(|_| message.get("method").is_none()) {
            assert!(answers.insert(id.clone(), message.clone()).is_none(), "two responses for id {id}");
        }
    }
    answers
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text in {answer}"))
}

/// How many file descriptors the process has open.
fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

/// Waits until `f` holds, polling, up to `within`.
fn eventually(within: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + within;
    loop {
        if f() {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// 300 pipelined calls, every other one to a handler that panics: every echo is answered with
/// its own text, every panic becomes an error result without its payload, and the server
/// still answers afterwards.
#[test]
fn handlers_that_panic_under_load_fail_alone() {
    let mut c = stdio_server(&[]);
    let n = 300;
    for id in 1..=n {
        let line = if id % 2 == 0 {
            call_line(id, "boom", &json!({}))
        } else {
            call_line(id, "echo", &json!({"text": format!("t{id}")}))
        };
        c.send_raw(&line);
    }
    let answers = read_answers(&mut c, usize::try_from(n).expect("small"), Duration::from_secs(60));
    assert_eq!(answers.len(), 300, "every call is answered");
    for id in 1..=n {
        let answer = &answers[&json!(id)];
        if id % 2 == 0 {
            assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
            assert!(!answer.to_string().contains("secret panic payload"), "the panic's payload leaked: {answer}");
            assert!(text(answer).contains("reason internal"), "{answer}");
        } else {
            assert_eq!(text(answer), format!("t{id}"));
        }
    }
    c.send_raw(r#"{"jsonrpc":"2.0","id":"after","method":"ping"}"#);
    let after = read_answers(&mut c, 1, Duration::from_secs(10));
    assert_eq!(after.get(&json!("after")).map(|a| &a["result"]), Some(&json!({})));
}

/// 40 calls to a handler that never returns on its own, among 40 echoes: the echoes are
/// answered, every stuck call ends as a retryable timeout at the server's limit, and the
/// server keeps serving.
#[test]
fn handlers_that_never_return_time_out_under_load() {
    let mut c = stdio_server(&[("FIXTURE_DEFAULT_TIMEOUT_MS", "300"), ("FIXTURE_MAX_IN_FLIGHT", "16")]);
    for id in 1..=80 {
        let line = if id % 2 == 0 {
            call_line(id, "wait_cancel", &json!({}))
        } else {
            call_line(id, "echo", &json!({"text": format!("t{id}")}))
        };
        c.send_raw(&line);
    }
    let answers = read_answers(&mut c, 80, Duration::from_secs(60));
    assert_eq!(answers.len(), 80, "every call is answered");
    for id in 1..=80 {
        let answer = &answers[&json!(id)];
        if id % 2 == 0 {
            assert_eq!(answer["result"]["isError"], json!(true), "{answer}");
            assert!(text(answer).contains("reason timeout · retryable"), "{answer}");
        } else {
            assert_eq!(text(answer), format!("t{id}"));
        }
    }
    assert_eq!(c.call("echo", json!({"text": "still here"}))["content"][0]["text"], "still here");
}

/// SIGTERM with five calls in flight over stdio: the calls finish within the grace, every
/// answer is written whole, and the server exits 0. (A server that died at once would lose
/// the five answers; one killed mid-write would leave half a line.)
#[test]
fn sigterm_on_stdio_lets_calls_in_flight_finish() {
    let mut c = stdio_server(&[]);
    for id in 1..=5 {
        c.send_raw(&call_line(id, "sleep_ms", &json!({"ms": 800})));
    }
    // A large answer too, so that the output is more than one write.
    let big = "x".repeat(256 * 1024);
    c.send_raw(&call_line(6, "echo", &json!({"text": big})));
    // Lines are read in order: once the ping is answered, the six calls have been read.
    c.send_raw(r#"{"jsonrpc":"2.0","id":"read","method":"ping"}"#);
    let mut answers = HashMap::new();
    while !answers.contains_key(&json!("read")) {
        let more = read_answers(&mut c, 1, Duration::from_secs(20));
        assert!(!more.is_empty(), "the ping is answered");
        answers.extend(more);
    }
    let killed = Command::new("kill").arg("-TERM").arg(c.pid().to_string()).status().expect("kill runs");
    assert!(killed.success());
    answers.extend(read_answers(&mut c, 7 - answers.len(), Duration::from_secs(20)));
    for id in 1..=5 {
        assert_eq!(answers.get(&json!(id)).map(text), Some("slept 800"), "call {id} finished: {answers:?}");
    }
    assert_eq!(answers.get(&json!(6)).map(text), Some(big.as_str()));
    assert_eq!(c.wait_exit(Duration::from_secs(10)), Some(0), "the server exits 0 after the calls");
    assert!(c.stderr().contains("stopping: no more requests are read"), "{}", c.stderr());
}

/// Over HTTP with sessions, 60 clients each start a call that asks the client for input,
/// read the first SSE event (the question), and go away. The asks end at the ask timeout,
/// the connections close, and the session still serves a call.
#[test]
fn clients_that_go_away_mid_stream_leave_nothing_behind() {
    let c = Client::spawn_http(SERVER, &[("FIXTURE_ASK_TIMEOUT_MS", "500")], &[]);
    let port = c.http_port().expect("http");
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "t", "version": "0"}}});
    let post_json = |sid: Option<&str>, body: &Value| {
        let mut headers = vec![("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")];
        if let Some(sid) = sid {
            headers.push(("Mcp-Session-Id", sid));
            headers.push(("MCP-Protocol-Version", "2025-11-25"));
        }
        request(port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("answers")
    };
    let response = post_json(None, &init);
    let sid = response.header("mcp-session-id").expect("a session").to_owned();
    assert_eq!(post_json(Some(&sid), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).status, 202);
    let call = |id: i64, name: &str, arguments: Value| json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}});
    let echo = post_json(Some(&sid), &call(1, "echo", json!({"text": "warm"}))).text();
    assert!(echo.contains("warm"), "{echo}");
    let baseline = open_fds(c.pid());

    let threads: Vec<_> = (0..6)
        .map(|t| {
            let sid = sid.clone();
            std::thread::spawn(move || {
                for i in 0..10 {
                    let id = 100 + t * 10 + i;
                    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                        "params": {"name": "confirm_delete", "arguments": {"path": format!("/tmp/{id}")}}});
                    let headers = [
                        ("Accept", "application/json, text/event-stream"),
                        ("Content-Type", "application/json"),
                        ("Mcp-Session-Id", sid.as_str()),
                        ("MCP-Protocol-Version", "2025-11-25"),
                    ];
                    let mut response =
                        request(port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("answers");
                    assert_eq!(response.header("content-type"), Some("text/event-stream"));
                    // The priming event, then the question; then this client is gone.
                    let mut asked = false;
                    while let Some((_, data)) = response.next_event() {
                        if data.contains("elicitation/create") {
                            asked = true;
                            break;
                        }
                    }
                    assert!(asked, "call {id} asked the client");
                    drop(response);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().expect("a client thread");
    }
    let pid = c.pid();
    assert!(
        eventually(Duration::from_secs(20), || open_fds(pid) <= baseline),
        "descriptors back to {baseline}: {} open",
        open_fds(pid)
    );
    let echo = post_json(Some(&sid), &call(2, "echo", json!({"text": "after"}))).text();
    assert!(echo.contains("after"), "{echo}");
    assert!(!c.stderr().contains("panicked"), "{}", c.stderr());
}

/// Stateless 2026-07-28 requests whose clients close the connection before the answer: each
/// call is cancelled (the handler's cleanup runs), and no descriptor stays open.
#[test]
fn a_closed_modern_request_cancels_its_call() {
    let c = Client::spawn_http(SERVER, &[], &["--stateless"]);
    let port = c.http_port().expect("http");
    let pid = c.pid();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let headers = [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "wait_cancel"),
    ];
    let warm = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "warm"}, "_meta": meta}});
    let warm_headers = [headers[0], headers[1], headers[2], headers[3], ("Mcp-Name", "echo")];
    let warmed = request(port, "POST", "/mcp", &warm_headers, warm.to_string().as_bytes()).expect("answers").text();
    assert!(warmed.contains("warm"), "{warmed}");
    let baseline = open_fds(pid);
    for id in 0..40usize {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "wait_cancel", "arguments": {}, "_meta": meta}});
        let stream = send(port, "POST", "/mcp", &headers, body.to_string().as_bytes()).expect("sent");
        // Once the handler runs, the client is gone.
        let started = || c.stderr().lines().filter(|l| l.contains("waiting for a cancel")).count();
        assert!(eventually(Duration::from_secs(20), || started() > id), "call {id} started");
        drop(stream);
    }
    let cleaned = || c.stderr().lines().filter(|l| l.contains("cleanup ran for")).count();
    assert!(eventually(Duration::from_secs(20), || cleaned() == 40), "{} of 40 calls cancelled", cleaned());
    assert!(
        eventually(Duration::from_secs(20), || open_fds(pid) <= baseline),
        "descriptors back to {baseline}: {} open",
        open_fds(pid)
    );
}
