//! `Server::call`: the production pipeline without a transport gives what a client gets over
//! stdio; and building a server refuses duplicate tool names with an error, not a panic.

use mcp_runtime::prelude::*;
use mcp_runtime::{Error, Server as RuntimeServer};
use mcp_tests::client::{Client, take_request_id};
use serde_json::{Value, json};

fn fixture() -> RuntimeServer {
    mcp_tests::fixture::builder(false).build().expect("the fixture server builds")
}

fn over_stdio() -> Client {
    let mut c = Client::spawn(env!("CARGO_BIN_EXE_fixture-server"), &[]);
    c.initialize();
    c
}

async fn local(server: &RuntimeServer, name: &str, args: Value) -> Value {
    serde_json::to_value(server.call(name, args).await).expect("a result serializes")
}

#[tokio::test]
async fn a_call_in_process_returns_what_stdio_returns() {
    let server = fixture();
    let mut c = over_stdio();
    let expected = json!({"content": [{"type": "text", "text": "{\"sum\":5}"}], "structuredContent": {"sum": 5}});
    assert_eq!(local(&server, "add", json!({"a": 2, "b": 3})).await, expected);
    assert_eq!(c.call("add", json!({"a": 2, "b": 3})), expected);

    let typed = server.call("add", json!({"a": 2, "b": 3})).await;
    assert_eq!(typed.is_error, None);
    assert_eq!(typed.structured_content, Some(json!({"sum": 5})));

    for (name, args) in [
        ("echo", json!({"text": "same"})),
        ("search_docs", json!({"query": "q", "limit": 2})),
        ("sleep_ms", json!({"ms": 5})),
        ("fetch_items", json!({"ids": ["a", "b"]})),
    ] {
        assert_eq!(local(&server, name, args.clone()).await, c.call(name, args.clone()), "{name} {args}");
    }
}

fn normalised(mut result: Value) -> Value {
    take_request_id(&mut result);
    result
}

#[tokio::test]
async fn failures_in_process_are_the_same_envelopes() {
    let server = fixture();
    let mut c = over_stdio();
    let expected = json!({
        "content": [{"type": "text", "text": "Error: Unknown tool: ehco.\n\nRecovery: Re-run tools/list and retry. Did you mean echo?\n\n(reason unknown_tool · not retryable · request <RID>)"}],
        "structuredContent": {"error": {"code": -32602, "message": "Unknown tool: ehco.", "data": {
            "reason": "unknown_tool",
            "retryable": false,
            "recovery": {"hint": "Re-run tools/list and retry. Did you mean echo?"},
            "requestId": "<RID>",
        }}},
        "isError": true,
    });
    assert_eq!(normalised(local(&server, "ehco", json!({})).await), expected);
    assert_eq!(normalised(c.call("ehco", json!({}))), expected);

    for (name, args) in [
        ("legacy_report", json!({})),
        ("admin_reset", json!({})),
        ("boom", json!({})),
        ("bad_output", json!({"kind": "range"})),
        ("fetch_items", json!({"ids": [], "mode": "service"})),
        ("add", json!({"a": 1, "b": 2, "c": 3})),
    ] {
        let here = normalised(local(&server, name, args.clone()).await);
        assert_eq!(here["isError"], json!(true), "{name}: {here}");
        assert_eq!(here, normalised(c.call(name, args.clone())), "{name} {args}");
    }
}

#[tokio::test]
async fn strict_resolution_never_applies_in_process() {
    let server = mcp_tests::fixture::builder(true).build().expect("build");
    let result = normalised(local(&server, "legacy_report", json!({})).await);
    assert_eq!(
        result["structuredContent"]["error"],
        json!({"code": -32005, "message": "Tool unavailable: legacy_report. Reason: replaced by fetch_items.", "data": {
            "reason": "tool_unavailable",
            "retryable": false,
            "recovery": {"hint": "Pick another tool from tools/list; this one cannot be called now."},
            "requestId": "<RID>",
        }})
    );
    let result = normalised(local(&server, "nope", json!({})).await);
    assert_eq!(result["structuredContent"]["error"]["message"], json!("Unknown tool: nope."));
}

/// The first tool called `same`.
#[tool(name = "same")]
fn first() -> String {
    "first".into()
}

/// The second tool called `same`.
#[tool(name = "same")]
fn second() -> String {
    "second".into()
}

/// Another tool.
#[tool]
fn other() -> String {
    "other".into()
}

