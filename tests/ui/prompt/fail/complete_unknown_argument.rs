use mcp_runtime::prelude::*;

/// Summarizes a note.
#[prompt(complete(nmae = note_names))]
fn summarize(name: String) -> String {
    format!("Summarize {name}.")
}

fn note_names(_ctx: &Ctx, typed: String) -> Vec<String> {
    vec![typed]
}

fn main() {}
