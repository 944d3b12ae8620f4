use mcp_runtime::prelude::*;

/// Fetches one item. Every mistake in its `#[errors]` is reported in the same build.
#[tool]
#[errors(reason = "NoMatch", code = NotFund, when = "", recovery = "Retry.", severity = loud)]
#[errors(reason = "queue_full", code = RateLimited, when = "The queue is full.")]
#[errors(
    reason = "queue_full",
    code = RateLimited,
    when = "The queue is full.",
    recovery = "Wait a few seconds, then call fetch_item again."
)]
fn fetch_item(id: String) -> String {
    id
}

fn main() {}
