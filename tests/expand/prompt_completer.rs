use mcp_runtime::prelude::*;

/// Asks for a summary of a note.
#[prompt(complete(name = note_names))]
async fn summarize(
    /// The note's name.
    name: String,
    /// `short` or `long`.
    style: Option<String>,
) -> String {
    format!("Summarize {name} ({}).", style.unwrap_or_default())
}

fn note_names(_ctx: &Ctx, typed: String) -> Vec<String> {
    vec![typed]
}

fn main() {}
