use mcp_runtime::prelude::*;

/// The notes carrying some tags.
#[resource(uri_template = "notes://tagged/{tags}")]
fn tagged(tags: Vec<String>) -> String {
    tags.join(",")
}

fn main() {}
