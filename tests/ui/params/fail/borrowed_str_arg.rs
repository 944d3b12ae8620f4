use mcp_runtime::prelude::*;

/// Creates a task.
#[tool]
fn create_task(title: &str) -> String {
    title.to_owned()
}

fn main() {}
