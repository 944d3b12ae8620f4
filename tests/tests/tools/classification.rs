//! SEP-2145 classification over real pipes (docs/errors.md#how-failures-are-classified): which failures are tool
//! execution errors and what each one says; cancellation; the strict-resolution switch; and
//! that no response leaks a panic payload, a path or a backtrace.

use std::time::{Duration, Instant};

use mcp_tests::client::{Client, take_request_id};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fixture-server");

/// A server with backtraces on, so that a leak would show.
fn server_with(env: &[(&str, &str)]) -> Client {
    // The first wave's envelopes, byte for byte: `structuredContent.error` on every error.
    let mut all = vec![("RUST_BACKTRACE", "1"), ("FIXTURE_STRUCTURED_ERRORS", "always")];
    all.extend_from_slice(env);
    let mut c = Client::spawn(SERVER, &all);
    c.initialize();
    c
}

fn server() -> Client {
    server_with(&[])
}

fn strict() -> Client {
    server_with(&[("FIXTURE_STRICT_RESOLUTION", "1")])
}

/// A tool execution error with the request id normalised: `text` and the whole
/// `structuredContent.error`.
fn envelope(text: &str, error: &Value) -> Value {
    json!({"content": [{"type": "text", "text": text}], "structuredContent": {"error": error}, "isError": true})
}

/// `tools/call` → the normalised result, checking the request id's format.
fn call(c: &mut Client, name: &str, args: Value) -> Value {
    let mut result = c.call(name, args);
    take_request_id(&mut result);
    result
}

fn unknown_tool(shown: &str, hint: &str) -> Value {
    envelope(
        &format!(
            "Error: Unknown tool: {shown}.\n\nRecovery: {hint}\n\n(reason unknown_tool · not retryable · request <RID>)"
        ),
        &json!({"code": -32602, "message": format!("Unknown tool: {shown}."), "data": {
            "reason": "unknown_tool",
            "retryable": false,
            "recovery": {"hint": hint},
            "requestId": "<RID>",
        }}),
    )
}

#[test]
fn an_unknown_tool_is_a_tool_error_with_a_did_you_mean_for_listed_tools() {
    let mut c = server();
    assert_eq!(
        call(&mut c, "ehco", json!({})),
        unknown_tool("ehco", "Re-run tools/list and retry. Did you mean echo?")
    );
    // Distance 1 and 2 both count.
    assert_eq!(call(&mut c, "ad", json!({})), unknown_tool("ad", "Re-run tools/list and retry. Did you mean add?"));
    assert_eq!(
        call(&mut c, "search_dox", json!({})),
        unknown_tool("search_dox", "Re-run tools/list and retry. Did you mean search_docs?")
    );
    // Case-sensitive: `ECHO` is 4 edits away.
    assert_eq!(call(&mut c, "ECHO", json!({})), unknown_tool("ECHO", "Re-run tools/list and retry."));
    assert_eq!(
        call(&mut c, "definitely_not_a_tool", json!({})),
        unknown_tool("definitely_not_a_tool", "Re-run tools/list and retry.")
    );
    // The disabled tool is not listed, so it is never suggested (`legacy_repor` is one edit
    // from it and far from every listed tool).
    assert_eq!(call(&mut c, "legacy_repor", json!({})), unknown_tool("legacy_repor", "Re-run tools/list and retry."));
    // Arguments are not looked at for an unknown tool.
    assert_eq!(
        call(&mut c, "nope", json!({"anything": [1, 2, 3]})),
        unknown_tool("nope", "Re-run tools/list and retry.")
    );
}

#[test]
fn a_huge_tool_name_with_control_characters_is_rendered_safely() {
    let mut c = server();
    let mut name = String::from("\u{1b}[31mred\u{0}\u{7}\n\t\u{9f}");
    while name.len() < 10 * 1024 {
        name.push_str("abcdefghij");
    }
    let resp = c.roundtrip("tools/call", json!({"name": name, "arguments": {}}));
    let mut result = resp["result"].clone();
    take_request_id(&mut result);
    let clean: String = format!("[31mred{}", "abcdefghij".repeat(200));
    let shown = format!("{}…", clean.chars().take(128).collect::<String>());
    assert_eq!(shown.chars().count(), 129);
    assert_eq!(result, unknown_tool(&shown, "Re-run tools/list and retry."));
    let line = resp.to_string();
    assert!(!line.contains("\\u001b") && !line.contains("\\u0000") && !line.contains("\\u0007"), "{line}");
}