#[test]
fn duplicate_tool_names_are_an_error_not_a_panic() {
    let built =
        std::panic::catch_unwind(|| Server::builder("dup", "1.0.0").tool(first).tool(other).tool(second).build());
    let Ok(result) = built else { panic!("building a server with duplicate names panicked") };
    match result {
        Err(Error::DuplicateTool(name)) => assert_eq!(name, "same"),
        Err(e) => panic!("expected DuplicateTool, got {e}"),
        Ok(_) => panic!("a server with two tools named `same` was built"),
    }
    let message = Server::builder("dup", "1.0.0").tool(first).tool(first).build().err().expect("an error").to_string();
    assert_eq!(
        message,
        "two tools are named `same`; tool names must be unique (rename one with #[tool(name = \"…\")])"
    );
    // The same tool once, with others, builds.
    let server = Server::builder("ok", "1.0.0").tool(first).tool(other).build().expect("unique names build");
    assert_eq!(
        server.tool_descriptors().iter().map(|d| d["name"].clone()).collect::<Vec<_>>(),
        [json!("same"), json!("other")]
    );
}

#[tokio::test]
async fn a_disabled_duplicate_is_still_a_duplicate() {
    let result = Server::builder("dup", "1.0.0").tool(first).disabled_tool(second, "gone").build();
    assert!(matches!(result, Err(Error::DuplicateTool(ref n)) if n == "same"), "{:?}", result.err());
    let server = Server::builder("ok", "1.0.0").tool(other).tool(first).build().expect("build");
    assert_eq!(local(&server, "same", json!({})).await, json!({"content": [{"type": "text", "text": "first"}]}));
}

/// The greeting the server was built with.
struct Greeting(&'static str);

/// Greets someone with the server's greeting.
#[tool]
fn greet(ctx: &Ctx, name: String) -> Result<String, ToolError> {
    Ok(format!("{}, {name}.", ctx.app_data::<Greeting>()?.0))
}

#[tokio::test]
async fn state_is_read_with_a_question_mark_and_missing_state_is_a_configuration_error() {
    let with_state = RuntimeServer::builder("s", "1").tool(greet).app_data(Greeting("Hello")).build().expect("builds");
    assert_eq!(with_state.call("greet", json!({"name": "Ada"})).await.first_text(), Some("Hello, Ada."));

    let without = RuntimeServer::builder("s", "1").tool(greet).build().expect("builds");
    let result = normalised(local(&without, "greet", json!({"name": "Ada"})).await);
    // The missing type is the operator's business: it goes to the log, not to the caller.
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "Error: The server is misconfigured: this tool cannot run.\n\nRecovery: Do not retry; report the request id to the server operator.\n\n(not retryable · request <RID>)"}],
            "structuredContent": {"error": {"code": -32008, "message": "The server is misconfigured: this tool cannot run.", "data": {
                "retryable": false,
                "recovery": {"hint": "Do not retry; report the request id to the server operator."},
                "requestId": "<RID>",
            }}},
            "isError": true,
        })
    );
}

/// Greets someone with the server's greeting, declaring that it reads it.
#[tool(app_data(Greeting))]
fn greet_declared(ctx: &Ctx, name: String) -> Result<String, ToolError> {
    Ok(format!("{}, {name}.", ctx.app_data::<Greeting>()?.0))
}

/// Issue 33 item 10: a tool that declares the app data it reads (`#[tool(app_data(T))]`)
/// fails `build()` (and `add_tool`) naming the type when none was registered, instead of
/// failing every call at run time.
#[tokio::test]
async fn a_declared_app_data_type_that_was_not_registered_fails_the_build() {
    let err = RuntimeServer::builder("s", "1").tool(greet_declared).build().err().expect("refused");
    assert!(
        matches!(&err, Error::MissingAppData { tool, type_name } if tool == "greet_declared" && type_name.ends_with("::Greeting")),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("tool `greet_declared` reads app data `") && message.contains("add `.app_data(value)`"),
        "{message}"
    );

    let built =
        RuntimeServer::builder("s", "1").tool(greet_declared).app_data(Greeting("Hello")).build().expect("builds");
    assert_eq!(built.call("greet_declared", json!({"name": "Ada"})).await.first_text(), Some("Hello, Ada."));

    // Added while running: refused the same way, and not listed.
    let bare = RuntimeServer::builder("s", "1").build().expect("builds");
    assert!(matches!(bare.add_tool(greet_declared), Err(Error::MissingAppData { .. })));
    assert!(bare.tool_descriptors().is_empty());
    // A disabled tool cannot run: it needs nothing.
    assert!(RuntimeServer::builder("s", "1").disabled_tool(greet_declared, "off").build().is_ok());
}

