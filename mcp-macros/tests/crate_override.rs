//! `#[tool(crate = …)]` and `#[contract(crate = …)]` against a renamed dependency. This test
//! crate depends on the runtime only as `renamed_runtime`, so `::mcp_runtime` does not
//! resolve here: any generated path that ignored the override would fail to compile.

use renamed_runtime::prelude::*;
use serde_json::json;

/// The sum of two integers.
#[derive(Serialize, JsonSchema)]
#[schemars(crate = "renamed_runtime::schemars")]
struct Sum {
    /// `a + b`.
    sum: i64,
}

/// Adds two integers.
#[renamed_runtime::tool(crate = renamed_runtime, annotations(read_only_hint = true))]
#[errors(
    reason = "overflow",
    code = ValidationError,
    when = "The sum does not fit in an i64.",
    recovery = "Call add again with numbers of smaller magnitude."
)]
async fn add(ctx: &Ctx<AddError>, a: i64, b: i64) -> Result<Sum, ToolError> {
    tokio::task::yield_now().await;
    a.checked_add(b).map(|sum| Sum { sum }).ok_or_else(|| ctx.fail(AddError::Overflow))
}

/// What to echo.
#[derive(Deserialize, JsonSchema)]
#[schemars(crate = "renamed_runtime::schemars")]
struct Message {
    /// The text.
    text: String,
}

/// Returns the text it is given.
#[tool(crate = renamed_runtime)]
fn echo(#[input] message: Message) -> String {
    message.text
}

/// Failure modes shared by tools.
#[contract(crate = renamed_runtime)]
enum Lookup {
    #[errors(code = NotFound, when = "The key does not exist.", recovery = "Call echo to check the key you send.")]
    NoSuchKey,
}

/// Looks a key up.
#[tool(crate = renamed_runtime, contract = Lookup)]
fn lookup(ctx: &Ctx<Lookup>, key: String) -> Result<String, ToolError> {
    if key.is_empty() { Err(ctx.fail(Lookup::NoSuchKey)) } else { Ok(key) }
}

#[tokio::test]
async fn tools_generated_with_a_renamed_runtime_serve_calls() {
    // `structuredContent.error` on every error, so that the contract's parts can be read.
    let server = Server::builder("renamed", "0.0.0")
        .tool(add)
        .tool(echo)
        .tool(lookup)
        .structured_errors_always(true)
        .build()
        .expect("server");

    let ok = server.call("add", json!({"a": 2, "b": 3})).await;
    assert_eq!(ok.structured_content, Some(json!({"sum": 5})));

    let failed = server.call("add", json!({"a": i64::MAX, "b": 1})).await;
    assert_eq!(failed.is_error, Some(true));
    let error = &failed.structured_content.expect("an error envelope")["error"];
    assert_eq!(error["data"]["reason"], "overflow");
    assert_eq!(error["code"], -32007);
    assert_eq!(error["data"]["recovery"]["hint"], "Call add again with numbers of smaller magnitude.");

    let echoed = server.call("echo", json!({"text": "hi"})).await;
    assert_eq!(echoed.first_text(), Some("hi"));

    let missing = server.call("lookup", json!({"key": ""})).await;
    let error = &missing.structured_content.expect("an error envelope")["error"];
    assert_eq!(error["data"]["reason"], "no_such_key");
}
