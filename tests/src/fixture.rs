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
fn fetch_items(
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
        // Data of the author's, and a key of the runtime's that the runtime's value overrides.
        Some("data") => Err(ctx
            .fail(FetchItemsError::NoMatch)
            .hint("Use one of the ids listed in the details.")
            .data(serde_json::json!({"known": ["a1", "b2"], "reason": "not_this", "note": "line one\nline two"}))),
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

/// The old report (disabled: replaced by `fetch_items`).
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

/// A point on the globe.
#[derive(Serialize, JsonSchema)]
struct Location {
    /// Latitude in degrees.
    lat: f64,
    /// Longitude in degrees.
    lon: f64,
}

/// Returns the point it is given.
#[tool]
fn locate(
    /// Latitude in degrees.
    lat: f64,
    /// Longitude in degrees.
    lon: f64,
) -> Location {
    Location { lat, lon }
}

/// A facet of the host. (Its variants have no doc comments, so its schema is a plain
/// `enum`; `Kind`'s are documented, so its schema is a `oneOf` of `const`s.)
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Facet {
    Os,
    Cpu,
    Memory,
}

/// Names the facet it is asked for.
#[tool]
fn facet(
    /// Which facet.
    what: Facet,
) -> String {
    match what {
        Facet::Os => "os",
        Facet::Cpu => "cpu",
        Facet::Memory => "memory",
    }
    .into()
}

/// Options of `configure`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Opts {
    /// The only option.
    a: String,
}

/// One item of `configure`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Item {
    /// The item's name.
    name: String,
}

/// Applies a configuration and describes it.
#[tool]
fn configure(
    /// The options.
    opts: Opts,
    /// How many rows.
    rows: Option<i64>,
    /// The items.
    items: Option<Vec<Item>>,
) -> String {
    let names: Vec<String> = items.unwrap_or_default().into_iter().map(|i| i.name).collect();
    format!("a={} rows={} items={}", opts.a, rows.map_or_else(|| "none".into(), |r| r.to_string()), names.join(","))
}

/// A kind of `choose`.
#[derive(Deserialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Kind {
    /// The first kind.
    X,
    /// The second kind.
    Y,
}

/// What `choose` picks: by kind and amount, or anything else by name.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Spec {
    /// By kind.
    ByKind {
        /// The kind.
        kind: Kind,
        /// The amount.
        n: f64,
    },
    /// By name.
    Other {
        /// The name.
        other: String,
    },
}

/// Picks by a spec and describes the pick.
#[tool]
fn choose(
    /// What to pick.
    spec: Spec,
) -> String {
    match spec {
        Spec::ByKind { kind: Kind::X, n } => format!("x {n}"),
        Spec::ByKind { kind: Kind::Y, n } => format!("y {n}"),
        Spec::Other { other } => format!("other {other}"),
    }
}

/// Registers an account (every keyword of the validator has a field here).
#[tool]
fn register(
    /// The schema version: always `v1`.
    #[schemars(extend("const" = "v1"))]
    tag: String,
    /// Three capital letters.
    #[schemars(regex(pattern = r"^[A-Z]{3}$"))]
    code: String,
    /// One to three distinct tags.
    #[schemars(length(min = 1, max = 3), extend("uniqueItems" = true))]
    tags: Vec<String>,
    /// A contact address.
    #[schemars(email)]
    email: String,
    /// A step, in halves.
    #[schemars(extend("multipleOf" = 0.5))]
    step: f64,
    /// A ratio strictly between 0 and 1.
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1))]
    ratio: f64,
) -> String {
    let _ = (tag, code, tags, email, step, ratio);
    "ok".into()
}

/// A node of a tree of integers.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Node {
    /// This node's value.
    value: i64,
    /// The node's children.
    children: Vec<Node>,
}

/// The total of a tree's values.
#[derive(Serialize, JsonSchema)]
struct TreeSum {
    /// The sum of every node's value.
    sum: i64,
}

/// Sums the values of a tree (its input type is recursive: listed with `$defs` and `$ref`).
#[tool]
fn tree_sum(
    /// The root of the tree.
    root: Node,
) -> TreeSum {
    fn total(node: &Node) -> i64 {
        node.children.iter().fold(node.value, |sum, child| sum.wrapping_add(total(child)))
    }
    TreeSum { sum: total(&root) }
}

/// `find`, whose whole input is a serde internally tagged enum. In a module of its own:
/// the code `#[tool]` generates for an `#[input]` parameter trips clippy's
/// `redundant_closure_for_method_calls`, and only a module-level `allow` reaches it.
#[allow(clippy::redundant_closure_for_method_calls)]
mod find_tool {
    use mcp_runtime::prelude::*;

    /// How `find` looks things up.
    #[derive(Deserialize, JsonSchema)]
    #[serde(tag = "mode", rename_all = "camelCase", deny_unknown_fields)]
    pub(crate) enum FindInput {
        /// By id.
        ById {
            /// The id.
            id: String,
        },
        /// By name.
        ByName {
            /// The name.
            name: String,
        },
    }

    /// Finds a thing by id or by name.
    #[tool]
    pub(crate) fn find(#[input] q: FindInput) -> String {
        match q {
            FindInput::ById { id } => format!("id {id}"),
            FindInput::ByName { name } => format!("name {name}"),
        }
    }
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
        .tool(locate)
        .tool(facet)
        .tool(configure)
        .tool(choose)
        .tool(register)
        .tool(find_tool::find)
        .tool(tree_sum)
        .tool(crate::context_tools::work)
        .tool(crate::context_tools::whoami)
        .tool(crate::context_tools::wait_cancel)
        .tool(crate::context_tools::log_sources)
        .tool(crate::context_tools::pause_stream)
        .tool(crate::ask_tools::confirm_delete)
        .tool(crate::ask_tools::summarize)
        .tool(crate::ask_tools::list_roots)
        .tool(crate::ask_tools::ask_all)
        .tool(crate::ask_tools::keep_asking)
        .tool(crate::ask_tools::count_rounds)
        .tool(crate::state_tools::put_item)
        .tool(crate::state_tools::delete_item)
        .tool(crate::state_tools::next_id)
        .tool(crate::state_tools::claim)
        .tool(crate::context_tools::purge_cache)
        .tool(crate::secret_tools::blob)
        .tool(crate::task_tools::slow_job)
        .tool(crate::task_tools::report)
        .tool(crate::app_tools::chart)
        .resource(crate::secret_tools::secret)
        .resource(crate::app_tools::chart_view)
        .prompt(crate::secret_tools::secret_brief)
        .policy(|req| (req.tool == "admin_reset").then(|| Refusal::because("requires an operator session")))
        .strict_resolution(strict)
}

/// The `notifications/message` lines the fixture tool `work` (1 step) sends at these levels,
/// in order, with its `tracing` event at info.
pub fn work_logs(levels: &[&str]) -> Vec<serde_json::Value> {
    let message = |level: &str, logger: &str, data: serde_json::Value| serde_json::json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": level, "logger": logger, "data": data}});
    let mut out: Vec<_> =
        levels.iter().map(|l| message(l, "work", serde_json::json!(format!("{l} from work")))).collect();
    if levels.contains(&"info") {
        out.push(message(
            "info",
            "mcp_tests::context_tools",
            serde_json::json!({"message": "tracing event from work", "steps": 1}),
        ));
    }
    out
}