/// Keeps a running total in the session (it needs one).
#[tool(needs_session)]
fn running_total() -> String {
    "0".into()
}

#[test]
fn a_tool_that_needs_a_session_refuses_a_stateless_server() {
    let err = RuntimeServer::builder("t", "0").tool(running_total).stateless_http(true).build().err().expect("refused");
    assert!(matches!(&err, Error::NeedsSession(tool) if tool == "running_total"), "{err}");
    let message = err.to_string();
    assert!(message.contains("stateless_http(true)") && message.contains("--stateless"), "{message}");
    assert!(RuntimeServer::builder("t", "0").tool(running_total).build().is_ok());
}

#[tokio::test]
async fn a_panicking_policy_fails_the_call_like_a_panicking_handler() {
    let server =
        RuntimeServer::builder("t", "0").tool(running_total).policy(|_| panic!("policy bug")).build().expect("builds");
    let result = normalised(local(&server, "running_total", json!({})).await);
    assert_eq!(
        result,
        json!({
            "content": [{"type": "text", "text": "Error: Tool running_total failed unexpectedly.\n\nRecovery: Retry the call once; if it fails again, report the request id to the server operator.\n\n(reason internal_error · request <RID>)"}],
            "structuredContent": {"error": {"code": -32603, "message": "Tool running_total failed unexpectedly.", "data": {
                "reason": "internal_error",
                "recovery": {"hint": "Retry the call once; if it fails again, report the request id to the server operator."},
                "requestId": "<RID>",
            }}},
            "isError": true,
        })
    );
}

/// Halves an even number; an odd one is a plain `String` failure.
#[tool]
fn halve(n: i64) -> Result<i64, String> {
    if n % 2 == 0 { Ok(n / 2) } else { Err(format!("{n} is odd")) }
}

/// Refuses, with a `&'static str` failure.
#[tool]
fn refuse() -> Result<String, &'static str> {
    Err("not today")
}

#[tokio::test]
async fn string_errors_are_plain_failures_with_their_message() {
    let server = RuntimeServer::builder("strings", "1").tool(halve).tool(refuse).build().expect("the server builds");
    assert_eq!(local(&server, "halve", json!({"n": 4})).await["structuredContent"], json!({"result": 2}));
    // A plain failure (`InternalError`) with its message, no reason and no recovery. `halve`
    // has an output schema, so its error envelope is text only.
    let text = "Error: 3 is odd\n\n(request <RID>)";
    let expected = json!({"content": [{"type": "text", "text": text}], "isError": true});
    assert_eq!(normalised(local(&server, "halve", json!({"n": 3})).await), expected);
    let text = "Error: not today\n\n(request <RID>)";
    let expected = json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"error": {"code": -32603, "message": "not today", "data": {"requestId": "<RID>"}}},
        "isError": true,
    });
    assert_eq!(normalised(local(&server, "refuse", json!({})).await), expected);
}

/// The failure modes shared by the item tools.
#[contract]
enum ItemError {
    #[errors(code = NotFound, when = "No item has this id.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// Imports one item: the shared contract, and a reason of its own.
#[tool(contract = ItemError)]
#[errors(
    reason = "too_large",
    code = ValidationError,
    retryable = false,
    when = "The item is larger than 1 MiB.",
    recovery = "Split the item into parts under 1 MiB and import each."
)]
fn import_item(ctx: &Ctx<ImportItemError>, id: String, bytes: u64) -> Result<String, ToolError> {
    if id.is_empty() {
        return Err(ctx.fail(ItemError::NoSuchItem));
    }
    if bytes > 1 << 20 {
        return Err(ctx.fail(ImportItemError::TooLarge));
    }
    Ok(id)
}

/// Issue 33 item 5: a tool with a shared contract and a reason of its own raises both, each
/// with its declared code and recovery, and `tools/list` shows both (its own first).
#[tokio::test]
async fn a_shared_contract_and_the_tools_own_reasons_are_raised_and_listed() {
    let server = RuntimeServer::builder("s", "1").tool(import_item).build().expect("builds");
    let shared = normalised(local(&server, "import_item", json!({"id": "", "bytes": 1})).await);
    assert_eq!(shared["structuredContent"]["error"]["code"], -32001, "{shared}");
    assert_eq!(shared["structuredContent"]["error"]["data"]["reason"], "no_such_item", "{shared}");
    assert_eq!(
        shared["structuredContent"]["error"]["data"]["recovery"]["hint"], "Call search_items to find a valid id.",
        "{shared}"
    );
    let own = normalised(local(&server, "import_item", json!({"id": "a", "bytes": 2_000_000})).await);
    assert_eq!(own["structuredContent"]["error"]["code"], -32007, "{own}");
    assert_eq!(own["structuredContent"]["error"]["data"]["reason"], "too_large", "{own}");
    assert_eq!(own["structuredContent"]["error"]["data"]["retryable"], false, "{own}");

    let listed = &server.tool_descriptors()[0]["_meta"][mcp_runtime::FAILURES_META_KEY];
    let reasons: Vec<&str> = listed.as_array().expect("listed").iter().filter_map(|f| f["reason"].as_str()).collect();
    assert_eq!(reasons, ["too_large", "no_such_item"], "{listed}");
}