fn unavailable(name: &str, reason: &str) -> Value {
    let hint = "Pick another tool from tools/list; this one cannot be called now.";
    let message = format!("Tool unavailable: {name}. Reason: {reason}.");
    envelope(
        &format!("Error: {message}\n\nRecovery: {hint}\n\n(reason tool_unavailable · not retryable · request <RID>)"),
        &json!({"code": -32005, "message": message, "data": {
            "reason": "tool_unavailable",
            "retryable": false,
            "recovery": {"hint": hint},
            "requestId": "<RID>",
        }}),
    )
}

fn listed(c: &mut Client) -> Vec<String> {
    let resp = c.roundtrip("tools/list", json!({}));
    resp["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

#[test]
fn a_disabled_tool_is_unlisted_and_refused() {
    let mut c = server();
    assert!(!listed(&mut c).iter().any(|n| n == "legacy_report"));
    assert_eq!(call(&mut c, "legacy_report", json!({})), unavailable("legacy_report", "replaced by fetch_items"));
    // Refused before its arguments are looked at.
    assert_eq!(
        call(&mut c, "legacy_report", json!({"bogus": true})),
        unavailable("legacy_report", "replaced by fetch_items")
    );
}

#[test]
fn a_policy_refusal_is_listed_but_refused() {
    let mut c = server();
    assert!(listed(&mut c).iter().any(|n| n == "admin_reset"));
    assert_eq!(call(&mut c, "admin_reset", json!({})), unavailable("admin_reset", "requires an operator session"));
}

fn panicked() -> Value {
    let hint = "Retry the call once; if it fails again, report the request id to the server operator.";
    envelope(
        &format!(
            "Error: Tool boom failed unexpectedly.\n\nRecovery: {hint}\n\n(reason internal_error · request <RID>)"
        ),
        &json!({"code": -32603, "message": "Tool boom failed unexpectedly.", "data": {
            "reason": "internal_error",
            "recovery": {"hint": hint},
            "requestId": "<RID>",
        }}),
    )
}

#[test]
fn a_panic_is_an_internal_error_and_the_server_keeps_serving() {
    let mut c = server();
    let resp = c.roundtrip("tools/call", json!({"name": "boom", "arguments": {}}));
    let mut result = resp["result"].clone();
    let rid = take_request_id(&mut result);
    assert_eq!(result, panicked());
    assert_no_leak(&resp);
    // Same server, next call.
    assert_eq!(c.call("add", json!({"a": 1, "b": 2}))["structuredContent"], json!({"sum": 3}));
    // Again: a panic does not poison anything.
    assert_eq!(call(&mut c, "boom", json!({})), panicked());
    assert_eq!(c.call("echo", json!({"text": "alive"})), json!({"content": [{"type": "text", "text": "alive"}]}));
    // The payload went to the log, keyed by the request id.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !c.stderr().lines().any(|l| l.contains("secret panic payload") && l.contains(&rid)) {
        assert!(Instant::now() < deadline, "the panic payload is logged with the request id:\n{}", c.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn timed_out() -> Value {
    let hint = "Retry the call; if it keeps timing out, narrow its input.";
    envelope(
        &format!(
            "Error: Tool sleep_ms did not finish within 1 s.\n\nRecovery: {hint}\n\n(reason timeout · retryable · request <RID>)"
        ),
        &json!({"code": -32004, "message": "Tool sleep_ms did not finish within 1 s.", "data": {
            "reason": "timeout",
            "retryable": true,
            "recovery": {"hint": hint},
            "requestId": "<RID>",
        }}),
    )
}

#[test]
fn a_call_over_its_time_limit_times_out_and_the_server_stays_responsive() {
    let mut c = server();
    let started = Instant::now();
    let slow = c.request("tools/call", json!({"name": "sleep_ms", "arguments": {"ms": 5000}}));
    // While it runs, other requests are answered.
    let ping = c.request("ping", json!({}));
    assert_eq!(c.recv(), json!({"jsonrpc": "2.0", "id": ping, "result": {}}));
    let msg = c.recv();
    let elapsed = started.elapsed();
    assert_eq!(msg["id"], json!(slow));
    let mut result = msg["result"].clone();
    take_request_id(&mut result);
    assert_eq!(result, timed_out());
    // Near the 1 s limit: not before it, and well before the 5 s sleep would have ended.
    assert!(elapsed >= Duration::from_secs(1), "answered after {elapsed:?}");
    assert!(elapsed < Duration::from_secs(4), "answered after {elapsed:?}");
    assert_eq!(c.call("sleep_ms", json!({"ms": 10})), json!({"content": [{"type": "text", "text": "slept 10"}]}));
}

fn invalid_output(detail: &str) -> Value {
    let message = format!("Tool produced invalid structured output for bad_output: {detail}.");
    envelope(
        &format!("Error: {message}\n\n(reason invalid_output · request <RID>)"),
        &json!({"code": -32603, "message": message, "data": {"reason": "invalid_output", "requestId": "<RID>"}}),
    )
}

#[test]
fn output_that_breaks_the_output_schema_is_an_invalid_output_error() {
    let mut c = server();
    assert_eq!(call(&mut c, "bad_output", json!({"kind": "range"})), invalid_output("count: must be at most 10"));
    assert_eq!(
        call(&mut c, "bad_output", json!({"kind": "raw"})),
        invalid_output("structuredContent must be an object")
    );
}

#[test]
fn a_plain_error_is_classified_and_sends_only_its_display_text() {
    let mut c = server();
    let path = "/nonexistent-dir-for-mcp-tests/secret-file.txt";
    let resp = c.roundtrip("tools/call", json!({"name": "file_size", "arguments": {"path": path}}));
    let line = resp.to_string();
    assert!(!line.contains("nonexistent-dir-for-mcp-tests") && !line.contains("secret-file"), "{line}");
    let mut result = resp["result"].clone();
    take_request_id(&mut result);
    // The `Display` text of the OS error (Linux), NotFound → -32001, and the advice of its
    // kind: look up what exists; not retryable as it is.
    let message = "No such file or directory (os error 2)";
    let hint = "Check the path or name: list what exists with the tool that lists it, then retry with one of those.";
    assert_eq!(
        result,
        envelope(
            &format!("Error: {message}\n\nRecovery: {hint}\n\n(not retryable · request <RID>)"),
            &json!({"code": -32001, "message": message, "data": {"retryable": false, "recovery": {"hint": hint}, "requestId": "<RID>"}})
        )
    );
    // A file that exists: its size, as `{"result": n}` (the output schema wraps a number).
    let size = std::fs::metadata(SERVER).expect("the server binary exists").len();
    let ok = c.call("file_size", json!({"path": SERVER}));
    assert_eq!(
        ok,
        json!({"content": [{"type": "text", "text": json!({"result": size}).to_string()}], "structuredContent": {"result": size}})
    );
}

#[test]
fn a_cancelled_call_is_never_answered_and_later_calls_work() {
    // In every mode the script runs: over 2025 sessions (stdio, HTTP) a cancellation is a
    // `notifications/cancelled`; a 2026-07-28 client over HTTP closes the call's response
    // instead (the test client does that when asked to send the notification).
    let mut c = server();
    // `wait_cancel` returns "cancelled" once it sees the cancellation: that result must never
    // be sent.
    let id = c.request("tools/call", json!({"name": "wait_cancel", "arguments": {}}));
    assert!(c.wait_for_stderr("waiting for a cancel", 1), "the call never started:\n{}", c.stderr());
    c.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "user"}}),
    );
    assert!(c.wait_for_stderr("cleanup ran for ", 1), "the handler never saw the cancellation:\n{}", c.stderr());
    // The handler has returned its result by now: a window for it to arrive, were it sent.
    assert_eq!(c.recv_within(Duration::from_millis(500)), None, "a cancelled call got a response");
    assert_eq!(c.call("echo", json!({"text": "after"})), json!({"content": [{"type": "text", "text": "after"}]}));

    // A string id, cancelled on the very next line.
    let params = c.params(json!({"name": "sleep_ms", "arguments": {"ms": 800}}));
    c.send(&json!({"jsonrpc": "2.0", "id": "s-1", "method": "tools/call", "params": params}));
    c.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "s-1"}}));
    // Past the point where the sleep would have finished: still nothing.
    assert_eq!(c.recv_within(Duration::from_millis(1500)), None, "a cancelled call got a response");
}

