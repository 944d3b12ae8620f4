//! The notes server's resources end to end, over real stdio and Streamable HTTP: a 2025
//! session that subscribed to a note hears `notifications/resources/updated` when a tool
//! writes it (on stdio's output, and on an HTTP session's standalone GET stream), and not
//! for notes it did not subscribe to; a new note changes the list
//! (`notifications/resources/list_changed`).

use std::time::Duration;

use mcp_tests::client::{Client, Pipes};
use mcp_tests::http::request;
use serde_json::{Value, json};

const NOTES_SERVER: &str = env!("CARGO_BIN_EXE_notes-server");

mod common;
use common::TempDir;

/// Writes a note; the resource updates that arrived before the answer (a tool announces
/// its change while it runs, so on stdio they come first).
fn write(c: &mut Client, name: &str, text: &str) -> Vec<Value> {
    let id = c.request(
        "tools/call",
        json!({"name": "write_note", "arguments": {"name": name, "text": text, "overwrite": true}}),
    );
    let mut updates = Vec::new();
    loop {
        let msg = c.recv();
        if msg.get("id") == Some(&json!(id)) {
            assert_ne!(msg["result"]["isError"], true, "{msg}");
            return updates;
        }
        if msg["method"] == "notifications/resources/updated" {
            updates.push(msg);
        }
    }
}

#[test]
fn a_subscribed_stdio_session_hears_of_writes_to_its_note_only() {
    let dir = TempDir::new("resources-stdio");
    let mut c = Client::spawn_with(NOTES_SERVER, &[("NOTES_DIR", dir.0.to_str().unwrap())], Pipes::default());
    let init = c.initialize();
    assert_eq!(init["result"]["capabilities"]["resources"]["subscribe"], true, "{init}");
    write(&mut c, "plan", "v1");
    let subscribed = c.roundtrip("resources/subscribe", json!({"uri": "notes://plan"}));
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");

    assert_eq!(write(&mut c, "other", "not watched"), Vec::<Value>::new(), "not subscribed to notes://other");
    let mut updates = write(&mut c, "plan", "v2");
    if updates.is_empty() {
        // The forwarder may write it just after the answer.
        updates.extend(c.recv_within(Duration::from_secs(5)));
    }
    assert_eq!(
        updates,
        [json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://plan"}})]
    );

    let unsubscribed = c.roundtrip("resources/unsubscribe", json!({"uri": "notes://plan"}));
    assert_eq!(unsubscribed["result"], json!({}), "{unsubscribed}");
    assert_eq!(write(&mut c, "plan", "v3"), Vec::<Value>::new());
    assert_eq!(c.recv_within(Duration::from_millis(300)), None, "no update after unsubscribing");

    let read = c.roundtrip("resources/read", json!({"uri": "notes://plan"}));
    assert_eq!(read["result"]["contents"][0]["text"], "v3", "{read}");
}

#[test]
fn a_subscribed_http_session_hears_of_writes_on_its_standalone_stream() {
    let dir = TempDir::new("resources-http");
    let mut c = Client::spawn_http(NOTES_SERVER, &[("NOTES_DIR", dir.0.to_str().unwrap())], &[]);
    c.initialize();
    let port = c.http_port().expect("http");
    let session = c.http_session().expect("a session");
    write(&mut c, "plan", "v1");
    let subscribed = c.roundtrip("resources/subscribe", json!({"uri": "notes://plan"}));
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");

    let headers =
        [("Accept", "text/event-stream"), ("Mcp-Session-Id", session.as_str()), ("MCP-Protocol-Version", "2025-11-25")];
    let mut stream = request(port, "GET", "/mcp", &headers, b"").expect("GET opens the standalone stream");
    assert_eq!(stream.status, 200);
    write(&mut c, "other", "not watched");
    let on_post = write(&mut c, "plan", "v2");
    assert_eq!(on_post, Vec::<Value>::new(), "updates ride the standalone stream, not a call's response");
    // Creating `plan` (before the stream opened: kept for it) and `other` changed the list of
    // resources; then the update of the subscribed note.
    let mut events = Vec::new();
    while events.len() < 3 {
        let (_, data) = stream.next_event().expect("an event on the standalone stream");
        events.push(serde_json::from_str::<Value>(&data).expect("JSON"));
    }
    assert_eq!(
        events,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed", "params": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {"uri": "notes://plan"}}),
        ]
    );
}
