//! MCP Apps (`io.modelcontextprotocol/ui`): a view is a resource at a `ui://` URI, HTML with
//! the MIME type [`MIME_TYPE`], that a host renders in a sandboxed iframe and feeds with a
//! tool's input and result; a tool names its view in `_meta.ui.resourceUri`. Nothing here
//! runs per call: `#[resource(ui, ..)]` writes a [`UiResource`] into the resource's spec,
//! `#[tool(ui = "ui://..")]` a [`ToolUi`] into the tool's; resources (`resources.rs`) show
//! the first on the list entry and on the read content, `tools/list` the second; `build()`
//! checks that every tool's view is one of the server's views (`unserved`).
//!
//! The extension is declared (in `initialize` and `server/discover`) only by a server with a
//! view, and costs nothing to one without.

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value, json};

/// The extension's identifier, under `capabilities.extensions`.
pub const EXTENSION: &str = crate::rpc::era::APPS_EXTENSION;

/// The MIME type of an MCP Apps view: an HTML5 document for a host's sandboxed iframe.
pub const MIME_TYPE: &str = crate::rpc::era::APPS_MIME_TYPE;

/// What a view's resource declares for the host that renders it (`_meta.ui` on its
/// `resources/list` entry and on its `resources/read` content): the origins its page may
/// reach, the browser permissions it asks for, a dedicated origin, and whether it wants a
/// border. Everything left out is the host's most restrictive default (no remote origin at
/// all). Written by `#[resource(ui(..))]`:
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// The chart a `chart` call draws.
/// #[resource(
///     uri = "ui://chart/view.html",
///     ui(prefers_border = true, csp(connect_domains("https://api.example.com"))),
/// )]
/// fn chart_view() -> &'static str {
///     "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Chart</title></head><body></body></html>"
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let server = Server::builder("charts", "1").resource(chart_view).build().unwrap();
/// let read = server.read_resource("ui://chart/view.html").await.unwrap();
/// assert_eq!(read["contents"][0]["mimeType"], "text/html;profile=mcp-app");
/// assert_eq!(
///     read["contents"][0]["_meta"]["ui"],
///     serde_json::json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true}),
/// );
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UiResource {
    /// `csp.connectDomains`: origins the page may `fetch`, XHR or open a WebSocket to.
    pub connect_domains: &'static [&'static str],
    /// `csp.resourceDomains`: origins of scripts, styles, images, fonts and media.
    pub resource_domains: &'static [&'static str],
    /// `csp.frameDomains`: origins of nested iframes.
    pub frame_domains: &'static [&'static str],
    /// `csp.baseUriDomains`: origins a `<base>` may name.
    pub base_uri_domains: &'static [&'static str],
    /// `permissions`: the browser features the page asks for (`camera`, `microphone`,
    /// `geolocation`, `clipboardWrite`); a host may grant them or not.
    pub permissions: &'static [Permission],
    /// `domain`: a dedicated origin for the view, in the host's own format.
    pub domain: Option<&'static str>,
    /// `prefersBorder`: whether the host should draw a border and background.
    pub prefers_border: Option<bool>,
}

/// A browser feature a view asks for (`_meta.ui.permissions`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Permission {
    /// `camera`.
    Camera,
    /// `microphone`.
    Microphone,
    /// `geolocation`.
    Geolocation,
    /// `clipboardWrite`.
    ClipboardWrite,
}

impl Permission {
    fn key(self) -> &'static str {
        match self {
            Permission::Camera => "camera",
            Permission::Microphone => "microphone",
            Permission::Geolocation => "geolocation",
            Permission::ClipboardWrite => "clipboardWrite",
        }
    }
}

impl UiResource {
    /// `{"ui": {..}}`, the `_meta` a view's list entry and read content carry.
    pub(crate) fn meta(&self) -> Value {
        json!({"ui": self})
    }
}