#[test]
fn a_cancel_for_an_unknown_or_finished_id_is_ignored() {
    let mut c = server();
    let done = c.request("tools/call", json!({"name": "echo", "arguments": {"text": "x"}}));
    assert_eq!(c.recv()["id"], json!(done));
    let running = c.request("tools/call", json!({"name": "sleep_ms", "arguments": {"ms": 300}}));
    for request_id in [json!(done), json!(424_242), json!("nope"), json!(running.to_string())] {
        c.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}}));
    }
    // Cancelling `"<id>"` (a string) does not cancel the integer id `<id>`.
    assert_eq!(
        c.recv(),
        json!({"jsonrpc": "2.0", "id": running, "result": {"content": [{"type": "text", "text": "slept 300"}]}})
    );
    let ping = c.request("ping", json!({}));
    assert_eq!(c.recv(), json!({"jsonrpc": "2.0", "id": ping, "result": {}}));
}

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[test]
fn strict_resolution_makes_unknown_and_disabled_tools_protocol_errors() {
    let mut c = strict();
    let resp = c.roundtrip("tools/call", json!({"name": "ehco", "arguments": {}}));
    assert_eq!(resp, rpc_error(&resp["id"], -32602, "Unknown tool: ehco"));
    let resp = c.roundtrip("tools/call", json!({"name": "legacy_report", "arguments": {}}));
    assert_eq!(resp, rpc_error(&resp["id"], -32602, "Tool unavailable: legacy_report"));
    // The name is still rendered safely.
    let resp = c.roundtrip("tools/call", json!({"name": format!("a\u{0}b{}", "c".repeat(200)), "arguments": {}}));
    assert_eq!(resp, rpc_error(&resp["id"], -32602, &format!("Unknown tool: ab{}…", "c".repeat(126))));
    // A per-request policy refusal stays a tool execution error.
    assert_eq!(call(&mut c, "admin_reset", json!({})), unavailable("admin_reset", "requires an operator session"));
    // Everything else is unchanged.
    assert_eq!(call(&mut c, "boom", json!({})), panicked());
    assert_eq!(c.call("add", json!({"a": 2, "b": 2}))["structuredContent"], json!({"sum": 4}));
}

