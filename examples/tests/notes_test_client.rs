//! The notes server driven in-process by the public test client
//! (`mcp_runtime::testing::TestClient`), in both eras, through the real pipeline: a write,
//! the tool list with the declared failure modes, a declared failure with its recovery hint,
//! the note as a resource, the summary prompt, and the progress and log notifications a
//! call sends.

use mcp_examples::notes::{NotesDir, server};
use mcp_runtime::testing::{Era, TestClient};
use serde_json::{Value, json};

mod common;
use common::TempDir;

fn methods(notifications: &[Value]) -> Vec<&str> {
    notifications.iter().filter_map(|n| n["method"].as_str()).collect()
}

#[tokio::test]
async fn the_notes_server_in_both_eras_through_the_test_client() {
    for era in [Era::Legacy, Era::Modern] {
        let dir = TempDir::new(if era == Era::Legacy { "test-client-legacy" } else { "test-client-modern" });
        let server = server(NotesDir::open(&dir.0).expect("open")).expect("builds");
        let mut client = TestClient::new(&server, era);

        let written = client.call("write_note", json!({"name": "plan", "text": "ship it\nthen rest"})).await;
        assert_eq!(
            written["structuredContent"],
            json!({"name": "plan", "bytes": 17, "created": true}),
            "{era:?}: {written}"
        );
        if era == Era::Modern {
            assert_eq!(written["resultType"], "complete", "{written}");
        }

        // A declared failure: the envelope the model reads, with the declared recovery.
        let again = client.call("write_note", json!({"name": "plan", "text": "x"})).await;
        assert_eq!(again["isError"], true, "{era:?}: {again}");
        let text = again["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains("Recovery: Call write_note again with overwrite set to true"), "{era:?}: {text}");

        let tools = client.list_tools().await;
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, ["list_notes", "read_note", "search_notes", "write_note", "delete_note"], "{era:?}");
        let write = tools.iter().find(|t| t["name"] == "write_note").expect("listed");
        let reasons: Vec<&str> = write["_meta"][mcp_runtime::FAILURES_META_KEY]
            .as_array()
            .expect("the declared failures")
            .iter()
            .filter_map(|f| f["reason"].as_str())
            .collect();
        assert_eq!(reasons, ["invalid_name", "note_exists", "note_too_large"], "{era:?}");

        let read = client.read("notes://plan").await.expect("reads");
        assert_eq!(read["contents"][0]["text"], "ship it\nthen rest", "{era:?}: {read}");
        let missing = client.read("notes://nothing").await.expect_err("not found");
        assert_eq!(missing["data"]["reason"], "no_such_note", "{era:?}: {missing}");

        let prompt = client.get_prompt("summarize_note", json!({"name": "plan"})).await.expect("renders");
        assert_eq!(prompt["messages"][0]["content"]["resource"]["text"], "ship it\nthen rest", "{era:?}: {prompt}");

        // Progress (the test client sends a progress token with each call).
        client.notifications();
        let found = client.call("search_notes", json!({"query": "rest"})).await;
        assert_eq!(found["structuredContent"]["hits"][0]["line"], 2, "{era:?}: {found}");
        let sent = client.notifications();
        assert!(methods(&sent).contains(&"notifications/progress"), "{era:?}: {sent:?}");
    }
}

#[tokio::test]
async fn a_legacy_session_sees_the_log_messages_of_a_call() {
    let dir = TempDir::new("test-client-log");
    let server = server(NotesDir::open(&dir.0).expect("open")).expect("builds");
    let mut client = TestClient::new(&server, Era::Legacy);
    client.call("write_note", json!({"name": "a", "text": "b"})).await;
    let sent = client.notifications();
    let logged: Vec<&Value> = sent.iter().filter(|n| n["method"] == "notifications/message").collect();
    assert_eq!(logged.len(), 1, "{sent:?}");
    assert_eq!(logged[0]["params"]["level"], "info", "{sent:?}");
    assert!(logged[0]["params"]["data"].as_str().unwrap_or_default().contains("created note \"a\""), "{sent:?}");
}
