use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri = "notes://{name}")]
fn note() -> &'static str {
    "a note"
}

fn main() {}
