//! A prompt that asks the caller before it renders (`test_input_required_result_prompt` of
//! `conformance-server`), written once: a 2025 session gets a real `elicitation/create` from
//! the shim and then the prompt, over stdio; a 2026-07-28 request gets an `input_required`
//! result and the prompt on its retry. A client that did not declare elicitation is refused
//! with the `client_capability_missing` reason before anything is asked.

use mcp_tests::client::{Client, Pipes};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_conformance-server");
const PROMPT: &str = "test_input_required_result_prompt";

fn legacy(capabilities: &Value) -> Client {
    let mut c = Client::spawn_with(SERVER, &[], Pipes::default());
    let init = c.roundtrip(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    c
}

#[test]
fn a_2025_session_is_asked_by_the_shim_then_gets_the_prompt() {
    let mut c = legacy(&json!({"elicitation": {}}));
    let id = c.request("prompts/get", json!({"name": PROMPT}));
    let asked = c.recv();
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["requestedSchema"]["properties"]["context"]["type"], "string", "{asked}");
    c.send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"context": "rainy day"}}}));
    let answer = c.recv();
    assert_eq!(answer["id"], json!(id), "{answer}");
    let text = answer["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_else(|| panic!("{answer}"));
    assert!(text.contains("rainy day"), "{text}");
}

#[test]
fn a_2025_session_without_elicitation_is_refused_before_anything_is_asked() {
    let mut c = legacy(&json!({}));
    let answer = c.roundtrip("prompts/get", json!({"name": PROMPT}));
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["error"]["data"]["reason"], "client_capability_missing", "{answer}");
    assert!(answer["error"]["data"]["requestId"].is_string(), "{answer}");
}

#[test]
fn a_2026_request_gets_input_required_then_the_prompt_on_its_retry() {
    let mut c = Client::spawn_with(SERVER, &[], Pipes::default());
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    });
    c.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {"name": PROMPT, "_meta": meta}}));
    let first = c.recv();
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(first["result"]["inputRequests"]["user_context"]["method"], "elicitation/create", "{first}");
    let answers = json!({"user_context": {"action": "accept", "content": {"context": "sunny"}}});
    c.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "prompts/get", "params": {"name": PROMPT, "_meta": meta, "inputResponses": answers}}));
    let retry = c.recv();
    assert_eq!(retry["result"]["resultType"], "complete", "{retry}");
    let text = retry["result"]["messages"][0]["content"]["text"].as_str().unwrap_or_else(|| panic!("{retry}"));
    assert!(text.contains("sunny"), "{text}");
}
