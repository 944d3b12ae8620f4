//! The transports' fast path for a fn without `async`: once such a tool has run quickly often
//! enough in a row, its calls run where they were read (on the stdio reader itself, in the
//! HTTP request's own task), with no task of their own; over stdio, a call that holds the
//! thread past the blocking limit takes the tool's later calls off the reader until it has run
//! quickly twice as many times in a row as before, so a tool slow now and then holds the
//! reader a bounded number of times; a tool moved to the blocking pool comes back once its
//! runs are quick again (the rule itself: `mcp-runtime/src/tools/pace.rs`).

use mcp_runtime::prelude::*;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Says where it ran: in a tokio task (`"task"`), or outside any (`"reader"`: the test runs
/// the loop itself in `block_on`, not in a task).
#[tool]
fn where_am_i() -> String {
    if tokio::task::try_id().is_some() { "task" } else { "reader" }.to_owned()
}

/// How long `nap` holds its thread, in milliseconds.
static NAP_MS: AtomicU64 = AtomicU64::new(0);

/// Holds its thread for `NAP_MS`.
#[tool]
fn nap() -> String {
    std::thread::sleep(std::time::Duration::from_millis(NAP_MS.load(Ordering::Relaxed)));
    "rested".to_owned()
}

/// Calls of `lapse` so far.
static LAPSES: AtomicU64 = AtomicU64::new(0);

/// Quick, except every 17th call, which holds its thread for 100 ms.
#[tool]
fn lapse() -> String {
    if LAPSES.fetch_add(1, Ordering::Relaxed) % 17 == 16 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    "done".to_owned()
}

/// How long `dawdle` holds its thread, in milliseconds.
static DAWDLE_MS: AtomicU64 = AtomicU64::new(0);

/// The name of the test runtime's threads, its workers' and its blocking pool's.
const RUNTIME_THREADS: &str = "test-runtime";

/// Holds its thread for `DAWDLE_MS`, and says where it ran: on the reader (the test's own
/// thread, which runs the loop in `block_on`) or on a thread of the runtime (a worker, or the
/// blocking pool).
#[tool]
fn dawdle() -> String {
    std::thread::sleep(std::time::Duration::from_millis(DAWDLE_MS.load(Ordering::Relaxed)));
    if std::thread::current().name() == Some(RUNTIME_THREADS) { "runtime" } else { "reader" }.to_owned()
}

struct Peer {
    to: tokio::io::DuplexStream,
    from: tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
}

impl Peer {
    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.to.write_all(line.as_bytes()).await.expect("write");
    }

    async fn next(&mut self) -> Value {
        let line = self.from.next_line().await.expect("read").expect("a line before EOF");
        serde_json::from_str(&line).expect("JSON")
    }

    async fn call(&mut self, id: u64, name: &str) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}}),
        )
        .await;
        let answer = self.next().await;
        assert_eq!(answer["id"], id, "{answer}");
        answer["result"]["content"][0]["text"].clone()
    }
}

/// Runs `client` against a server serving on in-memory pipes, the loop in `block_on`.
fn with_server<F: std::future::Future<Output = ()>>(client: impl FnOnce(Peer) -> F) {
    let server =
        Server::builder("inline", "1").tool(where_am_i).tool(nap).tool(lapse).tool(dawdle).build().expect("builds");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(RUNTIME_THREADS)
        .enable_all()
        .build()
        .expect("runtime");
    let (client_out, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, client_in) = tokio::io::duplex(1 << 16);
    runtime.block_on(async move {
        let peer = Peer { to: client_out, from: BufReader::new(client_in).lines() };
        let (outcome, ()) = tokio::join!(server.serve(server_in, server_out), client(peer));
        outcome.expect("served until EOF");
    });
}

async fn initialize(peer: &mut Peer) {
    peer.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
        .await;
    let answer = peer.next().await;
    assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
    peer.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
}

#[test]
fn a_quick_sync_tool_runs_on_the_reader_after_its_first_calls() {
    with_server(|mut peer| async move {
        initialize(&mut peer).await;
        let mut places = Vec::new();
        for id in 1..=40 {
            places.push(peer.call(id, "where_am_i").await);
        }
        assert_eq!(places[0], "task", "a tool not yet seen quick runs in a task: {places:?}");
        assert_eq!(places[39], "reader", "a tool seen quick 16 times runs on the reader: {places:?}");
        drop(peer);
    });
}

