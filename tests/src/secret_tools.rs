//! Fixture items guarded by a scope, and a tool whose answer is as large as asked: what the
//! hostile-client checks of Streamable HTTP read, list, complete and replay.

use mcp_runtime::prelude::*;

/// The secrets the template lists and completes.
const NAMES: [&str; 3] = ["alpha", "beta", "gamma"];

/// Every secret, for `resources/list`. (A lister is an `async fn` of `&Ctx`, even when it has
/// nothing to wait for.)
#[allow(clippy::unused_async)]
async fn secret_names(_ctx: &Ctx) -> Vec<Resource> {
    NAMES.iter().map(|n| Resource::new(format!("secret://{n}"), *n)).collect()
}

/// The names that start with what was typed.
#[allow(clippy::unused_async)]
async fn complete_secret(_ctx: &Ctx, value: String) -> Vec<String> {
    NAMES.iter().filter(|n| n.starts_with(&value)).map(|n| (*n).to_owned()).collect()
}

/// A secret, for callers whose token grants `secret:read`.
#[resource(
    uri_template = "secret://{name}",
    mime_type = "text/plain",
    list = secret_names,
    complete(name = complete_secret),
    scopes("secret:read")
)]
pub(crate) fn secret(name: String) -> String {
    format!("the secret {name}")
}

/// A briefing on one secret, for callers whose token grants `secret:read`.
#[prompt(complete(name = complete_secret), scopes("secret:read"))]
pub(crate) fn secret_brief(
    /// The secret's name.
    name: String,
) -> String {
    format!("Brief me on the secret {name}.")
}

/// A text of `bytes` characters, after one progress notification when `progress` is true (so
/// that over Streamable HTTP the answer travels as an SSE stream).
#[tool]
pub(crate) fn blob(
    ctx: &Ctx,
    /// How many characters (at most 16 MiB).
    #[schemars(range(max = 16_777_216))]
    bytes: u32,
    /// Send a progress notification first.
    #[serde(default)]
    progress: bool,
) -> String {
    if progress {
        ctx.progress(0.0, Some(1.0), Some("writing"));
    }
    "x".repeat(bytes as usize)
}
