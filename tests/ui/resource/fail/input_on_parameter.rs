use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri_template = "notes://{name}")]
fn note(#[input] name: String) -> String {
    name
}

fn main() {}
