use mcp_runtime::PromptResult;
use mcp_runtime::prelude::*;

/// Greets someone.
#[prompt(title = "Greeting", complete(name = names))]
fn greet(
    /// Who to greet.
    name: String,
    /// How many times.
    times: Option<u8>,
) -> String {
    format!("Greet {name} {} times.", times.unwrap_or(1))
}

/// A conversation.
#[prompt(name = "chat")]
async fn conversation(topic: String, polite: Option<bool>) -> Vec<PromptMessage> {
    vec![PromptMessage::user(topic), PromptMessage::assistant(format!("{polite:?}"))]
}

/// A described rendering, which may fail.
#[prompt]
#[errors(reason = "too_long", code = InvalidParams, when = "The text is too long.", recovery = "Send a text of at most 100 characters.")]
fn rendered(ctx: &Ctx<RenderedError>, text: String) -> Result<PromptResult, ToolError> {
    if text.len() > 100 {
        return Err(ctx.fail(RenderedError::TooLong));
    }
    Ok(PromptResult::new(vec![PromptMessage::user(text)]).description("rendered"))
}

async fn names(_ctx: &Ctx, typed: String) -> Vec<String> {
    vec![typed]
}

fn main() {
    // The prompts register: `build` succeeds (this case runs, and fails if it does not).
    Server::builder("t", "1").prompt(greet).prompt(conversation).prompt(rendered).build().expect("the server builds");
}
