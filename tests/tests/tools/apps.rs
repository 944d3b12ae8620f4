//! MCP Apps (`io.modelcontextprotocol/ui`) on the wire, in both eras: a view's list entry and
//! read content carry its MIME type and `_meta.ui`, a tool's `tools/list` entry its
//! `_meta.ui`; the extension is declared by a server with a view only; `build()` and
//! `add_tool` refuse a tool whose view is not served, naming both; `ctx.client_supports_apps()`
//! follows what the client declared; a tool with a view still answers with text.

use mcp_runtime::prelude::*;
use mcp_runtime::testing::{Era, TestClient};
use serde_json::{Value, json};

const UI: &str = "io.modelcontextprotocol/ui";
const MIME: &str = "text/html;profile=mcp-app";
const VIEW: &str = include_str!("../../apps/chart-view.html");

fn fixture() -> Server {
    mcp_tests::fixture::builder(false).build().expect("the fixture builds")
}

fn apps_client(server: &Server, era: Era) -> TestClient {
    TestClient::new(server, era).capabilities(json!({"extensions": {UI: {"mimeTypes": [MIME]}}}))
}

#[tokio::test]
async fn the_chart_and_its_view_carry_meta_ui_in_both_eras() {
    let server = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let mut client = apps_client(&server, era);
        let tools = client.list_tools().await;
        let chart = tools.iter().find(|t| t["name"] == "chart").expect("chart is listed");
        assert_eq!(
            chart["_meta"],
            json!({
                "ui": {"resourceUri": "ui://chart/view.html"},
                "io.crates.mcp-runtime/failures": [{
                    "reason": "no_values",
                    "code": -32602,
                    "retryable": false,
                    "when": "There is nothing to draw: `values` is empty.",
                    "recovery": "Send at least one number in `values`, such as `{\"values\": [3, 1, 4]}`.",
                }],
            }),
            "{era:?}"
        );
        let listed = client.request("resources/list", json!({})).await.expect("lists");
        let view = listed["resources"].as_array().expect("a list").iter().find(|r| r["uri"] == "ui://chart/view.html");
        assert_eq!(
            view,
            Some(&json!({
                "uri": "ui://chart/view.html",
                "name": "chart_view",
                "description": "The chart view: one HTML page that draws the values of the `chart` call it is shown for. It loads nothing remote.",
                "mimeType": MIME,
                "_meta": {"ui": {"prefersBorder": true}},
            })),
            "{era:?}"
        );
        let read = client.read("ui://chart/view.html").await.expect("reads");
        assert_eq!(
            read["contents"],
            json!([{"uri": "ui://chart/view.html", "mimeType": MIME, "text": VIEW, "_meta": {"ui": {"prefersBorder": true}}}]),
            "{era:?}"
        );
        let out = client.call("chart", json!({"values": [3, 1, 4]})).await;
        assert_eq!(out["structuredContent"], json!({"values": [3.0, 1.0, 4.0], "min": 1.0, "max": 4.0}), "{era:?}");
    }
}

#[tokio::test]
async fn a_client_without_the_extension_still_gets_the_text() {
    let server = fixture();
    for era in [Era::Legacy, Era::Modern] {
        let out = TestClient::new(&server, era).call("chart", json!({"values": [2, 7]})).await;
        assert_eq!(
            out["content"],
            json!([
                {"type": "text", "text": "{\"values\":[2.0,7.0],\"min\":2.0,\"max\":7.0}"},
                {"type": "text", "text": "A bar chart of 2 values from 2 to 7: 2, 7."},
            ]),
            "{era:?}"
        );
    }
}

/// Whether a view will show this call's result.
#[tool]
fn shown(ctx: &Ctx) -> bool {
    ctx.client_supports_apps()
}

#[tokio::test]
async fn ctx_tells_whether_the_client_declared_the_extension() {
    let server = Server::builder("apps", "1").tool(shown).build().expect("builds");
    for era in [Era::Legacy, Era::Modern] {
        let declared = apps_client(&server, era).call("shown", json!({})).await;
        assert_eq!(declared["structuredContent"], json!({"result": true}), "{era:?}: {declared}");
        for caps in
            [json!({}), json!({"extensions": {UI: {}}}), json!({"extensions": {UI: {"mimeTypes": ["text/uri-list"]}}})]
        {
            let out = TestClient::new(&server, era).capabilities(caps.clone()).call("shown", json!({})).await;
            assert_eq!(out["structuredContent"], json!({"result": false}), "{era:?}: {caps}");
        }
    }
}

#[tokio::test]
async fn only_a_server_with_a_view_declares_the_extension() {
    let extensions = |server: &Server| {
        let server = server.clone();
        async move {
            let discover = TestClient::new(&server, Era::Modern).request("server/discover", json!({})).await;
            discover.expect("discovers")["capabilities"].get("extensions").cloned().unwrap_or(Value::Null)
        }
    };
    assert_eq!(
        extensions(&fixture()).await,
        json!({UI: {"mimeTypes": [MIME]}, "io.modelcontextprotocol/tasks": {}}),
        "the view's extension, beside the tasks' (the fixture has task tools)"
    );
    let plain = Server::builder("plain", "1").tool(shown).build().expect("builds");
    assert_eq!(extensions(&plain).await, Value::Null, "no view, no extension");
}

/// The chart again, under another name: its view is not served by the servers below.
#[tool(ui = "ui://chart/view.html")]
fn orphan() -> String {
    String::new()
}

/// Another view.
#[resource(uri = "ui://other/view.html", ui)]
fn other_view() -> &'static str {
    "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Other</title></head><body></body></html>"
}

#[test]
fn build_refuses_a_tool_whose_view_is_not_served() {
    let Err(err) = Server::builder("apps", "1").tool(orphan).build() else { panic!("builds without the view") };
    assert_eq!(
        err.to_string(),
        "tool `orphan` shows its results in `ui://chart/view.html`, which is not a view of this server; declare it with `#[resource(ui, uri = \"ui://chart/view.html\")]` and register it with `.resource(..)`"
    );
    let Err(err) = Server::builder("apps", "1").resource(other_view).tool(orphan).build() else {
        panic!("builds with another view")
    };
    assert_eq!(
        err.to_string(),
        "tool `orphan` shows its results in `ui://chart/view.html`, which is not a view of this server; the views are `ui://other/view.html`: fix the tool's `ui`, or register the resource at `ui://chart/view.html`"
    );
    let server = Server::builder("apps", "1").resource(other_view).build().expect("builds");
    assert!(matches!(server.add_tool(orphan), Err(mcp_runtime::Error::UnknownView { .. })), "add_tool refuses it too");
    assert!(server.tool_descriptors().is_empty());
}
