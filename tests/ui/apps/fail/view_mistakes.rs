use mcp_runtime::prelude::*;

/// A view at a template.
#[resource(uri_template = "ui://chart/{name}", ui)]
fn by_name(name: String) -> String {
    name
}

/// A view outside `ui://`.
#[resource(uri = "https://example.com/chart.html", ui)]
fn remote() -> &'static str {
    ""
}

/// A view of another type.
#[resource(uri = "ui://chart/plain.html", mime_type = "text/html", ui)]
fn plain() -> &'static str {
    ""
}

/// Origins a host cannot copy into its policy as they are.
#[resource(
    uri = "ui://chart/origins.html",
    ui(csp(connect_domains("https://api.example.com; script-src *"), resource_domains("cdn.example.com")))
)]
fn origins() -> &'static str {
    ""
}

/// Permissions misspelt or asked twice, and a key the view has not.
#[resource(uri = "ui://chart/asks.html", ui(permissions(camra, microphone, microphone), border = true))]
fn asks() -> &'static str {
    ""
}

fn main() {}
