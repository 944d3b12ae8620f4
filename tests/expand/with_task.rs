use mcp_runtime::prelude::*;

/// Builds the monthly report (a long job: always a task for clients that can poll).
#[tool(task = "required")]
async fn report() -> String {
    "done".into()
}

fn main() {}
