//! docs/errors.md#the-envelopes-rules, tools that declare an `outputSchema`: their error results carry the envelope
//! text and `isError` only, never `structuredContent` (clients check it against the output
//! schema even on errors, and would show their complaint instead of the envelope). Tools
//! without an output schema keep `structuredContent.error`, and
//! `structured_errors_always(true)` (`FIXTURE_STRUCTURED_ERRORS=always`) puts it back on
//! every error. Every failure path obeys the rule.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::{Refusal, Server as RuntimeServer};
use mcp_tests::client::{Client, take_request_id};
use serde_json::{Value, json};

fn over_stdio(env: &[(&str, &str)]) -> Client {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), env);
    c.initialize();
    c
}

fn normalised(mut result: Value) -> Value {
    take_request_id(&mut result);
    result
}

/// `always` without its `structuredContent`: what the default sends for a tool with an
/// output schema.
fn without_structured(mut always: Value) -> Value {
    assert!(always["structuredContent"]["error"].is_object(), "{always}");
    always.as_object_mut().expect("a result").remove("structuredContent");
    always
}

#[test]
fn a_declared_failure_of_a_tool_with_an_output_schema_is_text_only() {
    let mut plain = over_stdio(&[]);
    let mut always = over_stdio(&[("FIXTURE_STRUCTURED_ERRORS", "always")]);
    let args = json!({"ids": ["a1"], "mode": "queue"});
    let expected = json!({
        "content": [{"type": "text", "text": "Error: The work queue is full.\n\nRecovery: Wait a few seconds, then call fetch_items again with the same ids.\n\n(reason queue_full · retryable · request <RID>)"}],
        "isError": true,
    });
    assert_eq!(normalised(plain.call("fetch_items", args.clone())), expected);
    assert_eq!(without_structured(normalised(always.call("fetch_items", args))), expected);
}

/// Issue 33 item 1: data that cannot travel in `structuredContent` reaches the model in the
/// text, as one `Details:` line of compact JSON before the terms line, without the keys the
/// runtime writes (their values are the runtime's, and the text says them already). Where
/// `structuredContent.error` travels, the data is there and the text has no such line.
#[test]
fn the_author_data_of_a_tool_with_an_output_schema_reaches_the_text() {
    let mut plain = over_stdio(&[]);
    let mut always = over_stdio(&[("FIXTURE_STRUCTURED_ERRORS", "always")]);
    let args = json!({"ids": ["a1"], "mode": "data"});
    let text = |details: &str| {
        format!(
            "Error: None of the requested ids exist.\n\nRecovery: Use one of the ids listed in the details.\n\n{details}(reason no_match · request <RID>)"
        )
    };
    assert_eq!(
        normalised(plain.call("fetch_items", args.clone())),
        json!({
            "content": [{"type": "text", "text": text("Details: {\"known\":[\"a1\",\"b2\"],\"note\":\"line one\\nline two\"}\n\n")}],
            "isError": true,
        })
    );
    assert_eq!(
        normalised(always.call("fetch_items", args)),
        json!({
            "content": [{"type": "text", "text": text("")}],
            "structuredContent": {"error": {"code": -32001, "message": "None of the requested ids exist.", "data": {
                "known": ["a1", "b2"], "reason": "no_match", "note": "line one\nline two",
                "recovery": {"hint": "Use one of the ids listed in the details."}, "requestId": "<RID>",
            }}},
            "isError": true,
        })
    );
}

/// The `Details:` line is bounded: past 1,024 characters its JSON is cut and ends with `…`.
#[tokio::test]
async fn a_long_details_line_is_cut() {
    /// Fails with a lot of data; would return a total.
    #[tool]
    fn verbose() -> Result<Total, ToolError> {
        Err(ToolError::not_found("Nothing here.").data(json!({"words": "w".repeat(5000)})))
    }
    let server = Server::builder("t", "0").tool(verbose).build().expect("builds");
    let result = server.call("verbose", json!({})).await;
    let text = result.first_text().expect("text");
    let line = text.lines().find(|l| l.starts_with("Details: ")).expect("a Details line");
    let json = line.strip_prefix("Details: ").expect("prefix");
    assert_eq!(json.chars().count(), 1025, "{json}");
    assert_eq!(json, format!("{}…", &format!("{{\"words\":\"{}", "w".repeat(5000))[..1024]));
    assert!(text.ends_with(')'), "the terms line stays last: {text}");
}

