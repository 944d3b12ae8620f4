use mcp_runtime::prelude::*;

/// Echoes its argument.
#[tool]
fn echo(text: impl ToString, times: Option<impl Into<u8>>) -> String {
    let _ = times;
    text.to_string()
}

fn main() {
    let _ = Server::builder("ui", "0.0.0").tool(echo);
}
