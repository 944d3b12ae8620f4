//! The code `#[tool]` generates names everything by absolute path (`::core::…`,
//! `::mcp_runtime::…`), so it compiles in a module without the prelude; so does the arguments
//! struct that a `#[schemars]` parameter brings, whose derives write `Some(..)` and `.into()`
//! (issue 34 item 7).

/// What to fetch.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Query {
    /// The id.
    pub id: String,
}

#[no_implicit_prelude]
mod tools {
    /// Fetches one item.
    #[::mcp_runtime::tool]
    #[errors(
        reason = "no_match",
        code = NotFound,
        when = "The id does not exist.",
        recovery = "Call search_docs to find a valid id."
    )]
    #[errors(
        reason = "legacy",
        code = -32042,
        retryable = true,
        severity = warning,
        when = "The id has the old format.",
        recovery = "Convert the id with convert_id, then call fetch_item again."
    )]
    pub async fn fetch_item(
        ctx: &::mcp_runtime::Ctx<FetchItemError>,
        #[input] query: super::Query,
    ) -> ::std::result::Result<::std::string::String, ::mcp_runtime::ToolError> {
        if query.id.is_empty() {
            return ::std::result::Result::Err(ctx.fail(FetchItemError::Legacy));
        }
        ::std::result::Result::Err(ctx.fail(FetchItemError::NoMatch))
    }

    /// Says hello.
    #[::mcp_runtime::tool(
        title = "Hello",
        annotations(read_only_hint = true),
        icons(icon(src = "https://example.com/hello.png", sizes = "48x48")),
        meta(owner = "docs", retries = 3),
        timeout_ms = 100
    )]
    pub fn hello() -> ::mcp_runtime::Structured<::std::vec::Vec<u8>> {
        ::mcp_runtime::Structured::new(::std::vec::Vec::new())
    }

    /// Lists items, a page at a time.
    #[::mcp_runtime::tool]
    pub fn list_items(
        /// How many, from 1 to 50.
        #[schemars(range(min = 1, max = 50), extend("examples" = [10]))]
        limit: u32,
        /// Only items with this tag.
        #[schemars(length(min = 1), regex(pattern = r"^[a-z]+$"))]
        #[serde(default)]
        tag: ::core::option::Option<::std::string::String>,
    ) -> ::std::string::String {
        ::std::format!("{limit} {tag:?}")
    }
}

fn main() {
    let server = mcp_runtime::Server::builder("ui", "0.0.0")
        .tool(tools::fetch_item)
        .tool(tools::hello)
        .tool(tools::list_items)
        .build()
        .expect("server");
    let schema = &server.tool_descriptors()[2]["inputSchema"];
    assert_eq!(schema["properties"]["limit"]["maximum"], 50);
    assert_eq!(schema["properties"]["tag"]["pattern"], "^[a-z]+$");
}
