//! A tool, resource or prompt is named like the variables of its module (issue 34 item 1,
//! issue 33 item 3): its name is a fn, which a `let` or a parameter of the same name shadows,
//! where a unit struct or a `const` would turn each of them into a pattern.

use mcp_runtime::prelude::*;

/// Runs a query.
#[tool]
fn query(text: String) -> String {
    text
}

/// Counts the words of a text.
#[tool]
fn count(text: String) -> usize {
    let count = text.split_whitespace().count();
    count
}

/// Searches: its parameter is named like the tool above.
#[tool]
fn search(query: String, limit: Option<u32>) -> String {
    let count = limit.unwrap_or(10);
    format!("{query} ({count})")
}

/// One bookmark.
#[resource(uri_template = "bookmarks://{bookmark}")]
fn bookmark(bookmark: String) -> String {
    let count = bookmark.len();
    format!("{bookmark}: {count}")
}

/// Summarises a bookmark.
#[prompt]
fn summary(bookmark: String) -> String {
    let summary = format!("Summarise {bookmark}.");
    summary
}

/// Everything at once, in a fn of the same module.
fn helper(query: &str, bookmark: &str) -> String {
    let count = query.len() + bookmark.len();
    let summary = count.to_string();
    let search = summary.clone();
    search
}

fn main() {
    assert_eq!(helper("ab", "c"), "3");
    // The handlers as written, for unit tests.
    assert_eq!(count::handler("a b c".into()), 3);
    assert_eq!(search::handler("q".into(), None), "q (10)");
    let server = Server::builder("ui", "0.0.0")
        .tool(query)
        .tool(count)
        .tool(search)
        .resource(bookmark)
        .prompt(summary)
        .build()
        .expect("server");
    let names: Vec<String> = server.tool_descriptors().iter().map(|t| t["name"].to_string()).collect();
    assert_eq!(names, [r#""query""#, r#""count""#, r#""search""#]);
    server.add_tool(query).expect("registered again");
    server.add_prompt(summary);

    // A local of the tool's name, after the tools: only the value changes.
    let query = "local";
    assert_eq!(query, "local");
}
