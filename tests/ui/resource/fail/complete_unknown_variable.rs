use mcp_runtime::prelude::*;

/// One note, by name.
#[resource(uri_template = "notes://{name}", complete(nmae = note_names))]
fn note(name: String) -> String {
    name
}

fn note_names(_ctx: &Ctx, typed: String) -> Vec<String> {
    vec![typed]
}

fn main() {}
