use mcp_runtime::prelude::*;

/// One note, by folder and name.
#[resource(uri_template = "notes://{folder}{name}")]
fn note(folder: String, name: String) -> String {
    format!("{folder}{name}")
}

fn main() {}
