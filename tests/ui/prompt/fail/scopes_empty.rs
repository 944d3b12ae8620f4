use mcp_runtime::prelude::*;

/// Asks for an audit summary.
#[prompt(scopes())]
fn audit_summary() -> &'static str {
    "Summarize the audit log."
}

fn main() {}
