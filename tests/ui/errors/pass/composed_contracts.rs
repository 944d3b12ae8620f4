#![deny(warnings)]

use mcp_runtime::__private::ToolDef;
use mcp_runtime::ErrorCode;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestCtx;

/// The failure modes of the item store.
#[contract]
pub enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
    NoSuchItem,
}

/// The failure modes of the import queue.
#[contract]
pub enum QueueError {
    #[errors(code = RateLimited, when = "The queue is full.", recovery = "Wait a few seconds, then call this tool again.")]
    QueueFull,
}

/// A helper shared by every tool whose contract takes `ItemError`, whatever its reason enum.
fn missing<R: Contract>(ctx: &Ctx<R>, id: &str) -> ToolError
where
    ItemError: ReasonOf<R>,
{
    ctx.fail(ItemError::NoSuchItem).message(format!("no item {id}"))
}

/// Imports one item: two shared contracts, and a reason of its own.
#[tool(contract = (ItemError, QueueError))]
#[errors(
    reason = "too_large",
    code = ValidationError,
    when = "The item is larger than 1 MiB.",
    recovery = "Split the item into parts under 1 MiB and import each."
)]
fn import_item(ctx: &Ctx<ImportItemError>, id: String, bytes: u64) -> Result<String, ToolError> {
    if id.is_empty() {
        return Err(missing(ctx, &id));
    }
    if id == "busy" {
        return Err(ctx.fail(QueueError::QueueFull));
    }
    if bytes > 1 << 20 {
        return Err(ctx.fail(ImportItemError::TooLarge));
    }
    Ok(id)
}

/// Moves one item: two shared contracts and no reason of its own.
#[tool(contract = (ItemError, QueueError))]
fn move_item(ctx: &Ctx<MoveItemError>, id: String) -> Result<String, ToolError> {
    if id.is_empty() {
        return Err(missing(ctx, &id));
    }
    Err(ctx.fail(QueueError::QueueFull))
}

fn main() {
    // The contract table: the tool's own reasons, then each shared contract's, in order.
    let reasons: Vec<&str> = <ImportItemError as Contract>::ENTRIES.iter().map(|e| e.reason).collect();
    assert_eq!(reasons, ["too_large", "no_such_item", "queue_full"]);
    assert_eq!(import_item::spec().contract, <ImportItemError as Contract>::ENTRIES);
    let reasons: Vec<&str> = <MoveItemError as Contract>::ENTRIES.iter().map(|e| e.reason).collect();
    assert_eq!(reasons, ["no_such_item", "queue_full"]);
    assert_eq!(move_item::spec().contract, <MoveItemError as Contract>::ENTRIES);

    // `ctx.fail` takes the reasons of both contracts; the helper serves both tools.
    let ctx = TestCtx::new().build::<ImportItemError>();
    let err = import_item::handler(&ctx, String::new(), 0).unwrap_err();
    assert_eq!((err.code(), err.reason_str()), (ErrorCode::NotFound, Some("no_such_item")));
    let err = import_item::handler(&ctx, "busy".into(), 0).unwrap_err();
    assert_eq!((err.code(), err.reason_str()), (ErrorCode::RateLimited, Some("queue_full")));
    let err = import_item::handler(&ctx, "a".into(), 2 << 20).unwrap_err();
    assert_eq!(err.reason_str(), Some("too_large"));
    let ctx = TestCtx::new().build::<MoveItemError>();
    let err = move_item::handler(&ctx, String::new()).unwrap_err();
    assert_eq!(err.reason_str(), Some("no_such_item"));
    assert_eq!(ctx.recovery_for(QueueError::QueueFull), "Wait a few seconds, then call this tool again.");

    // Served: a shared reason gets its declared hint filled in.
    let server = Server::builder("ui", "0").tool(import_item).tool(move_item).build().expect("builds");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let result = rt.block_on(server.call("move_item", serde_json::json!({"id": "x"})));
    let text = result.first_text().expect("text");
    assert!(text.starts_with("Error: The queue is full.\n\nRecovery: Wait a few seconds, then call this tool again."), "{text}");
}