// ---- the test client (issue 46 rows 14 to 16) ------------------------------------------

/// Yes or no.
#[derive(Deserialize, JsonSchema)]
struct GoAhead {
    /// Go ahead?
    yes: bool,
}

/// Asks before it answers.
#[tool]
fn ask_first(ctx: &Ctx) -> Result<String, ToolError> {
    match ctx.inputs().form::<GoAhead>("go") {
        Elicited::Accepted(GoAhead { yes }) => Ok(format!("yes={yes}")),
        Elicited::Missing => Err(ctx.ask(Ask::new().elicit("go", Elicitation::form_for::<GoAhead>("Go ahead?")))),
        _ => Err(ToolError::forbidden("declined")),
    }
}

/// Reports progress `n` times, then says so.
#[tool]
fn chatty(ctx: &Ctx, n: u32) -> String {
    for i in 0..n {
        ctx.progress(f64::from(i) + 1.0, Some(f64::from(n)), None);
    }
    format!("{n} reports")
}

fn client_server() -> RuntimeServer {
    RuntimeServer::builder("tc", "1").tool(ask_first).tool(chatty).build().expect("builds")
}

#[tokio::test]
async fn answering_and_capabilities_compose_in_either_order() {
    use mcp_runtime::testing::{Era, TestClient};
    let server = client_server();
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let yes = |_: &str, _: &Value| json!({"action": "accept", "content": {"yes": true}});
    for era in [Era::Legacy, Era::Modern] {
        let first = TestClient::new(&server, era).capabilities(tasks.clone()).answering(yes);
        let second = TestClient::new(&server, era).answering(yes).capabilities(tasks.clone());
        for mut client in [first, second] {
            let out = client.call("ask_first", json!({})).await;
            assert_eq!(out["content"][0]["text"], "yes=true", "{era:?}: {out}");
        }
    }
}

#[tokio::test]
async fn the_test_client_keeps_every_notification_or_says_it_could_not() {
    use mcp_runtime::testing::{Era, TestClient};
    let server = client_server();
    let mut client = TestClient::new(&server, Era::Legacy);
    let out = client.call("chatty", json!({"n": 20_000})).await;
    assert_eq!(out["content"][0]["text"], "20000 reports");
    assert_eq!(client.notifications().len(), 20_000);

    // With a budget too small, the test fails loudly instead of seeing fewer.
    let server = client_server();
    let failed = tokio::spawn(async move {
        let mut client = TestClient::new(&server, Era::Legacy).notification_budget(4096);
        client.call("chatty", json!({"n": 20_000})).await
    })
    .await
    .expect_err("the client panics");
    let message = failed.into_panic();
    let message = message.downcast_ref::<String>().map(String::as_str).unwrap_or_default();
    assert!(
        message.contains("notifications to this TestClient") && message.contains(".notification_budget("),
        "{message}"
    );
}

/// A tool added while a client listens.
#[tool]
fn late() -> String {
    "late".into()
}

#[tokio::test]
async fn the_test_client_opens_and_reads_a_listen_stream() {
    use mcp_runtime::testing::{Era, TestClient};
    let server = client_server();
    let mut client = TestClient::new(&server, Era::Modern);
    let (id, honoured) =
        client.listen(json!({"toolsListChanged": true, "promptsListChanged": true})).await.expect("acknowledged");
    assert_eq!(honoured, json!({"toolsListChanged": true}), "a server without prompts honours tools only");
    server.add_tool(late).expect("added");
    let start = std::time::Instant::now();
    let heard = loop {
        let heard = client.notifications();
        if !heard.is_empty() || start.elapsed() > std::time::Duration::from_secs(10) {
            break heard;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    };
    assert_eq!(
        heard,
        [json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": id}}})]
    );
    client.stop_listening(id);
    // A refused listen is its error.
    let refused = client.listen(json!({"toolsListChanged": "yes"})).await.expect_err("refused");
    assert_eq!(refused["code"], -32602, "{refused}");
}
