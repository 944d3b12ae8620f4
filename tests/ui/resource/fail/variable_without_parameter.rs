use mcp_runtime::prelude::*;

/// One note, by folder and name.
#[resource(uri_template = "notes://{folder}/{name}")]
fn note(name: String) -> String {
    name
}

fn main() {}
