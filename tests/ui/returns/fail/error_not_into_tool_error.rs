use mcp_runtime::prelude::*;

#[derive(Debug)]
struct ParseFailure;

/// Parses a number.
#[tool]
fn parse_number(text: String) -> Result<String, ParseFailure> {
    text.parse::<i64>().map(|n| n.to_string()).map_err(|_| ParseFailure)
}

fn main() {}
