use mcp_runtime::prelude::*;

/// Echoes the text; the context may stand anywhere among the parameters.
#[tool]
async fn echo(
    /// The text.
    text: String,
    ctx: &Ctx,
    /// How many times (default 1).
    #[serde(default)]
    times: Option<usize>,
) -> String {
    let _ = ctx.request_id();
    text.repeat(times.unwrap_or(1))
}

/// Returns a constant: no parameters at all.
#[tool]
fn constant() -> &'static str {
    "42"
}

/// Logs and returns: only the context.
#[tool]
fn only_context(ctx: &Ctx) -> String {
    ctx.tool_name().to_owned()
}

fn main() {
    let server = Server::builder("ui", "0.0.0").tool(echo).tool(constant).tool(only_context).build().expect("server");
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let r = rt.block_on(server.call("echo", serde_json::json!({"text": "ab", "times": 2})));
    assert_eq!(r.first_text(), Some("abab"));
    let r = rt.block_on(server.call("constant", serde_json::json!({})));
    assert_eq!(r.first_text(), Some("42"));
    let r = rt.block_on(server.call("only_context", serde_json::json!({})));
    assert_eq!(r.first_text(), Some("only_context"));
    // The handler stays callable as written.
    assert_eq!(constant::handler(), "42");
}
