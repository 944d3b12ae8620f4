//! Two `notes-server --http --stateless` replicas sharing one notes directory and one real
//! Redis (`NOTES_STATE_STORE`), as behind a load balancer: a client that listens on B
//! (`subscriptions/listen`, 2026-07-28) for a note hears the `write_note` made on A — the
//! resource update and the list change travel between replicas over Redis pub/sub.

use std::time::Duration;

use mcp_tests::client::Client;
use mcp_tests::http::post_modern;
use mcp_tests::redis::Redis;
use serde_json::{Value, json};

const NOTES_SERVER: &str = env!("CARGO_BIN_EXE_notes-server");

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}})
}

#[test]
fn a_write_on_one_replica_reaches_a_listener_on_another() {
    let redis = Redis::shared();
    let dir = std::env::temp_dir().join(format!("mcp-notes-replicas-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create the notes directory");
    let url = redis.url();
    let env = [("NOTES_DIR", dir.to_str().expect("utf-8")), ("NOTES_STATE_STORE", url.as_str())];
    let a = Client::spawn_http(NOTES_SERVER, &env, &["--stateless"]);
    let b = Client::spawn_http(NOTES_SERVER, &env, &["--stateless"]);
    let (a, b) = (a.http_port().expect("A's port"), b.http_port().expect("B's port"));

    let listen = json!({"jsonrpc": "2.0", "id": "watch", "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": ["notes://plan"], "resourcesListChanged": true},
        "_meta": meta(),
    }});
    let stream = post_modern(b, &listen, &[]).into_messages();
    let ack = stream.next("the acknowledgement");
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");

    let write = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "write_note", "arguments": {"name": "plan", "text": "v1"}, "_meta": meta(),
    }});
    let written = post_modern(a, &write, &[]).answer();
    assert_eq!(written["result"]["structuredContent"]["created"], true, "{written}");

    let tag = json!({"io.modelcontextprotocol/subscriptionId": "watch"});
    let started = std::time::Instant::now();
    let updated = stream.next("the update, from A");
    assert_eq!(
        updated,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://plan", "_meta": tag}})
    );
    let changed = stream.next("the list change, from A");
    assert_eq!(
        changed,
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {"_meta": tag}})
    );
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    let _ = std::fs::remove_dir_all(&dir);
}
