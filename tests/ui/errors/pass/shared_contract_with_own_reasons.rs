#![deny(warnings)]

use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;
use mcp_runtime::testing::TestCtx;
use mcp_runtime::{Contract, ErrorCode};

/// The failure modes shared by the item tools.
#[contract]
pub enum ItemError {
    #[errors(code = NotFound, when = "The id does not exist.", recovery = "Call search_items to find a valid id.")]
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
        // A reason of the shared contract, raised by its own name.
        return Err(ctx.fail(ItemError::NoSuchItem));
    }
    if bytes > 1 << 20 {
        return Err(ctx.fail(ImportItemError::TooLarge));
    }
    Ok(id)
}

fn main() {
    // The contract table: the tool's own reasons, then the shared contract's.
    let reasons: Vec<&str> = <ImportItemError as Contract>::ENTRIES.iter().map(|e| e.reason).collect();
    assert_eq!(reasons, ["too_large", "no_such_item"]);
    assert_eq!(import_item::spec().contract, <ImportItemError as Contract>::ENTRIES);
    assert_eq!(ImportItemError::TooLarge.as_str(), "too_large");

    // `ctx.fail` takes both; the declared hints are there for both.
    let ctx = TestCtx::new().build::<ImportItemError>();
    let shared = import_item::handler(&ctx, String::new(), 0).unwrap_err();
    assert_eq!((shared.code(), shared.reason_str()), (ErrorCode::NotFound, Some("no_such_item")));
    let own = import_item::handler(&ctx, "a".into(), 2 << 20).unwrap_err();
    assert_eq!((own.code(), own.reason_str(), own.is_retryable()), (ErrorCode::ValidationError, Some("too_large"), Some(false)));
    assert_eq!(ctx.recovery_for(ItemError::NoSuchItem), "Call search_items to find a valid id.");
    assert_eq!(ctx.recovery_for(ImportItemError::TooLarge), "Split the item into parts under 1 MiB and import each.");

    // Served: a shared reason raised deep in a service gets its declared hint filled in.
    let server = Server::builder("ui", "0").tool(import_item).build().expect("builds");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let result = rt.block_on(server.call("import_item", serde_json::json!({"id": "", "bytes": 1})));
    let text = result.first_text().expect("text");
    assert!(text.starts_with("Error: The id does not exist.\n\nRecovery: Call search_items to find a valid id."), "{text}");
}
