use mcp_runtime::prelude::*;

/// Purges the cache.
#[tool(scopes())]
fn purge_cache() -> &'static str {
    "purged"
}

fn main() {}
