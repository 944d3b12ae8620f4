use mcp_runtime::prelude::*;

/// Counts to three on a blocking thread, with an `async` block it never awaits itself.
#[tool]
fn count() -> String {
    let later = async { std::future::ready(3).await };
    drop(later);
    "3".to_owned()
}

fn main() {
    let _ = Server::builder("counter", "1").tool(count);
}
