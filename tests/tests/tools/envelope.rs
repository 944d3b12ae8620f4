//! The error envelope (docs/errors.md#errors--one-per-failure-mode, #the-envelopes-rules) over real pipes, with the fixture tool
//! `fetch_items(ids, mode)`: each way a failure leaves a handler, the recovery fill, the
//! terms line, the request id, the log record, and the in-process call path.

use std::time::{Duration, Instant};

use mcp_tests::client::{Client, take_request_id};
use serde_json::{Value, json};

/// The first wave's envelopes, byte for byte: `structuredContent.error` on every error.
fn server() -> Client {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[("FIXTURE_STRUCTURED_ERRORS", "always")]);
    c.initialize();
    c
}

/// The `CallToolResult` of an envelope, with the request id normalised to `<RID>`.
fn envelope(text: &str, error: &Value) -> Value {
    json!({"content": [{"type": "text", "text": text}], "structuredContent": {"error": error}, "isError": true})
}

/// Calls `fetch_items` and returns the result with its request id normalised, and the id.
fn fetch(c: &mut Client, args: &Value) -> (Value, String) {
    let mut result = c.call("fetch_items", args.clone());
    let rid = take_request_id(&mut result);
    (result, rid)
}

/// Each mode: the arguments, the expected `content[0].text` and `structuredContent.error`.
fn cases() -> Vec<(Value, Value)> {
    vec![
        // `ctx.fail(no_match)` with the message overridden; the declared recovery is filled
        // in; `no_match` declares no `retryable`: the terms line has the reason only.
        (
            json!({"ids": []}),
            envelope(
                "Error: No data for 0 ids\n\nRecovery: Call search_docs to discover valid ids, then retry.\n\n(reason no_match · request <RID>)",
                &json!({"code": -32001, "message": "No data for 0 ids", "data": {
                    "reason": "no_match",
                    "recovery": {"hint": "Call search_docs to discover valid ids, then retry."},
                    "requestId": "<RID>",
                }}),
            ),
        ),
        // `ctx.fail(queue_full)` as declared: `when` is the message, `retryable: true`.
        (
            json!({"ids": ["a1"], "mode": "queue"}),
            envelope(
                "Error: The work queue is full.\n\nRecovery: Wait a few seconds, then call fetch_items again with the same ids.\n\n(reason queue_full · retryable · request <RID>)",
                &json!({"code": -32003, "message": "The work queue is full.", "data": {
                    "reason": "queue_full",
                    "retryable": true,
                    "recovery": {"hint": "Wait a few seconds, then call fetch_items again with the same ids."},
                    "requestId": "<RID>",
                }}),
            ),
        ),
        // A service below the handler raises the declared reason by name; the boundary fill
        // adds the declared recovery and `retryable: false`; code and message stay as thrown.
        (
            json!({"ids": ["b7", "a1"], "mode": "service"}),
            envelope(
                "Error: id b7 is not yours\n\nRecovery: Remove the ids you do not own and call fetch_items again.\n\n(reason forbidden_id · not retryable · request <RID>)",
                &json!({"code": -32005, "message": "id b7 is not yours", "data": {
                    "reason": "forbidden_id",
                    "retryable": false,
                    "recovery": {"hint": "Remove the ids you do not own and call fetch_items again."},
                    "requestId": "<RID>",
                }}),
            ),
        ),
        // The throw site's hint wins over the declared recovery.
        (
            json!({"ids": ["b1"], "mode": "hint"}),
            envelope(
                "Error: None of the requested ids exist.\n\nRecovery: Try ids starting with \"a\".\n\n(reason no_match · request <RID>)",
                &json!({"code": -32001, "message": "None of the requested ids exist.", "data": {
                    "reason": "no_match",
                    "recovery": {"hint": "Try ids starting with \"a\"."},
                    "requestId": "<RID>",
                }}),
            ),
        ),
        // The message already contains the hint: no `Recovery:` line, the hint stays in data.
        (
            json!({"ids": ["b1"], "mode": "contained"}),
            envelope(
                "Error: No ids matched. Call search_docs to discover valid ids, then retry.\n\n(reason no_match · request <RID>)",
                &json!({"code": -32001, "message": "No ids matched. Call search_docs to discover valid ids, then retry.", "data": {
                    "reason": "no_match",
                    "recovery": {"hint": "Call search_docs to discover valid ids, then retry."},
                    "requestId": "<RID>",
                }}),
            ),
        ),
        // An author-built `ToolError` without a reason: `retryable` only.
        (
            json!({"ids": ["a1"], "mode": "retry_only"}),
            envelope(
                "Error: upstream restarting\n\n(retryable · request <RID>)",
                &json!({"code": -32000, "message": "upstream restarting", "data": {"retryable": true, "requestId": "<RID>"}}),
            ),
        ),
        // A plain `io::Error`: classified by kind (PermissionDenied → Forbidden), its
        // `Display` text, and the advice of its kind (not retryable); no reason.
        (
            json!({"ids": ["a1"], "mode": "plain"}),
            envelope(
                "Error: disk says no\n\nRecovery: The server may not access this; do not retry with the same input.\n\n(not retryable · request <RID>)",
                &json!({"code": -32005, "message": "disk says no", "data": {
                    "retryable": false,
                    "recovery": {"hint": "The server may not access this; do not retry with the same input."},
                    "requestId": "<RID>",
                }}),
            ),
        ),
    ]
}