impl Serialize for UiResource {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let csp = [
            ("connectDomains", self.connect_domains),
            ("resourceDomains", self.resource_domains),
            ("frameDomains", self.frame_domains),
            ("baseUriDomains", self.base_uri_domains),
        ];
        let csp: Map<String, Value> =
            csp.iter().filter(|(_, d)| !d.is_empty()).map(|(k, d)| ((*k).to_owned(), json!(d))).collect();
        let mut map = serializer.serialize_map(None)?;
        if !csp.is_empty() {
            map.serialize_entry("csp", &csp)?;
        }
        if !self.permissions.is_empty() {
            let asked: Map<String, Value> = self.permissions.iter().map(|p| (p.key().to_owned(), json!({}))).collect();
            map.serialize_entry("permissions", &asked)?;
        }
        if let Some(domain) = self.domain {
            map.serialize_entry("domain", domain)?;
        }
        if let Some(border) = self.prefers_border {
            map.serialize_entry("prefersBorder", &border)?;
        }
        map.end()
    }
}

/// What `#[tool(ui = "ui://..", visibility = [..])]` declares: the view a host renders the
/// tool's results in (`_meta.ui.resourceUri`, which must be a view of this server:
/// `build()` checks it), and who may call the tool (`_meta.ui.visibility`: `"model"`, the
/// agent; `"app"`, a view of this server; both when left out).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolUi {
    /// The view's `ui://` URI.
    pub resource_uri: Option<&'static str>,
    /// `"model"`, `"app"`, or both; empty leaves the key out (the spec's default is both).
    pub visibility: &'static [&'static str],
}

impl ToolUi {
    /// The `_meta` entry `tools/list` carries: `("ui", {"resourceUri": .., "visibility": ..})`.
    pub(crate) fn meta_entry(&self) -> (&'static str, Value) {
        let mut ui = Map::new();
        if let Some(uri) = self.resource_uri {
            ui.insert("resourceUri".into(), Value::from(uri));
        }
        if !self.visibility.is_empty() {
            ui.insert("visibility".into(), json!(self.visibility));
        }
        ("ui", Value::Object(ui))
    }
}

/// The view `ui` names when it is not one of `views` (the server's `ui://` resources).
pub(crate) fn unserved(ui: &ToolUi, views: &[&str]) -> Option<&'static str> {
    ui.resource_uri.filter(|uri| !views.contains(uri))
}

/// The capability a server with views declares: the MIME types of the views it serves.
pub(crate) fn capability(into: &mut Map<String, Value>) {
    crate::features::declare_extension(into, EXTENSION, json!({"mimeTypes": [MIME_TYPE]}));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_declares_only_what_it_sets() {
        assert_eq!(UiResource::default().meta(), json!({"ui": {}}));
        let full = UiResource {
            connect_domains: &["https://api.example.com"],
            resource_domains: &["https://cdn.example.com"],
            frame_domains: &["https://player.example.com"],
            base_uri_domains: &["https://base.example.com"],
            permissions: &[Permission::Camera, Permission::ClipboardWrite],
            domain: Some("charts.example.com"),
            prefers_border: Some(false),
        };
        assert_eq!(
            full.meta(),
            json!({"ui": {
                "csp": {
                    "connectDomains": ["https://api.example.com"],
                    "resourceDomains": ["https://cdn.example.com"],
                    "frameDomains": ["https://player.example.com"],
                    "baseUriDomains": ["https://base.example.com"],
                },
                "permissions": {"camera": {}, "clipboardWrite": {}},
                "domain": "charts.example.com",
                "prefersBorder": false,
            }})
        );
    }

    #[test]
    fn a_tool_must_name_a_view_of_the_server() {
        let chart = ToolUi { resource_uri: Some("ui://chart/view.html"), visibility: &[] };
        let refresh = ToolUi { resource_uri: None, visibility: &["app"] };
        assert_eq!(unserved(&chart, &["ui://chart/view.html"]), None);
        assert_eq!(unserved(&refresh, &[]), None, "a tool without a view names none");
        assert_eq!(unserved(&chart, &["ui://chart/other.html"]), Some("ui://chart/view.html"));
        assert_eq!(chart.meta_entry(), ("ui", json!({"resourceUri": "ui://chart/view.html"})));
        assert_eq!(refresh.meta_entry(), ("ui", json!({"visibility": ["app"]})));
    }
}
