//! An MCP Apps view with every declaration, a tool shown in it, and an app-only tool.

use mcp_runtime::prelude::*;

/// The chart a `chart` call draws.
#[resource(
    uri = "ui://chart/view.html",
    ui(
        csp(
            connect_domains("https://api.example.com", "wss://live.example.com"),
            resource_domains("https://*.cdn.example.com"),
            frame_domains("https://player.example.com"),
            base_uri_domains("https://example.com/base/"),
        ),
        permissions(camera, microphone, geolocation, clipboard_write),
        domain = "charts.example.com",
        prefers_border = false,
    )
)]
fn chart_view() -> &'static str {
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Chart</title></head><body></body></html>"
}

/// A bare view: the host's most restrictive defaults.
#[resource(uri = "ui://chart/plain.html", ui)]
fn plain_view() -> String {
    String::from("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Plain</title></head><body></body></html>")
}

/// Draws the values.
#[tool(ui = "ui://chart/view.html", visibility(model, app))]
async fn chart(ctx: &Ctx, values: Vec<f64>) -> String {
    format!("{} values; a view shows them: {}", values.len(), ctx.client_supports_apps())
}

/// Refreshes the chart (called by the view only).
#[tool(ui = "ui://chart/view.html", visibility(app))]
async fn refresh() -> String {
    String::from("refreshed")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let server = Server::builder("charts", "1")
        .resource(chart_view)
        .resource(plain_view)
        .tool(chart)
        .tool(refresh)
        .build()
        .expect("every tool's view is served");
    let read = server.read_resource("ui://chart/view.html").await.expect("reads");
    assert_eq!(read["contents"][0]["_meta"]["ui"]["permissions"]["clipboardWrite"], serde_json::json!({}));
    let refresh = server.tool_descriptors().into_iter().find(|t| t["name"] == "refresh").expect("listed");
    assert_eq!(refresh["_meta"]["ui"], serde_json::json!({"resourceUri": "ui://chart/view.html", "visibility": ["app"]}));
}