#[test]
fn each_way_out_of_a_handler_renders_its_envelope() {
    let mut c = server();
    for (args, expected) in cases() {
        let (result, _) = fetch(&mut c, &args);
        assert_eq!(result, expected, "arguments {args}");
    }
}

#[test]
fn both_surfaces_carry_the_same_request_id_and_the_whole_json_rpc_message() {
    let mut c = server();
    let resp = c.roundtrip("tools/call", json!({"name": "fetch_items", "arguments": {"ids": [], "mode": "queue"}}));
    let mut result = resp["result"].clone();
    let rid = take_request_id(&mut result);
    // `take_request_id` checked the format and replaced it on both surfaces; put it back
    // and compare the whole message.
    let text = format!(
        "Error: The work queue is full.\n\nRecovery: Wait a few seconds, then call fetch_items again with the same ids.\n\n(reason queue_full · retryable · request {rid})"
    );
    let expected = json!({"jsonrpc": "2.0", "id": resp["id"], "result": envelope(&text, &json!({
        "code": -32003,
        "message": "The work queue is full.",
        "data": {
            "reason": "queue_full",
            "retryable": true,
            "recovery": {"hint": "Wait a few seconds, then call fetch_items again with the same ids."},
            "requestId": rid,
        },
    }))});
    assert_eq!(resp, expected);
    // The request id is the server's, never the client's JSON-RPC id.
    assert_ne!(json!(rid), resp["id"]);
}

#[test]
fn request_ids_are_fresh_per_call() {
    let mut c = server();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20 {
        let (_, rid) = fetch(&mut c, &json!({"ids": ["a"], "mode": "plain"}));
        assert!(seen.insert(rid.clone()), "request id {rid} repeated");
    }
}

#[test]
fn a_success_carries_no_envelope() {
    let mut c = server();
    let result = c.call("fetch_items", json!({"ids": ["a1", "b2"], "mode": "other"}));
    let items = json!({"ids": ["a1", "b2"]});
    assert_eq!(result, json!({"content": [{"type": "text", "text": items.to_string()}], "structuredContent": items}));
    let result = c.call("fetch_items", json!({"ids": ["z"]}));
    let items = json!({"ids": ["z"]});
    assert_eq!(result, json!({"content": [{"type": "text", "text": items.to_string()}], "structuredContent": items}));
}

