use mcp_runtime::prelude::*;

/// Draws the values as a bar chart.
#[tool(ui = "ui://chart/view.html", visibility(model, app))]
async fn chart(values: Vec<f64>) -> String {
    format!("{} values", values.len())
}

/// The chart's view.
#[resource(uri = "ui://chart/view.html", ui(csp(connect_domains("https://api.example.com")), prefers_border = true))]
fn chart_view() -> &'static str {
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Chart</title></head><body></body></html>"
}
fn main() {}
