use mcp_runtime::prelude::*;

struct Database;

/// Counts the rows of a table.
#[tool]
fn count_rows(db: &Database, table: String) -> String {
    let _ = db;
    table
}

fn main() {}
