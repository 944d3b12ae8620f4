//! Deployed as a team deploys: the probes and the drain of `fixture-server --http
//! --stateless` as real processes. `/healthz` and `/readyz` answer outside the MCP endpoint's
//! Host and token checks; on SIGTERM readiness turns 503 at once while calls go on being
//! answered with `Connection: close` for the drain delay; four unpaced keep-alive clients
//! lose no call across the SIGTERM (every request the server took is answered, a connection
//! it closed is closed only after a response); a task still running at the end of the grace
//! is released `failed`, retryable, reason `replica_shutdown`, within 1 s after delay and
//! grace, read on another replica (real Redis), with no lease wait.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_tests::client::Client;
use mcp_tests::http::{post_modern, request};
use mcp_tests::redis::Redis;
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");
const MODERN: &str = "2026-07-28";
const TASKS: &str = "io.modelcontextprotocol/tasks";

fn port(replica: &Client) -> u16 {
    replica.http_port().expect("an HTTP replica")
}

fn sigterm(replica: &Client) {
    let sent = Command::new("kill").arg("-TERM").arg(replica.pid().to_string()).status().expect("kill runs");
    assert!(sent.success());
}

/// GET `path`: its status and body, or `None` when no connection is taken.
fn probe(port: u16, path: &str, host: &str) -> Option<(u16, String)> {
    let response = request(port, "GET", path, &[("Host", host)], b"").ok()?;
    Some((response.status, response.text()))
}

