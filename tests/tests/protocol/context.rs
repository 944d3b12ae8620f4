//! `Ctx` over real stdio: client logging with levels, `tracing` forwarding, progress,
//! cancellation and the client's declared identity (fixture tools `work`, `whoami`,
//! `wait_cancel`).

use std::time::Duration;

use mcp_tests::client::Client;
use mcp_tests::fixture::work_logs;
use serde_json::{Value, json};

fn server() -> Client {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[]);
    c.initialize();
    c
}

/// Sends a request and returns every message up to and including its response, then checks
/// that nothing more arrives for a moment.
fn exchange(c: &mut Client, method: &str, params: Value) -> (Vec<Value>, Value) {
    let id = c.request(method, params);
    let mut before = Vec::new();
    loop {
        let msg = c.recv();
        if msg.get("id") == Some(&json!(id)) {
            let late = c.recv_within(Duration::from_millis(300));
            assert_eq!(late, None, "a message arrived after the response");
            return (before, msg);
        }
        before.push(msg);
    }
}

#[test]
fn before_set_level_info_and_above_arrive_with_tracing_events_all_before_the_response() {
    let mut c = server();
    let (before, response) = exchange(&mut c, "tools/call", json!({"name": "work", "arguments": {"steps": 1}}));
    assert_eq!(before, work_logs(&["info", "notice", "warning", "error"]));
    assert_eq!(response["result"], json!({"content": [{"type": "text", "text": "done 1"}]}));
}

#[test]
fn set_level_filters_by_threshold() {
    let mut c = server();
    assert_eq!(c.roundtrip("logging/setLevel", json!({"level": "warning"}))["result"], json!({}));
    let (before, _) = exchange(&mut c, "tools/call", json!({"name": "work", "arguments": {"steps": 1}}));
    assert_eq!(before, work_logs(&["warning", "error"]));

    assert_eq!(c.roundtrip("logging/setLevel", json!({"level": "debug"}))["result"], json!({}));
    let (before, _) = exchange(&mut c, "tools/call", json!({"name": "work", "arguments": {"steps": 1}}));
    assert_eq!(before, work_logs(&["debug", "info", "notice", "warning", "error"]));
}

#[test]
fn an_unknown_level_is_invalid_params() {
    let mut c = server();
    let resp = c.roundtrip("logging/setLevel", json!({"level": "loud"}));
    assert_eq!(
        resp,
        json!({"jsonrpc": "2.0", "id": resp["id"], "error": {"code": -32602, "message": "Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency"}})
    );
}

fn progress(token: &Value, step: u32, steps: u32) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {
        "progressToken": token, "progress": f64::from(step), "total": f64::from(steps), "message": format!("step {step} of {steps}")
    }})
}

#[test]
fn progress_is_sent_for_string_and_integer_tokens_and_never_decreases() {
    let mut c = server();
    c.roundtrip("logging/setLevel", json!({"level": "emergency"}));
    for token in [json!("p-1"), json!(7)] {
        let (before, response) = exchange(
            &mut c,
            "tools/call",
            json!({"name": "work", "arguments": {"steps": 3}, "_meta": {"progressToken": token}}),
        );
        // 1, 2, 3 of 3; the repeated 3 is dropped.
        assert_eq!(before, vec![progress(&token, 1, 3), progress(&token, 2, 3), progress(&token, 3, 3)]);
        assert_eq!(response["result"]["content"][0]["text"], json!("done 3"));
    }
}

#[test]
fn no_progress_without_a_token() {
    let mut c = server();
    c.roundtrip("logging/setLevel", json!({"level": "emergency"}));
    let (before, _) = exchange(&mut c, "tools/call", json!({"name": "work", "arguments": {"steps": 3}}));
    assert_eq!(before, Vec::<Value>::new());
}

#[test]
fn a_cancelled_handler_sees_it_cleans_up_and_nothing_is_sent() {
    let mut c = server();
    // With a progress token: the handler reports progress while it cleans up, which must
    // not be sent either.
    let id = c.request("tools/call", json!({"name": "wait_cancel", "arguments": {}, "_meta": {"progressToken": "t"}}));
    assert!(c.wait_for_stderr("waiting for a cancel", 1), "the handler never started:\n{}", c.stderr());
    c.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "user"}}),
    );
    assert_eq!(c.recv_within(Duration::from_secs(1)), None, "a cancelled call must get no response and no progress");
    let ping = c.roundtrip("ping", json!({}));
    assert_eq!(ping["result"], json!({}));
    let stderr = c.stderr();
    let line = stderr.lines().find(|l| l.starts_with("cleanup ran for ")).expect("the handler cleaned up");
    assert!(mcp_tests::client::is_request_id(&line["cleanup ran for ".len()..]), "{line}");
}

#[test]
fn the_handler_sees_what_the_client_declared() {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[]);
    c.roundtrip(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {"sampling": {}, "roots": {"listChanged": true}, "elicitation": {}},
               "clientInfo": {"name": "probe", "version": "9.1"}}),
    );
    let result = c.call("whoami", json!({}));
    // Stdio carries no access token: the caller is the local principal, without identity
    // fields (it holds every scope without listing any).
    let expected = json!({"name": "probe", "version": "9.1", "capabilities": ["elicitation", "roots", "sampling"],
                          "subject": null, "client_id": null, "scopes": [], "tenant": null});
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": expected.to_string()}], "structuredContent": expected})
    );
}

#[test]
fn without_a_session_or_an_envelope_a_call_is_refused_and_the_process_serves_on() {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[]);
    let answer = c.roundtrip("tools/call", json!({"name": "whoami", "arguments": {}}));
    assert_eq!(answer["error"]["code"], json!(-32602), "{answer}");
    let message = answer["error"]["message"].as_str().expect("message");
    assert!(message.contains("io.modelcontextprotocol/protocolVersion") && message.contains("initialize"), "{message}");
    // The bad first message ends nothing: the handshake still works, and then the call.
    c.initialize();
    let result = c.call("whoami", json!({}));
    assert_eq!(result["structuredContent"]["name"], json!("mcp-tests"), "{result}");
}
