//! The fixture tools: what `fixture-server` serves and the integration, interop and
//! in-process tests call. Their names, behaviours and texts are a contract other checks
//! rely on; keep them exactly.

use std::time::Duration;

use mcp_runtime::prelude::*;
use mcp_runtime::{Refusal, ServerBuilder, ToolError};

/// Returns the text it is given.
#[tool]
fn echo(
    /// The text to return.
    text: String,
) -> String {
    text
}

/// The sum of two integers.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// `a + b`.
    sum: i64,
}

/// Adds two integers.
#[tool(annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Sum {
    Sum { sum: a.wrapping_add(b) }
}

/// Search hits.
#[derive(Serialize, JsonSchema)]
struct SearchResult {
    /// One line per hit.
    hits: Vec<String>,
}

/// Searches the documentation (synthetic hits that name the query).
#[tool(annotations(read_only_hint = true))]
fn search_docs(
    /// What to look for.
    #[schemars(length(min = 1))]
    query: String,
    /// How many hits to return (default 3).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
) -> SearchResult {
    let hits = (1..=limit.unwrap_or(3)).map(|i| format!("hit {i} for {query}")).collect();
    SearchResult { hits }
}

/// Sleeps for the given number of milliseconds, then says so.
#[tool(timeout_ms = 1000)]
async fn sleep_ms(
    /// How long to sleep.
    ms: u64,
) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("slept {ms}")
}

/// The ids that were fetched.
#[derive(Serialize, JsonSchema)]
struct Items {
    /// The ids, in request order.
    ids: Vec<String>,
}

/// Fetches items by id. `mode` exercises each way a failure can leave a handler.
#[tool]
#[errors(
    reason = "no_match",
    code = NotFound,
    when = "None of the requested ids exist.",
    recovery = "Call search_docs to discover valid ids, then retry."
)]
#[errors(
    reason = "queue_full",
    code = RateLimited,
    retryable = true,
    when = "The work queue is full.",
    recovery = "Wait a few seconds, then call fetch_items again with the same ids."
)]
#[errors(
    reason = "forbidden_id",
    code = Forbidden,
    retryable = false,
    when = "One of the ids is not yours to read.",
    recovery = "Remove the ids you do not own and call fetch_items again.",
    thrown_by = service
)]
async fn fetch_items(
    ctx: &Ctx<FetchItemsError>,
    /// The ids to fetch.
    ids: Vec<String>,
    /// How to behave (a test switch).
    mode: Option<String>,
) -> Result<Items, ToolError> {
    match mode.as_deref() {
        None if ids.is_empty() => {
            Err(ctx.fail(FetchItemsError::NoMatch).message(format!("No data for {} ids", ids.len())))
        }
        Some("queue") => Err(ctx.fail(FetchItemsError::QueueFull)),
        Some("service") => Err(ownership_service(&ids)),
        Some("hint") => Err(ctx.fail(FetchItemsError::NoMatch).hint("Try ids starting with \"a\".")),
        Some("contained") => Err(ctx
            .fail(FetchItemsError::NoMatch)
            .message("No ids matched. Call search_docs to discover valid ids, then retry.")),
        Some("retry_only") => Err(ToolError::service_unavailable("upstream restarting").retryable(true)),
        Some("plain") => Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "disk says no").into()),
        _ => Ok(Items { ids }),
    }
}

/// A service below the handler: it has no `ctx`, and raises a declared reason by name.
fn ownership_service(ids: &[String]) -> ToolError {
    let first = ids.first().map_or("", String::as_str);
    ToolError::forbidden(format!("id {first} is not yours")).reason("forbidden_id")
}

/// Panics (to show that a panicking handler becomes an error result).
#[tool]
fn boom() -> String {
    panic!("secret panic payload")
}

/// A count.
#[derive(Serialize, JsonSchema)]
struct Counted {
    /// At most 10.
    #[schemars(range(max = 10))]
    count: u32,
}

/// Returns output that breaks its own schema, in the way `kind` names.
#[tool]
fn bad_output(
    /// `range` (count 11) or `raw` (structuredContent is a string).
    kind: String,
) -> Structured<Counted> {
    match kind.as_str() {
        "raw" => Structured::raw(CallToolResult {
            content: vec![Content::text("\"not an object\"")],
            structured_content: Some(serde_json::Value::from("not an object")),
            ..CallToolResult::default()
        }),
        _ => Structured::new(Counted { count: 11 }),
    }
}

/// The old report (disabled: replaced by fetch_items).
#[tool]
fn legacy_report() -> String {
    "legacy".into()
}

/// Resets the server (refused by policy outside an operator session).
#[tool]
fn admin_reset() -> String {
    "reset".into()
}

/// The size of a file in bytes.
#[tool]
async fn file_size(
    /// The file's path.
    path: String,
) -> Result<u64, std::io::Error> {
    Ok(tokio::fs::metadata(&path).await?.len())
}

/// Every fixture tool, registered. `strict` turns on strict resolution.
pub fn builder(strict: bool) -> ServerBuilder {
    Server::builder("fixture-server", env!("CARGO_PKG_VERSION"))
        .tool(echo)
        .tool(add)
        .tool(search_docs)
        .tool(sleep_ms)
        .tool(fetch_items)
        .tool(boom)
        .tool(bad_output)
        .disabled_tool(legacy_report, "replaced by fetch_items")
        .tool(admin_reset)
        .tool(file_size)
        .tool(crate::context_tools::work)
        .tool(crate::context_tools::whoami)
        .tool(crate::context_tools::wait_cancel)
        .policy(|req| (req.tool == "admin_reset").then(|| Refusal::because("requires an operator session")))
        .strict_resolution(strict)
}