/// Waits until stderr holds a line with every one of `needles`; returns that line.
fn log_line(c: &Client, needles: &[&str]) -> String {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let stderr = c.stderr();
        if let Some(line) = stderr.lines().find(|l| needles.iter().all(|n| l.contains(n))) {
            return line.to_owned();
        }
        assert!(Instant::now() < deadline, "no stderr line with {needles:?} in:\n{stderr}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn each_failure_is_logged_once_with_its_request_id() {
    let mut c = server();
    for (args, expected) in cases() {
        let (_, rid) = fetch(&mut c, &args);
        let message = expected["structuredContent"]["error"]["message"].as_str().expect("message");
        let record = format!("Error in tool:fetch_items: {message}");
        let line = log_line(&c, &[&record, &rid]);
        assert!(line.contains(&format!("request_id={rid}")), "{line}");
        let code = expected["structuredContent"]["error"]["code"].as_i64().expect("code");
        assert!(line.contains(&format!("code={code}")), "{line}");
        if let Some(reason) = expected["structuredContent"]["error"]["data"]["reason"].as_str() {
            assert!(line.contains(&format!("reason=\"{reason}\"")), "{line}");
        }
        let stderr = c.stderr();
        let records = stderr.lines().filter(|l| l.contains("Error in tool:") && l.contains(&rid)).count();
        assert_eq!(records, 1, "one record per failed call:\n{stderr}");
    }
    // Nothing of the envelope machinery leaks to stdout beyond the answers (the client would
    // have panicked on a non-JSON line), and a success logs no error record.
    let before = c.stderr().lines().filter(|l| l.contains("Error in tool:")).count();
    c.call("fetch_items", json!({"ids": ["ok"]}));
    c.call("echo", json!({"text": "sync"}));
    // A failure last: its record is written after any the successes would have written (one
    // queue writes them in order), so once it shows, theirs would have too.
    c.call("fetch_items", json!({"ids": []}));
    assert!(c.wait_for_stderr("Error in tool:", before + 1), "the last failure is logged:\n{}", c.stderr());
    let stderr = c.stderr();
    let records: Vec<&str> = stderr.lines().filter(|l| l.contains("Error in tool:")).skip(before).collect();
    assert!(records.len() == 1 && records[0].contains("Error in tool:fetch_items: No data for 0 ids"), "{records:#?}");
}

#[test]
fn the_plain_error_is_logged_with_its_source_chain_but_never_sent() {
    let mut c = server();
    let (result, rid) = fetch(&mut c, &json!({"ids": ["a1"], "mode": "plain"}));
    // The data: the advice of the error's kind and the request id; no source, no chain.
    let data = &result["structuredContent"]["error"]["data"];
    let keys: Vec<&str> = data.as_object().expect("data").keys().map(String::as_str).collect();
    assert_eq!(keys, ["retryable", "recovery", "requestId"], "{data}");
    let line = log_line(&c, &["Error in tool:fetch_items: disk says no", &rid]);
    assert!(line.contains("chain=disk says no"), "{line}");
}

/// Issue 33 item 9 (docs/errors.md#the-log-record): a declared failure is an expected outcome,
/// logged at info; a plain error and a failure the contract does not declare stay at error.
/// A record has no empty field: no `chain=` without a source, no `reason=` without a reason.
#[test]
fn declared_failures_log_at_info_and_plain_errors_at_error_without_empty_fields() {
    let mut c = server();
    for (args, level, reason, chain) in [
        (json!({"ids": ["a1"], "mode": "queue"}), " INFO ", Some("queue_full"), None),
        (json!({"ids": ["b7"], "mode": "service"}), " INFO ", Some("forbidden_id"), None),
        (json!({"ids": ["a1"], "mode": "plain"}), " ERROR ", None, Some("disk says no")),
        (json!({"ids": ["a1"], "mode": "retry_only"}), " ERROR ", None, None),
    ] {
        let (result, rid) = fetch(&mut c, &args);
        let message = result["structuredContent"]["error"]["message"].as_str().expect("message").to_owned();
        let line = log_line(&c, &[&format!("Error in tool:fetch_items: {message}"), &rid]);
        assert!(line.contains(level), "{args}: {line}");
        match reason {
            Some(reason) => assert!(line.contains(&format!(" reason=\"{reason}\"")), "{args}: {line}"),
            None => assert!(!line.contains(" reason="), "{args}: {line}"),
        }
        match chain {
            Some(chain) => assert!(line.contains(&format!(" chain={chain}")), "{args}: {line}"),
            None => assert!(!line.contains(" chain="), "{args}: {line}"),
        }
    }
}

fn normalised(mut result: Value) -> Value {
    take_request_id(&mut result);
    result
}

#[tokio::test]
async fn the_in_process_call_path_yields_the_same_envelopes() {
    let in_process = mcp_tests::fixture::builder(false).structured_errors_always(true).build().expect("build");
    // The stdio client blocks; the server it talks to is another process, so that is fine.
    let mut c = server();
    for (args, expected) in cases() {
        let local = serde_json::to_value(in_process.call("fetch_items", args.clone()).await).expect("serialize");
        let (wire, _) = fetch(&mut c, &args);
        assert_eq!(normalised(local), wire, "arguments {args}");
        assert_eq!(wire, expected, "arguments {args}");
    }
}

/// The `_meta` key of the draft SEP-3313's structured failure.
const TOOL_FAILURE: &str = "io.modelcontextprotocol/toolFailure";

/// The envelope's terms of an error result, as the draft's object maps them: `code` the
/// reason (`None`: the result has none), `retryable`, `agentGuidance` the recovery hint,
/// `correlationId` the request id; read from `structuredContent.error`, or from the text
/// where a tool's `outputSchema` keeps it out.
fn terms(result: &Value) -> (Option<String>, Option<bool>, Option<String>, String, Option<i64>) {
    if let Some(error) = result.pointer("/structuredContent/error") {
        let data = &error["data"];
        return (
            data["reason"].as_str().map(str::to_owned),
            data["retryable"].as_bool(),
            data.pointer("/recovery/hint").and_then(Value::as_str).map(str::to_owned),
            data["requestId"].as_str().expect("a request id").to_owned(),
            error["code"].as_i64(),
        );
    }
    let text = result["content"][0]["text"].as_str().expect("an error text");
    let line = text.rsplit_once("\n\n(").expect("a terms line").1.trim_end_matches(')');
    let mut reason = None;
    let mut retryable = None;
    let mut rid = "";
    for part in line.split(" · ") {
        if let Some(r) = part.strip_prefix("reason ") {
            reason = Some(r.to_owned());
        } else if part == "retryable" {
            retryable = Some(true);
        } else if part == "not retryable" {
            retryable = Some(false);
        } else if let Some(id) = part.strip_prefix("request ") {
            rid = id;
        }
    }
    let hint = text.split_once("\n\nRecovery: ").map(|(_, rest)| rest.split("\n\n").next().unwrap_or("").to_owned());
    // A tool with an `outputSchema` keeps `structuredContent.error` out: the text does not
    // say the code.
    (reason, retryable, hint, rid.to_owned(), None)
}

/// The draft's `class` of an error code (docs/errors.md#the-draft-failure-standards).
fn class(code: i64) -> &'static str {
    match code {
        -32005 | -32006 => "governance",
        -32602 | -32001 | -32007 | -32002 | -32601 | -32600 | -32700 | -32070 => "capability",
        _ => "reliability",
    }
}