#[test]
fn the_probes_answer_outside_the_endpoints_checks_and_readiness_turns_503_at_sigterm() {
    let mut c = Client::spawn_http(SERVER, &[("FIXTURE_DRAIN_DELAY_MS", "1500")], &["--stateless"]);
    let port = port(&c);
    // A probe comes from the orchestrator, by the pod's address: no Host check applies.
    let host = "10.1.2.3:8080";
    assert_eq!(probe(port, "/healthz", host), Some((200, r#"{"status":"live"}"#.into())));
    assert_eq!(probe(port, "/readyz", host), Some((200, r#"{"status":"ready"}"#.into())));
    let refused = request(port, "POST", "/mcp", &[("Host", host)], b"{}").expect("answers");
    assert_eq!(refused.status, 403, "while /mcp keeps its Host check");

    let mut kept = KeepAlive::connect(port).expect("connects");
    assert!(matches!(kept.call("x"), Sent::Answered(false)), "kept alive before the drain");
    sigterm(&c);
    let turned = Instant::now();
    while probe(port, "/readyz", host).is_some_and(|(status, _)| status == 200) {
        assert!(turned.elapsed() < Duration::from_millis(500), "readiness still 200 after SIGTERM");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(probe(port, "/readyz", host), Some((503, r#"{"status":"draining"}"#.into())));
    assert_eq!(probe(port, "/healthz", host).map(|p| p.0), Some(200), "live while it drains");
    // Answered, on the connection kept from before, and that connection is then closed.
    assert!(matches!(kept.call("y"), Sent::Answered(true)), "answered with Connection: close");
    let mut fresh = KeepAlive::connect(port).expect("still accepting during the delay");
    assert!(matches!(fresh.call("z"), Sent::Answered(true)), "every response closes its connection");
    assert!(turned.elapsed() < Duration::from_millis(1400), "this test was too slow to see the delay");
    assert!(c.wait_exit(Duration::from_secs(5)).is_some(), "the server exits after the delay");
    assert!(turned.elapsed() >= Duration::from_millis(1500), "not before the delay: {:?}", turned.elapsed());
}

#[test]
fn readiness_is_503_while_the_state_store_does_not_answer() {
    let mut redis = Redis::start();
    let url = redis.url();
    let c = Client::spawn_http(SERVER, &[("FIXTURE_STATE_STORE", url.as_str())], &["--stateless"]);
    let port = port(&c);
    assert_eq!(probe(port, "/readyz", "localhost").map(|p| p.0), Some(200));
    redis.stop();
    let started = Instant::now();
    assert_eq!(probe(port, "/readyz", "localhost"), Some((503, r#"{"status":"store_unavailable"}"#.into())));
    assert!(started.elapsed() < Duration::from_secs(3), "within the probe's bound: {:?}", started.elapsed());
    assert_eq!(probe(port, "/healthz", "localhost").map(|p| p.0), Some(200), "the process itself is live");
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(10);
    while probe(port, "/readyz", "localhost").map(|p| p.0) != Some(200) {
        assert!(Instant::now() < deadline, "ready again once Redis is back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A keep-alive HTTP/1.1 connection that sends `tools/call` after `tools/call` and reads
/// each answer (its `Content-Length` body) until the server says `Connection: close`.
struct KeepAlive {
    reader: BufReader<TcpStream>,
    port: u16,
}

/// What became of one request.
enum Sent {
    /// Answered; `true` when the server closes the connection after it.
    Answered(bool),
    /// Sent on a connection that then ended before a whole response: a lost call.
    Lost(String),
}

impl KeepAlive {
    fn connect(port: u16) -> Option<KeepAlive> {
        let stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
        Some(KeepAlive { reader: BufReader::new(stream), port })
    }

    fn call(&mut self, text: &str) -> Sent {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": text},
            "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {}}}})
        .to_string();
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: {MODERN}\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {}\r\n\r\n",
            self.port,
            body.len()
        );
        let stream = self.reader.get_mut();
        if let Err(e) = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body.as_bytes())) {
            return Sent::Lost(format!("write: {e}"));
        }
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) => return Sent::Lost("closed before the status line".into()),
            Err(e) => return Sent::Lost(format!("read: {e}")),
            Ok(_) => {}
        }
        if !line.starts_with("HTTP/1.1 200") {
            return Sent::Lost(format!("status {line:?}"));
        }
        let (mut length, mut close) = (0_usize, false);
        loop {
            let mut header = String::new();
            if self.reader.read_line(&mut header).unwrap_or(0) == 0 {
                return Sent::Lost("closed in the headers".into());
            }
            let header = header.trim_end().to_ascii_lowercase();
            if header.is_empty() {
                break;
            }
            if let Some(v) = header.strip_prefix("content-length:") {
                length = v.trim().parse().unwrap_or(0);
            }
            close |= header == "connection: close";
        }
        let mut answer = vec![0; length];
        if let Err(e) = self.reader.read_exact(&mut answer) {
            return Sent::Lost(format!("body: {e}"));
        }
        let answer: Value = serde_json::from_slice(&answer).unwrap_or_default();
        if answer["result"]["content"][0]["text"] != text {
            return Sent::Lost(format!("answer {answer}"));
        }
        Sent::Answered(close)
    }
}

#[test]
fn sigterm_under_four_unpaced_keep_alive_clients_loses_no_call() {
    let c = Client::spawn_http(SERVER, &[("FIXTURE_DRAIN_DELAY_MS", "600")], &["--stateless"]);
    let port = port(&c);
    let answered = Arc::new(AtomicUsize::new(0));
    let closed_by_server = Arc::new(AtomicUsize::new(0));
    let go = Arc::new(AtomicBool::new(true));
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let (answered, closed_by_server, go) =
                (Arc::clone(&answered), Arc::clone(&closed_by_server), Arc::clone(&go));
            std::thread::spawn(move || -> Vec<String> {
                let mut lost = Vec::new();
                let mut connection: Option<KeepAlive> = None;
                let mut n = 0_u64;
                while go.load(Ordering::Relaxed) {
                    if connection.is_none() {
                        connection = KeepAlive::connect(port);
                    }
                    let Some(conn) = connection.as_mut() else {
                        // Not accepting any more: a balancer sends elsewhere.
                        return lost;
                    };
                    n += 1;
                    match conn.call(&format!("{w}-{n}")) {
                        Sent::Answered(close) => {
                            answered.fetch_add(1, Ordering::Relaxed);
                            if close {
                                closed_by_server.fetch_add(1, Ordering::Relaxed);
                                connection = None;
                            }
                        }
                        Sent::Lost(why) => {
                            lost.push(why);
                            connection = None;
                        }
                    }
                }
                lost
            })
        })
        .collect();
    // Calls flow on kept-alive connections before the signal.
    let deadline = Instant::now() + Duration::from_secs(10);
    while answered.load(Ordering::Relaxed) < 400 {
        assert!(Instant::now() < deadline, "the clients got going");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(closed_by_server.load(Ordering::Relaxed), 0, "connections are kept alive before the drain");
    let at_signal = answered.load(Ordering::Relaxed);
    sigterm(&c);
    let lost: Vec<String> = workers.into_iter().flat_map(|w| w.join().expect("a worker")).collect();
    go.store(false, Ordering::Relaxed);
    let (answered, closed) = (answered.load(Ordering::Relaxed), closed_by_server.load(Ordering::Relaxed));
    eprintln!("answered {answered}, closed by the server after a response {closed}, lost {}", lost.len());
    assert!(lost.is_empty(), "{} calls lost across the SIGTERM: {lost:?}", lost.len());
    assert!(closed >= 4, "the drain closed the connections after their responses ({closed})");
    // The server went on serving through the drain delay (not only the calls in flight).
    assert!(answered - at_signal >= 100, "only {} calls answered after SIGTERM", answered - at_signal);
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": MODERN,
           "io.modelcontextprotocol/clientCapabilities": {"extensions": {TASKS: {}}}})
}

fn rpc(replica: u16, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    post_modern(replica, &message, &[("X-Test-Subject", "alice")]).answer()
}

#[test]
fn a_task_still_running_after_delay_and_grace_is_released_failed_retryable_within_a_second() {
    let redis = Redis::shared();
    let url = redis.url();
    let (delay, grace) = (400_u64, 1000_u64);
    let env = [
        ("FIXTURE_STATE_STORE", url.as_str()),
        ("FIXTURE_PRINCIPAL_HEADER", "1"),
        ("FIXTURE_DRAIN_DELAY_MS", "400"),
        ("FIXTURE_SHUTDOWN_GRACE_MS", "1000"),
    ];
    let mut a = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let b = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let (pa, pb) = (port(&a), port(&b));
    let started = |args: Value| {
        let answer = rpc(pa, "tools/call", json!({"name": "slow_job", "arguments": args}));
        assert_eq!(answer["result"]["resultType"], "task", "{answer}");
        answer["result"]["taskId"].as_str().expect("a task id").to_owned()
    };
    // One that ends within the grace, one that cannot (the lease is the default 15 s).
    let quick = started(json!({"ms": delay + 600}));
    let long = started(json!({"ms": 60_000}));
    assert!(a.wait_for_stderr("slow_job working: ", 2), "{}", a.stderr());
    sigterm(&a);
    let signalled = Instant::now();
    let get = |id: &str| rpc(pb, "tasks/get", json!({"taskId": id}))["result"].clone();
    let task = loop {
        let task = get(&long);
        if task["status"] != "working" {
            break task;
        }
        assert!(signalled.elapsed() < Duration::from_secs(10), "still working: {task}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let waited = signalled.elapsed();
    eprintln!("released after {waited:?} (delay {delay} ms + grace {grace} ms)");
    assert_eq!(task["status"], "failed", "{task}");
    let data = &task["error"]["data"];
    assert_eq!((&data["reason"], &data["retryable"]), (&json!("replica_shutdown"), &json!(true)), "{task}");
    assert_eq!(
        task["error"]["message"],
        "Task failed: the server replica running tool slow_job shut down before it finished."
    );
    assert!(waited >= Duration::from_millis(delay + grace), "not before delay and grace: {waited:?}");
    assert!(waited < Duration::from_millis(delay + grace + 1000), "within 1 s after them: {waited:?}");
    assert_eq!(get(&quick)["status"], "completed", "the quick one finished within the grace");
    assert!(a.wait_exit(Duration::from_secs(5)).is_some(), "the replica exits");
}

/// Two replicas share one rate limit through the state store: 100 calls of one principal,
/// sent as fast as they go and spread over both, pass the budget once (20 now, plus what
/// refills while they are sent), not once per replica.
#[test]
fn two_replicas_behind_one_store_share_one_rate_limit() {
    let redis = Redis::shared();
    let url = redis.url();
    let env =
        [("FIXTURE_STATE_STORE", url.as_str()), ("FIXTURE_PRINCIPAL_HEADER", "1"), ("FIXTURE_RATE_LIMIT", "20/s")];
    let a = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let b = Client::spawn_http(SERVER, &env, &["--stateless"]);
    let (pa, pb) = (port(&a), port(&b));
    // A subject of this run's own: the shared Redis keeps budgets of earlier runs.
    let subject = format!("limited-{}-{}", std::process::id(), Instant::now().elapsed().as_nanos());
    let call = |replica: u16, n: usize| {
        let message = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "echo",
            "arguments": {"text": "x"}, "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {}}}});
        post_modern(replica, &message, &[("X-Test-Subject", subject.as_str())]).answer()
    };
    let started = Instant::now();
    let (mut passed, mut limited) = (0_u32, 0_u32);
    for n in 0..100 {
        let answer = call(if n % 2 == 0 { pa } else { pb }, n);
        if answer["result"]["isError"] == json!(true) {
            let reason = &answer["result"]["structuredContent"]["error"]["data"]["reason"];
            assert_eq!(reason, "rate_limited", "{answer}");
            limited += 1;
        } else {
            assert!(answer["result"]["content"][0]["text"] == "x", "{answer}");
            passed += 1;
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    // The burst, plus what the budget refills while the calls go out (20 a second).
    let allowed = 20.0 + (elapsed * 20.0).ceil();
    eprintln!("100 calls over two replicas in {elapsed:.2} s: {passed} passed, {limited} limited (budget {allowed})");
    assert!(f64::from(passed) <= allowed, "{passed} passed: the replicas did not share the budget of {allowed}");
    assert!(passed >= 20, "the budget's burst passes ({passed})");
}
