use mcp_runtime::prelude::*;

#[derive(JsonSchema)]
struct Report {
    lines: u32,
}

/// Counts lines.
#[tool]
fn count_lines(text: String) -> Report {
    Report { lines: u32::try_from(text.lines().count()).unwrap_or(u32::MAX) }
}

fn main() {}
