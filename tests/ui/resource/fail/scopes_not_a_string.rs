use mcp_runtime::prelude::*;

/// The audit log.
#[resource(uri = "audit://log", scopes(audit::read))]
fn audit_log() -> &'static str {
    "nothing happened"
}

fn main() {}
