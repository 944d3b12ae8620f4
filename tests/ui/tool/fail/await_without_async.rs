use mcp_runtime::prelude::*;

async fn load() -> String {
    String::new()
}

/// Lists the tasks.
#[tool]
fn list_tasks() -> String {
    load().await
}

fn main() {}
