//! Names a user's module may hold, which the generated code must not depend on (the cases of
//! issue 34 that held up, kept from regressing): std's names shadowed (`Result`, `Option`,
//! `Vec`, `String`, `Some`, `Ok`, ..), modules named `serde`, `std`, `core` and `schemars`,
//! types named `Ctx`, `ToolError` and `Value`, raw identifiers, a unicode parameter, quotes and
//! braces in every text. Both ways of reading arguments are used: the parameter table, and the
//! derived arguments struct that a `#[schemars]` parameter brings.

#[allow(dead_code)]
mod shadowing {
    pub struct Result;
    pub struct Option;
    pub struct Vec;
    pub struct String;
    pub struct Box;
    pub struct Value;
    pub struct Ctx;
    pub struct ToolError;
    pub struct Some;
    pub struct None;
    pub struct Ok;
    pub struct Err;
    pub mod serde {}
    pub mod std {}
    pub mod core {}
    pub mod schemars {}

    /// Says "hello" to {name} (`{}` and "quotes" kept).
    #[::mcp_runtime::tool(title = "Say \"hi\" {now}", annotations(title = "{\"a\"}"))]
    #[::mcp_runtime::errors(
        reason = "no_name",
        code = NotFound,
        when = "The \"name\" is {empty}.",
        recovery = "Call r#type again with a \"name\" that is not {empty}."
    )]
    pub fn r#type(
        ctx: &::mcp_runtime::Ctx<TypeError>,
        /// The "name" of {whom}.
        r#name: ::std::string::String,
        /// Größe in {cm}.
        größe: ::core::option::Option<u32>,
    ) -> ::core::result::Result<::std::string::String, ::mcp_runtime::ToolError> {
        if r#name.is_empty() {
            return ::core::result::Result::Err(ctx.fail(TypeError::NoName));
        }
        ::core::result::Result::Ok(::std::format!("hello \"{name}\" {{{}}}", größe.unwrap_or(0)))
    }

    /// Lists "things" in {braces}.
    #[::mcp_runtime::tool]
    pub fn r#match(
        /// At most {this} many.
        #[schemars(range(min = 1, max = 50))]
        r#limit: u32,
        #[serde(default)] größe: ::core::option::Option<::std::vec::Vec<::std::string::String>>,
    ) -> ::core::result::Result<::mcp_runtime::Structured<::std::vec::Vec<u32>>, ::mcp_runtime::ToolError> {
        let _ = größe;
        ::core::result::Result::Ok(::mcp_runtime::Structured::new((0..r#limit).collect()))
    }
}

fn main() {
    let server = mcp_runtime::Server::builder("ui", "0.0.0")
        .tool(shadowing::r#type)
        .tool(shadowing::r#match)
        .build()
        .expect("server");
    let tools = server.tool_descriptors();
    assert_eq!(tools[0]["name"], "type");
    assert_eq!(tools[0]["title"], "Say \"hi\" {now}");
    assert_eq!(tools[0]["description"], "Says \"hello\" to {name} (`{}` and \"quotes\" kept).");
    assert_eq!(tools[0]["inputSchema"]["properties"]["name"]["description"], "The \"name\" of {whom}.");
    assert_eq!(tools[0]["inputSchema"]["properties"]["größe"]["description"], "Größe in {cm}.");
    assert_eq!(tools[1]["name"], "match");
    assert_eq!(tools[1]["inputSchema"]["properties"]["limit"]["maximum"], 50);

    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let hello = rt.block_on(server.call("type", serde_json::json!({"name": "a", "größe": 3})));
    assert_eq!(hello.first_text(), Some("hello \"a\" {3}"));
    let refused = rt.block_on(server.call("type", serde_json::json!({"name": ""})));
    assert_eq!(refused.is_error, Some(true));
    assert!(refused.first_text().is_some_and(|t| t.contains("The \"name\" is {empty}.")));
    let listed = rt.block_on(server.call("match", serde_json::json!({"limit": 2})));
    assert_eq!(listed.structured_content, Some(serde_json::json!({"result": [0, 1]})));
}
