//! Prompts: what `#[prompt]` registers, `prompts/list` and `prompts/get`. Arguments are
//! checked against the prompt's declaration before its handler runs: an unknown prompt,
//! an unknown argument, a missing required one or a value that is not a string is a `-32602`
//! that says what the prompt accepts.

use std::sync::Arc;

use mcp_core::{ContractEntry, Icon, PromptMessage, ToolError};
use serde_json::{Map, Value, json};

use crate::auth::principal::Principal;
use crate::context::ask::{self, Reply};
use crate::context::ctx::{BoxFuture, Call, Caller};
use crate::features::call::{Failure, Handler, PromptGet, Road, unknown};
use crate::rpc::catch::CatchUnwind;
use crate::rpc::envelope::Site;
use crate::rpc::jsonrpc::RpcError;

/// Implemented by `#[prompt]` for the type named after the fn.
pub trait PromptDef: 'static {
    /// The prompt's name, arguments, metadata and handler.
    fn spec() -> PromptSpec;
}

/// What `#[prompt]` generates; built once, when the prompt is registered.
pub struct PromptSpec {
    /// The name (the fn's, or `name = ..`).
    pub name: &'static str,
    /// A display title.
    pub title: Option<&'static str>,
    /// The doc comment.
    pub description: &'static str,
    /// The arguments, in the fn's order.
    pub arguments: Vec<PromptArgument>,
    /// Icons for clients to show.
    pub icons: Vec<Icon>,
    /// The fn's module path.
    pub module: &'static str,
    /// The declared failure modes.
    pub contract: &'static [ContractEntry],
    /// One `prompts/get`: the arguments as sent (strings), by name.
    pub get: fn(crate::context::ctx::Call) -> BoxFuture<'static, Result<PromptResult, ToolError>>,
    /// Completers of the arguments (`complete(arg = fn)`).
    pub complete: Vec<(&'static str, crate::features::completion::Completer)>,
    /// `#[prompt(scopes(..))]`: the scopes a caller's token must grant to get it.
    pub scopes: &'static [&'static str],
}

/// One argument of a prompt, from a parameter of the fn.
pub struct PromptArgument {
    /// The parameter's name.
    pub name: &'static str,
    /// The parameter's doc comment.
    pub description: Option<&'static str>,
    /// `false` for an `Option<_>` parameter.
    pub required: bool,
}

/// What `prompts/get` answers: the messages, and optionally a description of this
/// rendering. A `#[prompt]` fn may return it, or just the messages.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PromptResult {
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    messages: Vec<PromptMessage>,
}

impl PromptResult {
    /// The messages.
    pub fn new(messages: Vec<PromptMessage>) -> Self {
        PromptResult { description: None, messages }
    }

    /// A description of this rendering.
    #[must_use]
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}

/// A return type of a `#[prompt]` fn: text (one user message), a [`PromptMessage`], a `Vec`
/// of them, or a [`PromptResult`].
#[diagnostic::on_unimplemented(
    message = "a `#[prompt]` fn cannot return `{Self}`",
    label = "return text (`String`), `PromptMessage`, `Vec<PromptMessage>` or `PromptResult`",
    note = "wrap it in `Result<_, ToolError>` to fail"
)]
pub trait IntoPrompt {
    /// The result.
    fn into_prompt(self) -> PromptResult;
}

impl IntoPrompt for String {
    fn into_prompt(self) -> PromptResult {
        PromptResult::new(vec![PromptMessage::user(self)])
    }
}

impl IntoPrompt for &'static str {
    fn into_prompt(self) -> PromptResult {
        PromptResult::new(vec![PromptMessage::user(self)])
    }
}

impl IntoPrompt for PromptMessage {
    fn into_prompt(self) -> PromptResult {
        PromptResult::new(vec![self])
    }
}

impl IntoPrompt for Vec<PromptMessage> {
    fn into_prompt(self) -> PromptResult {
        PromptResult::new(self)
    }
}

impl IntoPrompt for PromptResult {
    fn into_prompt(self) -> PromptResult {
        self
    }
}

/// The prompts served; replaced whole when one is added or removed.
#[derive(Default)]
pub(crate) struct Prompts {
    pub(crate) all: Vec<Arc<PromptSpec>>,
}

impl Prompts {
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<PromptSpec>> {
        self.all.iter().find(|p| p.name == name)
    }
}

/// `prompts/list`: every prompt's descriptor.
/// `prompts/list`: the prompts `principal` may get (a prompt whose `scopes(..)` it lacks is
/// left out, as if it did not exist).
pub(crate) fn list(prompts: &Prompts, principal: Option<&Principal>) -> Vec<Value> {
    prompts.all.iter().filter(|p| crate::auth::principal::grants(principal, p.scopes)).map(|p| descriptor(p)).collect()
}

fn descriptor(spec: &PromptSpec) -> Value {
    let mut d = Map::new();
    d.insert("name".into(), Value::from(spec.name));
    if let Some(title) = spec.title {
        d.insert("title".into(), Value::from(title));
    }
    if !spec.description.is_empty() {
        d.insert("description".into(), Value::from(spec.description));
    }
    if !spec.arguments.is_empty() {
        let arguments = spec.arguments.iter().map(|a| {
            let mut arg = json!({"name": a.name, "required": a.required});
            if let Some(text) = a.description {
                arg["description"] = Value::from(text);
            }
            arg
        });
        d.insert("arguments".into(), Value::Array(arguments.collect()));
    }
    if !spec.icons.is_empty() {
        d.insert("icons".into(), serde_json::to_value(&spec.icons).unwrap_or_default());
    }
    Value::Object(d)
}

