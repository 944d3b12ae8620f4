use mcp_runtime::prelude::*;

/// Reads a file.
#[tool]
fn read_file(ctx: &Ctx, path: &str) -> String {
    let _ = ctx;
    path.to_owned()
}

fn main() {}
