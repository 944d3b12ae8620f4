use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri_template = "notes://{name}", list = all_notes)]
fn note(name: String) -> String {
    name
}

// A `list` fn is awaited: a plain fn is refused (completers may be either).
fn all_notes(_ctx: &Ctx) -> Vec<Resource> {
    Vec::new()
}

fn main() {}
