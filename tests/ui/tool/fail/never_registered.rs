#![deny(dead_code)]

use mcp_runtime::prelude::*;

/// Lists the tasks.
#[tool]
fn list_tasks() -> String {
    String::new()
}

/// Adds a task.
#[tool]
fn add_task(title: String) -> String {
    title
}

fn main() {
    let _ = Server::builder("tasks", "1").tool(add_task);
}
