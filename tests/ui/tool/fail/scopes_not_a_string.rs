use mcp_runtime::prelude::*;

/// Purges the cache.
#[tool(scopes(cache_purge, 7))]
fn purge_cache() -> &'static str {
    "purged"
}

fn main() {}