#[test]
fn every_fixture_failure_follows_the_rule_of_its_tool() {
    let mut plain = over_stdio(&[]);
    let mut always = over_stdio(&[("FIXTURE_STRUCTURED_ERRORS", "always")]);
    // Any other value is the default.
    let mut other = over_stdio(&[("FIXTURE_STRUCTURED_ERRORS", "yes")]);
    let listed = plain.roundtrip("tools/list", json!({}));
    let has_output_schema = |name: &str| {
        listed["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == name)
            .is_some_and(|t| t.get("outputSchema").is_some())
    };
    for (name, args, schema) in [
        ("fetch_items", json!({"ids": []}), true),
        ("fetch_items", json!({"ids": ["b7"], "mode": "service"}), true),
        ("fetch_items", json!({"ids": ["a"], "mode": "plain"}), true),
        ("add", json!({"a": "x", "b": 1}), true),
        ("bad_output", json!({"kind": "range"}), true),
        ("file_size", json!({"path": "/nonexistent/fixture/path"}), true),
        ("boom", json!({}), false),
        ("sleep_ms", json!({"ms": 5000}), false),
        ("admin_reset", json!({}), false),
        ("legacy_report", json!({}), false),
        ("echo", json!({}), false),
    ] {
        if name != "legacy_report" {
            assert_eq!(has_output_schema(name), schema, "{name} outputSchema");
        }
        let full = normalised(always.call(name, args.clone()));
        let got = normalised(plain.call(name, args.clone()));
        let expected = if schema { without_structured(full) } else { full };
        assert_eq!(got, expected, "{name} {args}");
        assert_eq!(normalised(other.call(name, args.clone())), expected, "{name} {args}");
    }
    // Unknown tools have no schema at all: the envelope keeps its structured form.
    let unknown = normalised(plain.call("nope", json!({})));
    assert_eq!(unknown["structuredContent"]["error"]["data"]["reason"], json!("unknown_tool"));
}

#[derive(Serialize, JsonSchema)]
struct Total {
    total: i64,
}

/// Panics; would return a total.
#[tool]
fn panics() -> Total {
    panic!("payload")
}

/// Sleeps past its limit; would return a total.
#[tool(timeout_ms = 20)]
async fn slow() -> Total {
    tokio::time::sleep(Duration::from_secs(5)).await;
    Total { total: 0 }
}

/// Refused by the policy; would return a total.
#[tool]
fn refused() -> Total {
    Total { total: 1 }
}

fn server(always: bool) -> RuntimeServer {
    Server::builder("t", "0")
        .tool(panics)
        .tool(slow)
        .tool(refused)
        .policy(|req| (req.tool == "refused").then(|| Refusal::because("never")))
        .structured_errors_always(always)
        .build()
        .expect("builds")
}

#[tokio::test]
async fn panics_timeouts_and_refusals_of_structured_tools_are_text_only() {
    let plain = server(false);
    let always = server(true);
    for (name, reason) in [("panics", "internal_error"), ("slow", "timeout"), ("refused", "tool_unavailable")] {
        let got = normalised(serde_json::to_value(plain.call(name, json!({})).await).expect("serializes"));
        let full = normalised(serde_json::to_value(always.call(name, json!({})).await).expect("serializes"));
        assert_eq!(full["structuredContent"]["error"]["data"]["reason"], json!(reason), "{name}");
        assert_eq!(got, without_structured(full), "{name}");
        let text = got["content"][0]["text"].as_str().expect("text");
        assert!(text.contains(&format!("reason {reason}")), "{name}: {text}");
    }
}
