//! The code the attributes generate binds no name a user could write (issue 34 item 2):
//! tools, resources and prompts named `value`, `error` or `g`, and items of those names in
//! the module, compile.

use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;

/// The result as structured output.
#[derive(Serialize, JsonSchema)]
pub struct Total {
    /// The sum.
    pub total: u64,
}

mod by_tool_name {
    use super::Total;
    use mcp_runtime::prelude::*;

    /// Reads a value.
    #[tool]
    pub fn value(key: String) -> Result<String, ToolError> {
        if key.is_empty() { Err(ToolError::invalid_params("empty key")) } else { Ok(key) }
    }

    /// Fails on purpose.
    #[tool]
    pub async fn error(code: i32) -> Result<Total, std::io::Error> {
        if code == 0 { Ok(Total { total: 0 }) } else { Err(std::io::Error::other("failed")) }
    }

    /// Sums.
    #[tool]
    pub fn g(a: u64, b: u64) -> Total {
        Total { total: a + b }
    }

    /// A value resource.
    #[resource(uri_template = "values://{key}")]
    pub fn value_resource(key: String) -> Result<String, ToolError> {
        Ok(key)
    }
}

/// Items named like the generated code's variables, beside tools that bind them.
#[allow(non_upper_case_globals, non_camel_case_types, dead_code)]
mod by_item_name {
    use super::Total;
    use mcp_runtime::prelude::*;

    const value: u8 = 1;
    const error: u8 = 2;
    struct g;

    /// Reads a number.
    #[tool]
    pub fn read(text: String) -> Result<Total, ToolError> {
        text.parse().map(|total| Total { total }).map_err(|_| ToolError::invalid_params("not a number"))
    }

    /// Reads a note.
    #[resource(uri_template = "notes://{name}")]
    pub fn note(name: String) -> Result<String, ToolError> {
        Ok(name)
    }

    /// Asks about a note.
    #[prompt]
    pub fn ask(name: String) -> Result<String, ToolError> {
        Ok(name)
    }
}

fn main() {
    assert_eq!(<by_tool_name::g as ToolDef>::INFO.name, "g");
    let server = Server::builder("ui", "0.0.0")
        .tool(by_tool_name::value)
        .tool(by_tool_name::error)
        .tool(by_tool_name::g)
        .tool(by_item_name::read)
        .resource(by_tool_name::value_resource)
        .resource(by_item_name::note)
        .prompt(by_item_name::ask)
        .build()
        .expect("server");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let sum = rt.block_on(server.call("g", serde_json::json!({"a": 2, "b": 3})));
    assert_eq!(sum.structured_content, Some(serde_json::json!({"total": 5})));
    let read = rt.block_on(server.call("read", serde_json::json!({"text": "7"})));
    assert_eq!(read.structured_content, Some(serde_json::json!({"total": 7})));
    let failed = rt.block_on(server.call("error", serde_json::json!({"code": 1})));
    assert_eq!(failed.is_error, Some(true));
    let value = rt.block_on(server.call("value", serde_json::json!({"key": "k"})));
    assert_eq!(value.first_text(), Some("k"));
}
