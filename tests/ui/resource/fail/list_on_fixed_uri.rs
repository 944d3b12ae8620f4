use mcp_runtime::prelude::*;

/// The index of all notes.
#[resource(uri = "notes://index", list = all_notes)]
fn index() -> &'static str {
    "# Notes"
}

fn all_notes(_ctx: &Ctx) -> Vec<Resource> {
    Vec::new()
}

fn main() {}
