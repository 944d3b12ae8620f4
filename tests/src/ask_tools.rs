//! Fixture tools that ask the caller mid-call (`ctx.ask`), each written once: a 2026-07-28
//! client gets `input_required` and retries; a 2025 session is asked by the runtime's shim
//! with real `elicitation/create`, `sampling/createMessage` and `roots/list` requests.

use mcp_runtime::prelude::*;

/// The yes/no form `confirm_delete` shows.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct Confirm {
    /// Delete it?
    pub(crate) confirm: bool,
}

/// What `confirm_delete` did.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Deleted {
    /// The path (nothing is really deleted).
    deleted: String,
}

/// Asks the user to confirm, then "deletes" `path` (nothing is touched): `{"deleted": path}`
/// on a yes, the declared failure `declined` on a no, a decline or a cancel.
#[tool]
#[errors(
    reason = "declined",
    code = Forbidden,
    retryable = false,
    when = "The user did not confirm the deletion.",
    recovery = "Do not retry unless the user asks again; nothing was deleted."
)]
pub(crate) fn confirm_delete(
    ctx: &Ctx<ConfirmDeleteError>,
    /// What to delete.
    path: String,
) -> Result<Deleted, ToolError> {
    match ctx.inputs().form::<Confirm>("confirm") {
        Elicited::Accepted(Confirm { confirm: true }) => Ok(Deleted { deleted: path }),
        Elicited::Accepted(Confirm { confirm: false }) | Elicited::Declined | Elicited::Cancelled => {
            Err(ctx.fail(ConfirmDeleteError::Declined))
        }
        Elicited::Missing => {
            Err(ctx.ask(Ask::new().elicit("confirm", Elicitation::form_for::<Confirm>(format!("Delete {path}?")))))
        }
    }
}

/// Asks the client's model to summarize `text`, and returns what it wrote.
#[tool]
pub(crate) fn summarize(
    ctx: &Ctx,
    /// What to summarize.
    text: String,
) -> Result<String, ToolError> {
    if let Some(summary) = ctx.inputs().sampled_text("summary") {
        return Ok(summary.to_owned());
    }
    let sampling = Sampling::new(200).system_prompt("Summarize in one sentence.").user(text);
    Err(ctx.ask(Ask::new().sample("summary", sampling)))
}

/// One root the client listed.
#[derive(Serialize, Deserialize, JsonSchema)]
pub(crate) struct Root {
    /// Its URI (`file://…`).
    uri: String,
    /// Its name, when the client gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

/// The client's roots, as it listed them.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Roots {
    /// The roots with a URI, in the client's order.
    roots: Vec<Root>,
}

/// Asks the client for its roots, and returns them.
#[tool]
pub(crate) fn list_roots(ctx: &Ctx) -> Result<Roots, ToolError> {
    match ctx.inputs().roots("roots") {
        Some(roots) => {
            Ok(Roots { roots: roots.iter().filter_map(|r| serde_json::from_value(r.clone()).ok()).collect() })
        }
        None => Err(ctx.ask(Ask::new().list_roots("roots"))),
    }
}

/// Asks everything at once (a form, the model, the roots) and returns what came back: the
/// shim sends the three requests together.
#[tool]
pub(crate) fn ask_all(ctx: &Ctx) -> Result<String, ToolError> {
    let inputs = ctx.inputs();
    let name = match inputs.elicitation("name") {
        Elicited::Accepted(content) => content.get("name").and_then(serde_json::Value::as_str).map(str::to_owned),
        _ => None,
    };
    match (name, inputs.sampled_text("greeting"), inputs.roots("roots")) {
        (Some(name), Some(greeting), Some(roots)) => Ok(format!("{greeting}, {name}; {} roots", roots.len())),
        _ => Err(ctx.ask(
            Ask::new()
                .elicit(
                    "name",
                    Elicitation::form(
                        "Your name?",
                        serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
                    ),
                )
                .sample("greeting", Sampling::new(20).user("Say hello"))
                .list_roots("roots"),
        )),
    }
}

/// Never satisfied: asks again after every answer, counting rounds in its state (the legacy
/// shim gives up after 8).
#[tool]
pub(crate) fn keep_asking(ctx: &Ctx) -> Result<String, ToolError> {
    let inputs = ctx.inputs();
    let round = inputs.state().and_then(|s| s.strip_prefix("round-")).and_then(|n| n.parse::<u32>().ok()).unwrap_or(0);
    let form = serde_json::json!({"type": "object", "properties": {"more": {"type": "boolean"}}});
    Err(ctx.ask(
        Ask::new()
            .elicit(format!("more-{}", round + 1), Elicitation::form(format!("Round {}: more?", round + 1), form))
            .state(format!("round-{}", round + 1)),
    ))
}

/// Counts to `to` through state alone (no request is sent to the client): each round is a
/// `requestState`-only ask.
#[tool]
pub(crate) fn count_rounds(
    ctx: &Ctx,
    /// How many rounds.
    to: u32,
) -> Result<String, ToolError> {
    let at = ctx.inputs().state().and_then(|s| s.parse::<u32>().ok()).unwrap_or(0);
    if at >= to {
        return Ok(format!("counted to {at}"));
    }
    Err(ctx.ask(Ask::new().state((at + 1).to_string())))
}
