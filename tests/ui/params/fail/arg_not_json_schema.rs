use mcp_runtime::prelude::*;

#[derive(Deserialize)]
struct Range {
    from: u32,
    to: u32,
}

/// Lists the lines of a file.
#[tool]
fn read_lines(path: String, range: Range) -> String {
    format!("{path}:{}-{}", range.from, range.to)
}

fn main() {}
