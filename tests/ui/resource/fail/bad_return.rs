use mcp_runtime::prelude::*;

/// How many notes there are.
#[resource(uri = "notes://count")]
fn count() -> u32 {
    3
}

fn main() {}
