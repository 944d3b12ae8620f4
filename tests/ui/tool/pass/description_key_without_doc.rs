use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;

#[tool(description = "Returns the text it is given.")]
fn echo(text: String) -> String {
    text
}

fn main() {
    assert_eq!(echo::spec().description, "Returns the text it is given.");
    assert_eq!(echo::spec().name, "echo");
}
