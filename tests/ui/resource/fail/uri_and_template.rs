use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri = "notes://index", uri_template = "notes://{name}")]
fn note(name: String) -> String {
    name
}

fn main() {}
