//! What a newcomer meets in the first hour, at run time: plain errors whose causes the
//! server chooses to send (capped), I/O errors with advice by kind, a cancelled call that
//! ends quietly, and handlers called directly in unit tests with `Ctx::for_test`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestCtx;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

/// An error with a cause with a cause, as `anyhow` contexts or layered services make.
#[derive(Debug)]
struct Layer(&'static str, Option<Box<Layer>>);

impl std::fmt::Display for Layer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Layer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.1.as_deref().map(|l| l as &(dyn std::error::Error + 'static))
    }
}

/// Fails with a layered plain error.
#[tool]
fn load_tasks() -> Result<String, ToolError> {
    let chain = Layer(
        "parsing tasks.json as a task list",
        Some(Box::new(Layer("EOF while parsing an object at line 2 column 0", None))),
    );
    Err(ToolError::from_error(chain))
}

/// Fails with an author's message over a layered source: sent as written.
#[tool]
fn authored() -> Result<String, ToolError> {
    Err(ToolError::internal("The task store is unavailable.")
        .with_source(Layer("pool", Some(Box::new(Layer("db.internal:5432 refused", None))))))
}

/// Waits for the client to cancel, then says so.
#[tool]
async fn gives_up(ctx: &Ctx) -> Result<String, ToolError> {
    ctx.cancelled().await;
    Err(ToolError::cancelled())
}

/// Reads a file, naming the path it was given when that fails.
#[tool]
fn read_note(path: String) -> Result<String, ToolError> {
    std::fs::read_to_string(&path).map_err(|e| ToolError::io_at(&path, e))
}

fn message(result: &CallToolResult) -> String {
    let structured = result.structured_content.as_ref().expect("structuredContent");
    structured["error"]["message"].as_str().expect("message").to_owned()
}

#[tokio::test]
async fn plain_error_causes_are_sent_only_when_the_server_opts_in_and_are_capped() {
    let off = Server::builder("t", "1").tool(load_tasks).tool(authored).build().expect("build");
    assert_eq!(message(&off.call("load_tasks", json!({})).await), "parsing tasks.json as a task list");

    let on = Server::builder("t", "1").tool(load_tasks).tool(authored).error_causes(1024).build().expect("build");
    let result = on.call("load_tasks", json!({})).await;
    let full = "parsing tasks.json as a task list: EOF while parsing an object at line 2 column 0";
    assert_eq!(message(&result), full);
    assert!(result.first_text().expect("text").starts_with(&format!("Error: {full}\n")), "{result:?}");
    // An author's message is theirs: its source stays in the log.
    assert_eq!(message(&on.call("authored", json!({})).await), "The task store is unavailable.");

    let capped = Server::builder("t", "1").tool(load_tasks).error_causes(10).build().expect("build");
    assert_eq!(message(&capped.call("load_tasks", json!({})).await), "parsing tasks.json as a task list: EOF whil…");
}

#[tokio::test]
async fn io_errors_carry_advice_by_kind_and_the_path_only_when_the_author_gives_it() {
    let server = Server::builder("t", "1").tool(read_note).build().expect("build");
    let path = "/nonexistent-dir-for-mcp-tests/todo.md";
    let result = server.call("read_note", json!({"path": path})).await;
    let error = &result.structured_content.as_ref().expect("structuredContent")["error"];
    assert_eq!(error["code"], json!(-32001));
    assert_eq!(error["message"], json!(format!("`{path}`: No such file or directory (os error 2)")));
    assert_eq!(error["data"]["retryable"], json!(false));
    let hint = error["data"]["recovery"]["hint"].as_str().expect("hint");
    assert!(hint.contains("list what exists"), "{hint}");

    // Interrupted kinds are worth retrying.
    let interrupted = ToolError::from(std::io::Error::from(std::io::ErrorKind::Interrupted));
    assert_eq!(interrupted.is_retryable(), Some(true));
    let other = ToolError::from(std::io::Error::other("odd"));
    assert_eq!(other.is_retryable(), None);
}

/// Log records written while a test runs on this thread.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        std::io::Write::write(&mut *self.0.lock().expect("lock"), buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_handler_that_ends_on_cancellation_sends_nothing_and_logs_nothing_above_debug() {
    let logs = Captured::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _default = tracing::subscriber::set_default(subscriber);
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let lines: Vec<Value> = rt.block_on(async {
        let server =
            Server::builder("t", "1").tool(gives_up).cancel_grace(Duration::from_secs(2)).build().expect("build");
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (their_read, their_write) = tokio::io::split(theirs);
        let serving = tokio::spawn(server.serve(their_read, their_write));
        let (our_read, mut writer) = tokio::io::split(ours);
        let mut reader = tokio::io::BufReader::new(our_read).lines();
        let send = |line: Value| format!("{line}\n");
        for line in [
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "gives_up"}}),
        ] {
            writer.write_all(send(line).as_bytes()).await.expect("write");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
        writer.write_all(send(cancel).as_bytes()).await.expect("write");
        tokio::time::sleep(Duration::from_millis(100)).await;
        writer.write_all(send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).as_bytes()).await.expect("write");
        writer.shutdown().await.expect("shutdown");
        let mut lines = Vec::new();
        while let Ok(Ok(Some(line))) = tokio::time::timeout(Duration::from_secs(10), reader.next_line()).await {
            lines.push(serde_json::from_str(&line).expect("JSON"));
        }
        serving.await.expect("serve task").expect("serve ends on EOF");
        lines
    });
    let ids: Vec<&Value> = lines.iter().map(|l| &l["id"]).collect();
    assert_eq!(ids, [&json!(0), &json!(2)], "nothing answers the cancelled call: {lines:?}");
    let logs = String::from_utf8(logs.0.lock().expect("lock").clone()).expect("utf-8");
    assert!(logs.contains("the call ended after the client cancelled it"), "{logs}");
    for line in logs.lines().filter(|l| l.contains("gives_up") || l.contains("cancelled")) {
        assert!(line.contains("DEBUG"), "recorded above debug: {line}\n{logs}");
    }
}

/// Greets someone the way the server is configured to.
#[tool]
fn greet(ctx: &Ctx, name: String) -> Result<String, ToolError> {
    Ok(format!("{}, {name}", ctx.app_data::<Greeting>()?.0))
}

struct Greeting(&'static str);

#[tokio::test]
async fn handlers_run_directly_with_a_test_context() {
    let ctx = TestCtx::new().app_data(Greeting("Hello")).build();
    assert_eq!(greet::handler(&ctx, "Ada".into()).expect("greets"), "Hello, Ada");
    // Without the state, the same misconfiguration a server would report.
    let bare = TestCtx::new().build();
    assert_eq!(
        greet::handler(&bare, "Ada".into()).expect_err("no state").code(),
        mcp_runtime::ErrorCode::ConfigurationError
    );
    // Cancellation can be tested too.
    let ctx = TestCtx::new().build();
    TestCtx::cancel(&ctx);
    assert_eq!(gives_up::handler(&ctx).await.expect_err("cancelled").reason_str(), Some("cancelled"));
}