#[test]
fn a_sync_tool_that_turns_slow_holds_the_reader_once_then_runs_off_it() {
    with_server(|mut peer| async move {
        initialize(&mut peer).await;
        for id in 1..=20 {
            assert_eq!(peer.call(id, "nap").await, "rested");
        }
        NAP_MS.store(300, Ordering::Relaxed);
        // The first slow call runs on the reader: the ping sent behind it is read after it.
        let nap =
            json!({"jsonrpc": "2.0", "id": 100, "method": "tools/call", "params": {"name": "nap", "arguments": {}}});
        let ping = |id: u64| json!({"jsonrpc": "2.0", "id": id, "method": "ping"});
        peer.send(nap.clone()).await;
        peer.send(ping(101)).await;
        let order = [peer.next().await["id"].clone(), peer.next().await["id"].clone()];
        assert_eq!(order, [json!(100), json!(101)], "the first slow call held the reader");
        // From then on the tool runs off the reader: a ping behind it is answered first.
        let mut nap = nap;
        nap["id"] = json!(102);
        peer.send(nap).await;
        peer.send(ping(103)).await;
        let order = [peer.next().await["id"].clone(), peer.next().await["id"].clone()];
        assert_eq!(order, [json!(103), json!(102)], "a tool seen slow no longer runs on the reader");
        drop(peer);
    });
}

#[test]
fn a_sync_tool_slow_once_every_seventeen_calls_holds_the_reader_once_in_ten_cycles() {
    with_server(|mut peer| async move {
        initialize(&mut peer).await;
        // Behind each slow call a ping: answered after the call when the call held the
        // reader, at once when it ran off it.
        let (mut stalls, mut ping_ms) = (Vec::new(), Vec::new());
        for id in 1..=170_u64 {
            let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "lapse", "arguments": {}}});
            peer.send(call).await;
            if id % 17 != 0 {
                let answer = peer.next().await;
                assert_eq!(answer["id"], id, "{answer}");
                continue;
            }
            let sent = std::time::Instant::now();
            peer.send(json!({"jsonrpc": "2.0", "id": 1000 + id, "method": "ping"})).await;
            let first = peer.next().await;
            let first_ms = sent.elapsed().as_millis();
            let second = peer.next().await;
            let second_ms = sent.elapsed().as_millis();
            let ids = [first["id"].clone(), second["id"].clone()];
            if ids == [json!(id), json!(1000 + id)] {
                stalls.push(id);
                ping_ms.push(second_ms);
            } else {
                assert_eq!(ids, [json!(1000 + id), json!(id)]);
                ping_ms.push(first_ms);
            }
        }
        eprintln!("slow calls that held the reader: {stalls:?}; ping latency behind each slow call, ms: {ping_ms:?}");
        assert!(stalls.len() <= 1, "slow calls that held the reader: {stalls:?} (ping latencies {ping_ms:?} ms)");
        drop(peer);
    });
}

#[test]
fn a_sync_tool_moved_to_the_blocking_pool_comes_back_once_its_calls_are_quick_again() {
    with_server(|mut peer| async move {
        initialize(&mut peer).await;
        DAWDLE_MS.store(20, Ordering::Relaxed);
        for id in 1..=3 {
            assert_eq!(peer.call(id, "dawdle").await, "runtime", "a slow call runs off the reader");
        }
        DAWDLE_MS.store(0, Ordering::Relaxed);
        // Slow three times in a row (score 12), it is pooled; twelve quick runs on the pool
        // bring it back, and sixteen quick ones in a row put it on the reader.
        let mut places = Vec::new();
        for id in 4..=100 {
            places.push(peer.call(id, "dawdle").await);
        }
        assert_eq!(places[0], "runtime", "{places:?}");
        assert_eq!(places[96], "reader", "a tool that turned quick again runs on the reader: {places:?}");
        drop(peer);
    });
}

/// One stateless HTTP `tools/call` of `name`, served by the router in this very future (not
/// in a task): its text.
async fn http_call(router: &axum::Router, id: u64, name: &str) -> String {
    use tower::ServiceExt as _;
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}});
    let request = http::Request::post("/")
        .header("host", "localhost")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .expect("a request");
    let response = router.clone().oneshot(request).await.expect("answered");
    assert_eq!(response.status(), 200);
    let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.expect("a body");
    let answer: Value = serde_json::from_slice(&bytes).expect("json");
    answer["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("{answer}")).to_owned()
}

#[test]
fn over_http_a_quick_sync_tool_runs_in_the_requests_own_task_after_its_first_calls() {
    let server = Server::builder("inline", "1").tool(where_am_i).stateless_http(true).build().expect("builds");
    let router = server.http_router();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    // The request is served in `block_on`, outside any task: a call that runs where it was
    // read says `reader`.
    let places: Vec<String> = runtime.block_on(async {
        let mut places = Vec::new();
        for id in 1..=40 {
            places.push(http_call(&router, id, "where_am_i").await);
        }
        places
    });
    assert_eq!(places[0], "task", "a tool not yet seen quick runs in a task: {places:?}");
    assert_eq!(places[39], "reader", "a tool seen quick 16 times runs in the request's task: {places:?}");
}
