//! A description written with `#[doc = include_str!(..)]` or `#[doc = concat!(..)]` (issue 34
//! item 6): rustc expands it, and the description is the lines joined by newlines, as written.

use mcp_runtime::__private::{PromptDef, ResourceDef, ToolDef};
use mcp_runtime::prelude::*;

#[doc = include_str!("doc_from_macros.md")]
#[tool]
fn define(word: String) -> String {
    word
}

/// Counts the letters of a word,
#[doc = concat!("at most ", stringify!(64), " of them.")]
#[tool]
fn letters(word: String) -> usize {
    word.len().min(64)
}

/// A word of the day.
#[doc = concat!("Changes every ", "day.")]
#[resource(uri = "words://today")]
fn today() -> String {
    "serendipity".to_owned()
}

#[doc = concat!("Asks for a poem about a word.")]
#[prompt]
fn poem(
    #[doc = concat!("The ", "word.")]
    word: String,
) -> String {
    format!("Write a poem about {word}.")
}

fn main() {
    assert_eq!(define::INFO.description, "Looks a word up in the dictionary.\n");
    assert_eq!(letters::INFO.description, "Counts the letters of a word,\nat most 64 of them.");
    assert_eq!(<today as ResourceDef>::spec().description, "A word of the day.\nChanges every day.");
    let spec = <poem as PromptDef>::spec();
    assert_eq!(spec.description, "Asks for a poem about a word.");
    assert_eq!(spec.arguments[0].description, Some("The word."));
    let server = Server::builder("ui", "0.0.0").tool(define).tool(letters).resource(today).prompt(poem).build();
    assert!(server.is_ok());
}
