use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri = "notes://index")]
fn note(name: String) -> String {
    name
}

fn main() {}
