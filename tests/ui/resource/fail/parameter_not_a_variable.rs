use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri_template = "notes://{name}")]
fn note(name: String, version: u32) -> String {
    format!("{name} v{version}")
}

fn main() {}