#[test]
fn without_the_switch_resolution_failures_are_tool_errors() {
    for env in [&[][..], &[("FIXTURE_STRICT_RESOLUTION", "0")][..]] {
        let mut c = server_with(env);
        assert_eq!(
            call(&mut c, "ehco", json!({})),
            unknown_tool("ehco", "Re-run tools/list and retry. Did you mean echo?"),
            "env {env:?}"
        );
        assert_eq!(
            call(&mut c, "legacy_report", json!({})),
            unavailable("legacy_report", "replaced by fetch_items"),
            "env {env:?}"
        );
    }
}

/// No response carries the panic payload, a file path the caller sent, or a backtrace.
fn assert_no_leak(msg: &Value) {
    let line = msg.to_string();
    for secret in [
        "secret panic payload",
        "panicked at",
        "stack backtrace",
        "rust_begin_unwind",
        "fixture.rs",
        "/nonexistent",
        "RUST_BACKTRACE",
    ] {
        assert!(!line.contains(secret), "a response leaks {secret:?}: {line}");
    }
}

#[test]
fn no_response_leaks_internals() {
    let mut c = server();
    let requests = [
        json!({"name": "boom", "arguments": {}}),
        json!({"name": "file_size", "arguments": {"path": "/nonexistent/secret/path"}}),
        json!({"name": "bad_output", "arguments": {"kind": "range"}}),
        json!({"name": "bad_output", "arguments": {"kind": "raw"}}),
        json!({"name": "fetch_items", "arguments": {"ids": [], "mode": "plain"}}),
        json!({"name": "sleep_ms", "arguments": {"ms": "/nonexistent"}}),
        json!({"name": "/nonexistent", "arguments": {}}),
        json!({"name": "legacy_report", "arguments": {}}),
        json!({"name": "admin_reset", "arguments": {}}),
    ];
    for params in requests {
        let resp = c.roundtrip("tools/call", params.clone());
        assert_eq!(resp["result"]["isError"], json!(true), "{params} → {resp}");
        if params["name"] != json!("/nonexistent") {
            assert_no_leak(&resp);
        }
    }
    // The server's own log has what the responses hold back.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !c.stderr().contains("secret panic payload") {
        assert!(Instant::now() < deadline, "the panic payload is logged:\n{}", c.stderr());
        std::thread::sleep(Duration::from_millis(20));
    }
}
