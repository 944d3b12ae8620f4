use mcp_runtime::__private::{PromptDef, ResourceDef, ToolDef};
use mcp_runtime::prelude::*;

/// Purges the cache.
#[tool(scopes("cache:purge", "admin"))]
fn purge_cache() -> &'static str {
    "purged"
}

/// Echoes, with no scope.
#[tool]
fn echo(text: String) -> String {
    text
}

/// The audit log.
#[resource(uri = "audit://log", scopes("audit:read"))]
fn audit_log() -> &'static str {
    "nothing happened"
}

/// Asks for an audit summary.
#[prompt(scopes("audit:read"))]
fn audit_summary() -> &'static str {
    "Summarize the audit log."
}

fn main() {
    assert_eq!(<purge_cache as ToolDef>::spec().scopes, ["cache:purge", "admin"]);
    assert!(<echo as ToolDef>::spec().scopes.is_empty());
    assert_eq!(<audit_log as ResourceDef>::spec().scopes, ["audit:read"]);
    assert_eq!(<audit_summary as PromptDef>::spec().scopes, ["audit:read"]);
}
