//! The attributes against a renamed dependency. This test crate depends on the runtime only as
//! `renamed_runtime`, so `::mcp_runtime` does not resolve here: the macros find the runtime's
//! name in this crate's Cargo.toml (issue 34 item 9), and `#[tool(crate = …)]` /
//! `#[contract(crate = …)]` still override it. Any generated path that named
//! `::mcp_runtime` would fail to compile.

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
#[tool]
fn echo(#[input] message: Message) -> String {
    message.text
}

/// Failure modes shared by tools.
#[contract]
enum Lookup {
    #[errors(code = NotFound, when = "The key does not exist.", recovery = "Call echo to check the key you send.")]
    NoSuchKey,
}

/// Looks a key up.
#[tool(contract = Lookup)]
fn lookup(ctx: &Ctx<Lookup>, key: String) -> Result<String, ToolError> {
    if key.is_empty() { Err(ctx.fail(Lookup::NoSuchKey)) } else { Ok(key) }
}

/// A greeting, with its own failure mode.
#[resource(uri_template = "greetings://{name}")]
#[errors(
    reason = "nobody",
    code = NotFound,
    when = "The name is empty.",
    recovery = "Read greetings://someone with a name in it."
)]
fn greeting(ctx: &Ctx<GreetingError>, name: String) -> Result<String, ToolError> {
    if name.is_empty() { Err(ctx.fail(GreetingError::Nobody)) } else { Ok(format!("Hello, {name}")) }
}

/// Asks for a summary.
#[prompt]
fn summarise(text: String) -> String {
    format!("Summarise: {text}")
}

#[tokio::test]
async fn tools_generated_with_a_renamed_runtime_serve_calls() {
    // `structuredContent.error` on every error, so that the contract's parts can be read.
    let server = Server::builder("renamed", "0.0.0")
        .tool(add)
        .tool(echo)
        .tool(lookup)
        .resource(greeting)
        .prompt(summarise)
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

    let read = server.read_resource("greetings://Ada").await.expect("read");
    assert_eq!(read["contents"][0]["text"], "Hello, Ada");
    let prompt = server.get_prompt("summarise", json!({"text": "t"})).await.expect("prompt");
    assert_eq!(prompt["messages"][0]["content"]["text"], "Summarise: t");
}
