#![deny(warnings)]

use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;
use mcp_runtime::{Contract, ErrorCode, Severity};

/// Fetches one item. Every declared reason is named in the body or thrown by a service, so
/// there is no warning under `#![deny(warnings)]`.
#[tool]
#[errors(
    reason = "no_match",
    code = NotFound,
    when = "The id does not exist.",
    recovery = "Call search_docs to find a valid id."
)]
#[errors(
    reason = "queue_full",
    code = RateLimited,
    retryable = true,
    severity = warning,
    when = "The queue is full.",
    recovery = "Wait a few seconds, then call fetch_item again."
)]
#[errors(
    reason = "legacy_id",
    code = -32042,
    when = "The id uses the old format.",
    recovery = "Convert the id with convert_id, then call fetch_item again.",
    thrown_by = service
)]
#[errors(
    reason = "gone",
    code = -32001,
    severity = "info",
    when = "The item was deleted.",
    recovery = "Call search_docs to find a replacement for this item."
)]
fn fetch_item(ctx: &Ctx<FetchItemError>, id: String) -> Result<String, ToolError> {
    match id.as_str() {
        "" => Err(ctx.fail(FetchItemError::NoMatch)),
        "busy" => Err(ctx.fail(FetchItemError::QueueFull)),
        // Naming the reason as a string counts too.
        "deleted" => Err(ToolError::not_found("deleted").reason("gone")),
        _ => Ok(id),
    }
}

fn main() {
    let entries = <FetchItemError as Contract>::ENTRIES;
    let reasons: Vec<&str> = entries.iter().map(|e| e.reason).collect();
    assert_eq!(reasons, ["no_match", "queue_full", "legacy_id", "gone"]);
    assert_eq!(entries[1].code, ErrorCode::RateLimited);
    assert_eq!(entries[1].retryable, Some(true));
    assert_eq!(entries[1].severity, Some(Severity::Warning));
    assert_eq!(entries[2].code, ErrorCode::from_i32(-32042));
    // An integer that is a named code is that code, as `ErrorCode::from_i32` gives it.
    assert_eq!(entries[3].code, ErrorCode::NotFound);
    assert_eq!(entries[3].severity, Some(Severity::Info));
    assert_eq!(FetchItemError::QueueFull.as_str(), "queue_full");
    assert_eq!(
        FetchItemError::LegacyId.entry().recovery,
        "Convert the id with convert_id, then call fetch_item again."
    );
    assert_eq!(fetch_item::spec().contract, entries);
}
