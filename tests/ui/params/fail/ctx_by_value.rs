use mcp_runtime::prelude::*;

/// Counts the rows of a table.
#[tool]
fn count_rows(ctx: Ctx, table: String) -> String {
    let _ = ctx;
    table
}

fn main() {
    let _ = Server::builder("ui", "0.0.0").tool(count_rows);
}
