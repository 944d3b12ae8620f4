//! What a handler reads back: this round's answers ([`Inputs`], an elicitation's
//! [`Elicited`]) and its `requestState`; and the filter both eras share, which keeps only the
//! answers of a kind the client declared the capability for. Built from a 2026-07-28 retry
//! (`wire`) or from what the 2025 shim collected.

use std::collections::HashMap;

use mcp_core::ToolError;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::form::form_of;
use super::gate::has_capability;
use super::operation::INVALID_STATE;
use crate::rpc::era::Client;

/// An elicitation's answer, as [`Inputs`] reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicited<T> {
    /// The user accepted; the content (for a form).
    Accepted(T),
    /// The user said no. Final: fail the call, do not ask again.
    Declined,
    /// The user dismissed the question. Final, like a decline.
    Cancelled,
    /// No usable answer under this key this round (not asked yet, not answered, answered with
    /// content that does not fit the form, or an answer this client may not give): ask.
    Missing,
}

/// One answer, classified.
#[derive(Debug, Clone)]
pub(super) enum Answer {
    Elicit { action: Action, content: Option<Value> },
    Sampled(Value),
    Roots(Value),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    Accept,
    Decline,
    Cancel,
}

/// This round's answers (filtered by the capabilities the client declared) and its
/// `requestState`. Empty on a first call. See [`Ctx::inputs`](crate::Ctx::inputs).
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub(super) answers: HashMap<String, Answer>,
    state: Option<String>,
    dropped: Vec<String>,
}

static NULL: Value = Value::Null;

impl Inputs {
    /// The state the handler gave with its last ask ([`Ask::state`](crate::Ask::state)). The
    /// runtime sealed it on the way out and verified it on the way back: it is what this
    /// server wrote, for this caller and this tool (prompt, resource), within the last 15
    /// minutes. It may still be replayed within that time: for a decision that must hold
    /// once, use [`Ctx::consent`](crate::Ctx::consent).
    pub fn state(&self) -> Option<&str> {
        self.state.as_deref()
    }

    /// `true` when nothing was answered this round.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// Whether there is a usable answer under `key`.
    pub fn contains(&self, key: &str) -> bool {
        self.answers.contains_key(key)
    }

    /// The keys of answers dropped as malformed (wrapped in a JSON-RPC envelope, or of no
    /// known kind): the handler asks for them again.
    pub fn dropped(&self) -> &[String] {
        &self.dropped
    }

    /// The elicitation answered under `key`, its content as sent (`null` for an accepted URL
    /// elicitation, which has none).
    pub fn elicitation(&self, key: &str) -> Elicited<&Value> {
        match self.answers.get(key) {
            Some(Answer::Elicit { action: Action::Accept, content }) => {
                Elicited::Accepted(content.as_ref().unwrap_or(&NULL))
            }
            Some(Answer::Elicit { action: Action::Decline, .. }) => Elicited::Declined,
            Some(Answer::Elicit { action: Action::Cancel, .. }) => Elicited::Cancelled,
            _ => Elicited::Missing,
        }
    }

