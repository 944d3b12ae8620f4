use mcp_runtime::prelude::*;

/// Summarizes a note.
#[prompt(complete(name = note_names))]
fn summarize(name: String) -> String {
    format!("Summarize {name}.")
}

fn note_names(_ctx: &Ctx, typed: String) -> Vec<u32> {
    vec![typed.len() as u32]
}

fn main() {}
