//! The stdio loop keeps memory bounded whatever the client does: it stops reading while its
//! answers are not being read, and calls beyond the in-flight cap wait in a queue while
//! reading goes on, so a cancellation still arrives and finished answers still go out.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

/// A fixture server serving one end of two in-memory pipes of `capacity` bytes each.
fn serve(
    max_in_flight: usize,
    capacity: usize,
) -> (DuplexStream, BufReader<DuplexStream>, tokio::task::JoinHandle<()>) {
    let server = mcp_tests::fixture::builder(false).max_in_flight(max_in_flight).build().expect("the fixture builds");
    let (client_out, server_in) = tokio::io::duplex(capacity);
    let (server_out, client_in) = tokio::io::duplex(capacity);
    let task = tokio::spawn(async move { server.serve(server_in, server_out).await.expect("serves") });
    (client_out, BufReader::new(client_in), task)
}

async fn send(to: &mut DuplexStream, line: &str) {
    to.write_all(format!("{line}\n").as_bytes()).await.expect("the server reads");
}

async fn answer(from: &mut BufReader<DuplexStream>) -> Value {
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(5), from.read_line(&mut line))
        .await
        .expect("an answer within 5 s")
        .expect("reads");
    serde_json::from_str(&line).expect("a JSON line")
}

fn call(id: u64, name: &str, arguments: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": arguments}})
        .to_string()
}

#[tokio::test]
async fn a_client_that_does_not_read_its_answers_is_not_read_either() {
    let (mut to, mut from, _task) = serve(16, 1 << 16);
    send(&mut to, INIT).await;
    assert_eq!(answer(&mut from).await["id"], 0);

    // Ask for tools/list again and again without reading: each answer is several KB, so
    // without backpressure the server would read all 4.8 MB and hold ~500 MB of answers.
    let request = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    send(&mut to, request).await;
    let mut listed = String::new();
    from.read_line(&mut listed).await.expect("reads");
    let tools: Value = serde_json::from_str(&listed).expect("a JSON line");
    assert!(tools["result"]["tools"].as_array().is_some_and(|t| !t.is_empty()), "{listed}");
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = std::sync::Arc::clone(&sent);
    let writer = tokio::spawn(async move {
        for _ in 0..100_000 {
            send(&mut to, request).await;
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        to
    });
    tokio::time::sleep(Duration::from_secs(1)).await;
    // What fits: 64 KiB of output pipe and 64 KiB of backlog (a few dozen answers), the
    // requests parked while output is congested (their lines, up to `max_queued_bytes`,
    // 4 MiB by default: about 93,000 of these), and 64 KiB of input pipe (about 1,400).
    let read = sent.load(std::sync::atomic::Ordering::Relaxed);
    let parked = (4 << 20) / (request.len() + 1);
    assert!(read < parked + 5_000, "the server read {read} requests while nobody read its answers");
    assert!(read < 100_000, "the server read every request while nobody read its answers");

    // Reading the answers lets the server read again, and every request is answered.
    let reader = tokio::spawn(async move {
        let mut line = String::new();
        for _ in 0..100_000 {
            line.clear();
            from.read_line(&mut line).await.expect("reads");
            assert_eq!(line, listed, "every answer is the same tools/list page");
        }
    });
    tokio::time::timeout(Duration::from_secs(120), reader).await.expect("all answered").expect("no panic");
    tokio::time::timeout(Duration::from_secs(5), writer).await.expect("all written").expect("no panic");
}

#[tokio::test]
async fn beyond_the_in_flight_cap_calls_wait_while_answers_and_cancellations_still_flow() {
    let (mut to, mut from, task) = serve(2, 1 << 16);
    send(&mut to, INIT).await;
    assert_eq!(answer(&mut from).await["id"], 0);

    // Two calls take both slots; the third waits for one.
    for id in 1..=3 {
        send(&mut to, &call(id, "wait_cancel", json!({}))).await;
    }
    // Reading goes on: a ping and a quick call are answered (the quick call waits behind
    // the third in the queue, so only the ping comes back now).
    send(&mut to, &call(4, "add", json!({"a": 1, "b": 2}))).await;
    send(&mut to, r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#).await;
    assert_eq!(answer(&mut from).await, json!({"jsonrpc": "2.0", "id": 5, "result": {}}));

    // A cancellation is read; its slot goes to call 3, then call 4 waits for the next.
    send(&mut to, r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#).await;
    send(&mut to, r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#).await;
    assert_eq!(
        answer(&mut from).await,
        json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "{\"sum\":3}"}], "structuredContent": {"sum": 3}}}),
        "call 4 ran once a slot was free"
    );

    // EOF: call 3 is still waiting for its cancellation; the grace ends it and serve returns.
    drop(to);
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("serve returns after the EOF grace")
        .expect("no panic");
}

#[tokio::test]
async fn a_parked_request_answered_at_once_frees_its_id() {
    let (mut to, mut from, _task) = serve(16, 1 << 16);
    send(&mut to, INIT).await;
    assert_eq!(answer(&mut from).await["id"], 0);
    // Congest the output (nobody reads): later requests are parked as lines.
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    for _ in 0..200 {
        send(&mut to, list).await;
    }
    // Parked like a call (it would run alone in the 2026 era), answered at once in a 2025
    // session: -32601. Its id must not stay in use.
    send(&mut to, r#"{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{}}}"#).await;
    send(&mut to, &call(2, "echo", json!({"text": "after"})).replace("\"id\":2", "\"id\":\"L\"")).await;
    let mut seen = Vec::new();
    loop {
        let line = answer(&mut from).await;
        if line["id"] == "L" {
            seen.push(line);
            if seen.len() == 2 {
                break;
            }
        }
    }
    assert_eq!(seen[0]["error"]["code"], -32601, "{}", seen[0]);
    assert_eq!(seen[1]["result"]["content"][0]["text"], "after", "the id is free again: {}", seen[1]);
}
