use mcp_runtime::prelude::*;

struct Report {
    lines: u32,
}

/// Counts lines.
#[tool]
async fn count_lines(path: String) -> Result<Report, std::io::Error> {
    let text = std::fs::read_to_string(path)?;
    Ok(Report { lines: u32::try_from(text.lines().count()).unwrap_or(u32::MAX) })
}

fn main() {}