#[test]
fn with_the_mirror_on_every_error_result_carries_the_tool_failure_mapped_from_the_envelope() {
    let calls = [
        ("fetch_items", json!({"ids": []})),
        ("fetch_items", json!({"ids": ["a1"], "mode": "queue"})),
        ("fetch_items", json!({"ids": ["a1"], "mode": "service"})),
        ("fetch_items", json!({"ids": ["a1"], "mode": "retry_only"})),
        ("fetch_items", json!({"ids": ["a1"], "mode": "plain"})),
        ("fetch_items", json!({"ids": {"a1": true}})),
        ("ehco", json!({})),
        ("legacy_report", json!({})),
        ("boom", json!({})),
        ("bad_output", json!({"kind": "range"})),
    ];
    // With `structuredContent.error` on every error (the code is known), then as served
    // by default (a tool with an `outputSchema` keeps it out), then with the mirror off.
    for (on, structured) in [(true, "always"), (true, "default"), (false, "default")] {
        let mut c = Client::spawn(
            env!("CARGO_BIN_EXE_fixture-server"),
            &[("FIXTURE_TOOL_FAILURE_META", if on { "1" } else { "0" }), ("FIXTURE_STRUCTURED_ERRORS", structured)],
        );
        c.initialize();
        for (name, args) in &calls {
            let result = c.call(name, args.clone());
            assert_eq!(result["isError"], true, "{name} {args}: {result}");
            let failure = result.pointer(&format!("/_meta/{}", TOOL_FAILURE.replace('/', "~1")));
            if !on {
                assert_eq!(failure, None, "{name} {args}: the mirror is off: {result}");
                continue;
            }
            let (reason, retryable, hint, rid, code) = terms(&result);
            let failure = failure.unwrap_or_else(|| panic!("{name} {args}: no {TOOL_FAILURE}: {result}"));
            let mut expected = serde_json::Map::new();
            let class = code.map_or_else(
                || {
                    let class = failure["class"].as_str().unwrap_or_default();
                    assert!(["capability", "reliability", "governance"].contains(&class), "{name} {args}: {failure}");
                    class.to_owned()
                },
                |code| class(code).to_owned(),
            );
            expected.insert("class".into(), json!(class));
            if let Some(reason) = reason {
                expected.insert("code".into(), json!(reason));
            }
            if let Some(retryable) = retryable {
                expected.insert("retryable".into(), json!(retryable));
            }
            expected.insert("correlationId".into(), json!(rid));
            if let Some(hint) = hint {
                expected.insert("agentGuidance".into(), json!(hint));
            }
            if !expected.contains_key("code") {
                // No reason in the envelope: the draft's baseline code for the error code.
                assert!(failure["code"].is_string(), "{name} {args}: {failure}");
                expected.insert("code".into(), failure["code"].clone());
            }
            assert_eq!(failure, &Value::Object(expected), "{name} {args}: {result}");
        }
    }
}
