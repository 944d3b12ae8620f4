use mcp_runtime::__private::{InputSpec, ToolDef};
use mcp_runtime::prelude::*;

/// Not the description: the `description` key wins over the doc comment.
#[tool(
    name = "docs.search-v2",
    title = "Search the docs",
    description = "Searches the documentation.",
    annotations(
        title = "Docs search",
        read_only_hint = true,
        destructive_hint = false,
        idempotent_hint = true,
        open_world_hint = false,
    ),
    icons(icon(src = "https://example.com/search.png", mime_type = "image/png", sizes = "48x48 96x96", theme = "light")),
    meta("com.example/owner" = "docs", retries = 3, beta = true),
    allow_unknown_args,
    asks,
    app_data(Index, std::sync::Mutex<Vec<String>>),
    timeout_ms = 1500,
    task = "optional",
    crate = mcp_runtime,
)]
fn search_docs(query: String) -> String {
    query
}

/// The search index: app data.
struct Index;

fn main() {
    let spec = search_docs::spec();
    assert_eq!(spec.name, "docs.search-v2");
    assert_eq!(spec.title, Some("Search the docs"));
    assert_eq!(spec.description, "Searches the documentation.");
    let a = spec.annotations.expect("annotations");
    assert_eq!(a.title.as_deref(), Some("Docs search"));
    assert_eq!(
        (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint),
        (Some(true), Some(false), Some(true), Some(false))
    );
    assert_eq!(spec.icons.len(), 1);
    assert_eq!(spec.icons[0].src, "https://example.com/search.png");
    assert_eq!(spec.icons[0].mime_type.as_deref(), Some("image/png"));
    assert_eq!(spec.icons[0].sizes, Some(vec!["48x48".to_owned(), "96x96".to_owned()]));
    assert_eq!(spec.icons[0].theme.as_deref(), Some("light"));
    let meta: Vec<String> = spec.meta.iter().map(|(k, v)| format!("{k}={v}")).collect();
    assert_eq!(meta, ["com.example/owner=\"docs\"", "retries=3", "beta=true"]);
    assert!(spec.allow_unknown_args);
    assert!(spec.asks);
    let needs: Vec<std::any::TypeId> = spec.app_data.iter().map(|need| need().0).collect();
    assert_eq!(
        needs,
        [std::any::TypeId::of::<Index>(), std::any::TypeId::of::<std::sync::Mutex<Vec<String>>>()]
    );
    assert!(spec.app_data[0]().1.ends_with("::Index"));
    assert_eq!(spec.timeout_ms, Some(1500));
    assert_eq!(spec.task, Some(mcp_runtime::TaskSupport::Optional));
    assert!(spec.contract.is_empty());
    assert!(matches!(spec.input, InputSpec::Params(_)));

    // `allow_unknown_args`: an extra key is not an error.
    let server = Server::builder("ui", "0.0.0")
        .app_data(Index)
        .app_data(std::sync::Mutex::new(Vec::<String>::new()))
        .tool(search_docs)
        .build()
        .expect("server");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let result = rt.block_on(server.call("docs.search-v2", serde_json::json!({"query": "q", "extra": 1})));
    assert_eq!(result.first_text(), Some("q"));

    // The descriptor `tools/list` sends: keys in the protocol's order, empty ones left out.
    let listed = &server.tool_descriptors()[0];
    let keys: Vec<&str> = listed.as_object().expect("an object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["name", "title", "description", "inputSchema", "annotations", "icons", "_meta"]);
    assert_eq!(
        listed["icons"],
        serde_json::json!([{"src": "https://example.com/search.png", "mimeType": "image/png", "sizes": ["48x48", "96x96"], "theme": "light"}])
    );
    assert_eq!(listed["_meta"].to_string(), r#"{"com.example/owner":"docs","retries":3,"beta":true}"#);
}
