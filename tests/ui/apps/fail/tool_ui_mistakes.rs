use mcp_runtime::prelude::*;

/// Names a resource that is not a view.
#[tool(ui = "notes://index")]
async fn not_a_view() -> String {
    String::new()
}

/// Names who may call it wrongly.
#[tool(ui = "ui://chart/view.html", visibility(modle, app, app))]
async fn misnamed() -> String {
    String::new()
}

/// Names nobody.
#[tool(visibility())]
async fn nobody() -> String {
    String::new()
}

fn main() {}
