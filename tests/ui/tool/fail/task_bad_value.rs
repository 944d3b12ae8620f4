use mcp_runtime::prelude::*;

/// Builds the monthly report.
#[tool(task = "always")]
async fn report() -> String {
    "done".into()
}

fn main() {}