/// `prompts/get {name, arguments?}` (and a 2026-07-28 retry's `inputResponses` /
/// `requestState`) on the road (`features::call`): the prompt's messages, or a JSON-RPC
/// error. A handler that asks the caller gets an `input_required` result (2026-07-28) or the
/// shim's round trips (2025).
pub(crate) async fn get(
    caller: &Caller<'_>,
    prompts: &Prompts,
    params: Option<&Value>,
) -> Result<Reply<Value>, RpcError> {
    let road = Road::<PromptGet>::new(caller);
    let name = match params.and_then(|p| p.get("name")) {
        Some(Value::String(name)) => name,
        Some(_) => return Err(RpcError::invalid_params("Invalid params: `name` must be a string")),
        None => return Err(RpcError::invalid_params("Invalid params: prompts/get needs params {name, arguments?}")),
    };
    let Some(prompt) = prompts.get(name) else {
        let shown = crate::rpc::envelope::display_name(name);
        let err = unknown(
            ToolError::invalid_params(format!("Unknown prompt: {shown}.")).reason("unknown_prompt"),
            "List prompts with prompts/list and use one of those names.",
            &shown,
            listed(prompts, caller.channel.principal()),
        );
        return Err(road.refuse(site(&shown, &[], caller), err));
    };
    let site = site(prompt.name, prompt.contract, caller);
    let sent = params.and_then(|p| p.get("arguments"));
    road.admit(site, prompt.scopes, prompt.name, sent).await?;
    let arguments = match sent {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(arguments)) => arguments.clone(),
        Some(_) => return Err(road.refuse(site, argument_error(prompt, "`arguments` must be an object of strings"))),
    };
    if let Some(problem) = argument_problem(prompt, &arguments) {
        return Err(road.refuse(site, argument_error(prompt, &problem)));
    }
    let operation = ask::Operation::named("prompts/get", prompt.name);
    let sealing = caller.sealing(&operation, road.request_id);
    let inputs = ask::inputs_of(caller.client, &sealing, params)?;
    let handler = Handler { name: prompt.name, operation: &operation, sealing: &sealing, progress: None };
    let arguments = Arc::new(Value::Object(arguments));
    let served = road
        .serve(&handler, inputs, |info| CatchUnwind((prompt.get)(Call { args: Arc::clone(&arguments), info })))
        .await;
    match served.into_rpc() {
        Ok(Reply::Complete(result)) => {
            Ok(Reply::Complete(serde_json::to_value(result).unwrap_or_else(|_| unreachable!("messages serialize"))))
        }
        Ok(Reply::InputRequired(asked)) => Ok(Reply::InputRequired(asked)),
        Ok(Reply::Task(task)) => Ok(Reply::Task(task)),
        Err(Failure::Envelope(err, origin, code)) => Err(road.fail(site, err, origin, code)),
        Err(Failure::Rpc(e)) => Err(e),
        Err(Failure::Panicked(payload)) => Err(road.panicked(site, &*payload)),
    }
}

/// The names of the prompts `principal` may get, as `prompts/list` shows them.
fn listed<'p>(prompts: &'p Prompts, principal: Option<&'p Principal>) -> impl Iterator<Item = &'static str> + 'p {
    prompts.all.iter().filter(move |p| crate::auth::principal::grants(principal, p.scopes)).map(|p| p.name)
}

/// Where a prompt's failure is logged and how it is rendered.
fn site<'a>(name: &'a str, contract: &'static [ContractEntry], caller: &Caller<'_>) -> Site<'a> {
    Site { family: "prompt", tool: name, contract, structured: true, causes: caller.causes, drafts: caller.drafts }
}

/// What is wrong with the arguments sent, if anything: the first unknown name, missing
/// required argument or value that is not a string.
fn argument_problem(prompt: &PromptSpec, arguments: &Map<String, Value>) -> Option<String> {
    for (name, value) in arguments {
        let shown = crate::rpc::envelope::display_name(name);
        if !prompt.arguments.iter().any(|a| a.name == name) {
            return Some(format!("prompt {} has no argument `{shown}`", prompt.name));
        }
        if !value.is_string() {
            return Some(format!("argument `{shown}` must be a string"));
        }
    }
    let missing = prompt.arguments.iter().find(|a| a.required && !arguments.contains_key(a.name))?;
    Some(format!("missing required argument `{}`", missing.name))
}

/// An `invalid_arguments` refusal that lists what the prompt accepts.
fn argument_error(prompt: &PromptSpec, problem: &str) -> ToolError {
    let accepted: Vec<String> = prompt
        .arguments
        .iter()
        .map(|a| if a.required { format!("`{}` (required)", a.name) } else { format!("`{}`", a.name) })
        .collect();
    let hint = if accepted.is_empty() {
        format!("Call prompt {} without arguments.", prompt.name)
    } else {
        format!("Prompt {} takes string arguments: {}.", prompt.name, accepted.join(", "))
    };
    ToolError::invalid_params(format!("Invalid arguments for prompt {}: {problem}.", prompt.name))
        .reason("invalid_arguments")
        .retryable(false)
        .hint(hint)
}
