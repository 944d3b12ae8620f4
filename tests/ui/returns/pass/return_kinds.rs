use mcp_runtime::__private::ToolDef;
use mcp_runtime::prelude::*;

/// A count.
#[derive(Serialize, JsonSchema)]
struct Count {
    /// The number.
    n: u32,
}

/// Text.
#[tool]
fn text() -> String {
    "t".into()
}

/// A content block.
#[tool]
fn block() -> Content {
    Content::text("b")
}

/// Content blocks.
#[tool]
fn blocks() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

/// A whole result.
#[tool]
fn whole() -> CallToolResult {
    CallToolResult::content(vec![Content::text("w")])
}

/// Structured output.
#[tool]
fn structured() -> Count {
    Count { n: 1 }
}

/// Structured output with extra content.
#[tool]
fn structured_more() -> Structured<Count> {
    Structured::new(Count { n: 2 }).with_content(vec![Content::text("more")])
}

/// A `Result` whose error converts into `ToolError`.
#[tool]
async fn fallible(path: String) -> Result<Count, std::io::Error> {
    let n = tokio::fs::read_to_string(path).await?.len();
    Ok(Count { n: u32::try_from(n).unwrap_or(u32::MAX) })
}

/// A `Result` alias.
#[tool]
fn aliased() -> std::io::Result<String> {
    Ok("aliased".into())
}

fn main() {
    let mut g = mcp_runtime::schemars::SchemaGenerator::default();
    for (spec, has_schema) in [
        (text::spec(), false),
        (block::spec(), false),
        (blocks::spec(), false),
        (whole::spec(), false),
        (structured::spec(), true),
        (structured_more::spec(), true),
        (fallible::spec(), true),
        (aliased::spec(), false),
    ] {
        assert_eq!((spec.output_schema)(&mut g).is_some(), has_schema, "{}", spec.name);
    }
}