    /// The form answered under `key`, as `T`: the content is validated against the schema
    /// [`Elicitation::form_for::<T>`](crate::Elicitation::form_for) sent and read into `T`;
    /// content that does not fit is [`Elicited::Missing`] (ask again).
    pub fn form<T: JsonSchema + DeserializeOwned + 'static>(&self, key: &str) -> Elicited<T> {
        match self.elicitation(key) {
            Elicited::Accepted(content) => {
                let form = form_of::<T>();
                let fits = form.validator.as_ref().is_none_or(|v| v.is_valid(content));
                match serde_json::from_value::<T>(content.clone()) {
                    Ok(value) if fits => Elicited::Accepted(value),
                    _ => {
                        tracing::debug!(key, "an accepted form answer does not fit its schema; treated as missing");
                        Elicited::Missing
                    }
                }
            }
            Elicited::Declined => Elicited::Declined,
            Elicited::Cancelled => Elicited::Cancelled,
            Elicited::Missing => Elicited::Missing,
        }
    }

    /// The sampling result answered under `key` (`{role, content, model, stopReason?}`).
    pub fn sampled(&self, key: &str) -> Option<&Value> {
        match self.answers.get(key) {
            Some(Answer::Sampled(result)) => Some(result),
            _ => None,
        }
    }

    /// The text of the sampling result under `key`: its text block (the first, when the
    /// content is a list).
    pub fn sampled_text(&self, key: &str) -> Option<&str> {
        fn text_of(block: &Value) -> Option<&str> {
            if block.get("type").and_then(Value::as_str) != Some("text") {
                return None;
            }
            block.get("text")?.as_str()
        }
        let content = self.sampled(key)?.get("content")?;
        match content {
            Value::Array(blocks) => blocks.iter().find_map(text_of),
            block => text_of(block),
        }
    }

    /// The roots answered under `key` (`[{uri, name?}, …]`).
    pub fn roots(&self, key: &str) -> Option<&[Value]> {
        match self.answers.get(key) {
            Some(Answer::Roots(roots)) => roots.get("roots").and_then(Value::as_array).map(Vec::as_slice),
            _ => None,
        }
    }

    /// The failure for a `requestState` the handler cannot use (one the runtime verified,
    /// but that names something gone): a 2026-07-28 request is answered with the protocol
    /// error `-32602`.
    pub fn reject_state(&self, why: impl std::fmt::Display) -> ToolError {
        ToolError::invalid_params(format!("Invalid params: `requestState` is not valid: {why}"))
            .reason(INVALID_STATE)
            .retryable(false)
            .hint("Call the tool again without `requestState` and `inputResponses` to start over.")
    }

    /// A round's inputs for a unit test (with [`TestCtx::inputs`](crate::testing::TestCtx::inputs)):
    /// `answers` is an object of answers keyed as asked, each as a client sends it
    /// (`{"action": "accept", "content": {…}}`, a sampling result, `{"roots": […]}`), filtered
    /// by `capabilities` as a real request's are (`None`: nothing survives); `state` is the
    /// round's `requestState`.
    pub fn for_test(answers: Value, state: Option<&str>, capabilities: Option<&Value>) -> Self {
        let answers = match answers {
            Value::Object(map) => map.into_iter().collect(),
            _ => Vec::new(),
        };
        build(capabilities, answers, state.map(str::to_owned))
    }
}

/// Whether an answer of this kind may come from this client (docs/asking.md#how-each-era-is-asked: answers a client may not give are dropped).
fn allowed(answer: &Answer, capabilities: &Value) -> bool {
    match answer {
        Answer::Elicit { content: Some(_), .. } => has_capability(capabilities, "elicitation.form"),
        Answer::Elicit { content: None, .. } => has_capability(capabilities, "elicitation"),
        Answer::Sampled(result) => {
            let uses_tools =
                |block: &Value| matches!(block.get("type").and_then(Value::as_str), Some("tool_use" | "tool_result"));
            let tools = match result.get("content") {
                Some(Value::Array(blocks)) => blocks.iter().any(uses_tools),
                Some(block) => uses_tools(block),
                None => false,
            };
            has_capability(capabilities, if tools { "sampling.tools" } else { "sampling" })
        }
        Answer::Roots(_) => has_capability(capabilities, "roots"),
    }
}

/// What a bare answer is: `action` ⇒ elicitation; a `roots` array ⇒ roots; a string `role`
/// with `content` ⇒ sampling; anything else (a JSON-RPC-wrapped answer included) is none.
fn classify(value: Value) -> Option<Answer> {
    let Value::Object(mut map) = value else { return None };
    if map.contains_key("method") || map.contains_key("result") {
        return None;
    }
    if let Some(action) = map.get("action").and_then(Value::as_str) {
        let action = match action {
            "accept" => Action::Accept,
            "decline" => Action::Decline,
            "cancel" => Action::Cancel,
            _ => return None,
        };
        let content = map.remove("content").filter(Value::is_object);
        return Some(Answer::Elicit { action, content });
    }
    if map.get("roots").is_some_and(Value::is_array) {
        return Some(Answer::Roots(Value::Object(map)));
    }
    if map.get("role").is_some_and(Value::is_string) && map.contains_key("content") {
        return Some(Answer::Sampled(Value::Object(map)));
    }
    None
}

/// A round's inputs: answers classified, then filtered by the capabilities the client
/// declared (none survive without a capability view).
pub(super) fn build(capabilities: Option<&Value>, answers: Vec<(String, Value)>, state: Option<String>) -> Inputs {
    let mut inputs = Inputs { answers: HashMap::with_capacity(answers.len()), state, dropped: Vec::new() };
    for (key, value) in answers {
        match classify(value) {
            Some(answer) if capabilities.is_some_and(|caps| allowed(&answer, caps)) => {
                inputs.answers.insert(key, answer);
            }
            Some(_) => tracing::debug!(key, "an answer of a kind the client did not declare; ignored"),
            None => inputs.dropped.push(key),
        }
    }
    inputs
}

/// The answers the legacy shim collected, as the handler's next round reads them.
pub(crate) fn collected(client: &Client, answers: Vec<(String, Value)>, state: Option<String>) -> Inputs {
    build(client.capabilities(), answers, state)
}
