//! Asking the caller mid-call: what a handler asks for ([`Ask`]: form and URL elicitation,
//! sampling, roots, and state for the next round), what it reads back ([`Inputs`]), and the
//! rules both eras share — which capability each ask needs (the gate), which answers a client
//! may give (the filter) — with the shapes of the 2026-07-28 wire: the `input_required`
//! result, and the `inputResponses`/`requestState` of a retry. The 2025 leg, which fulfils the
//! same ask with real server-to-client requests, is `shim`.
//!
//! `requestState` is read in one place ([`incoming`], which opens it) and written in one
//! place ([`modern`], which seals it): handlers read and write plain text, and a state that
//! comes back changed, expired, or for another caller or operation is refused before any
//! handler runs (`seal`). Over a 2025 session the shim keeps the state between rounds, in the
//! server: it never travels, and a 2025 request's own `requestState` is ignored.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::{CallToolResult, ErrorCode, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::auth::principal::Principal;
use crate::rpc::era::{Client, Era, ResultMeta};
use crate::rpc::jsonrpc::{self, RpcError};
use crate::rpc::request_id::RequestId;
use crate::state::seal::Sealer;

/// The reason of a call refused because the client lacks a capability.
pub(crate) const CAPABILITY_MISSING: &str = "client_capability_missing";
/// The reason a handler gives when a round's `requestState` is not one it wrote.
pub(crate) const INVALID_STATE: &str = "invalid_request_state";

/// What a handler asks the caller for before it can finish: requests by key (form or URL
/// elicitation, sampling, the client's roots), and optionally a `requestState` for the next
/// round. End the call with it through [`Ctx::ask`](crate::Ctx::ask):
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::{Ask, Elicitation, Elicited};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Confirm {
///     /// Really delete?
///     ok: bool,
/// }
///
/// /// Deletes a path after the user confirms.
/// #[tool]
/// fn delete_path(ctx: &Ctx, path: String) -> Result<String, ToolError> {
///     match ctx.inputs().form::<Confirm>("confirm") {
///         Elicited::Accepted(Confirm { ok: true }) => Ok(format!("deleted {path}")),
///         Elicited::Accepted(_) | Elicited::Declined | Elicited::Cancelled => {
///             Err(ToolError::forbidden("The user did not confirm.").reason("declined"))
///         }
///         Elicited::Missing => Err(ctx.ask(
///             Ask::new().elicit("confirm", Elicitation::form_for::<Confirm>(format!("Delete {path}?"))),
///         )),
///     }
/// }
/// ```
///
/// A 2026-07-28 client gets an `input_required` result and retries with the answers; over a
/// 2025 session the runtime sends the requests to the client itself and calls the handler
/// again with the answers. Either way the handler runs again and reads them with
/// [`Ctx::inputs`](crate::Ctx::inputs). A declined or cancelled answer is final: fail the
/// call; asking again only asks the user the same question.
#[derive(Debug, Default)]
#[must_use]
pub struct Ask {
    pub(crate) requests: Vec<(String, InputRequest)>,
    pub(crate) state: Option<String>,
    pub(crate) fallback_hint: Option<String>,
    /// A mistake in how the ask was built (a form type elicitation cannot show).
    pub(crate) problem: Option<String>,
}

/// One embedded request: `{method, params?}`.
#[derive(Debug, Clone)]
pub(crate) struct InputRequest {
    pub(crate) method: &'static str,
    pub(crate) params: Option<Value>,
}

impl Ask {
    /// Nothing asked yet.
    pub fn new() -> Self {
        Ask::default()
    }

    fn with(mut self, key: String, request: InputRequest) -> Self {
        self.requests.retain(|(k, _)| *k != key);
        self.requests.push((key, request));
        self
    }

    /// Asks the user (`elicitation/create`), keyed `key`. Needs the client's
    /// `elicitation.form` capability (a bare `elicitation` counts), or `elicitation.url` for
    /// [`Elicitation::url`].
    pub fn elicit(mut self, key: impl Into<String>, elicitation: Elicitation) -> Self {
        if let Some(problem) = elicitation.problem {
            self.problem.get_or_insert(problem);
        }
        self.with(key.into(), InputRequest { method: "elicitation/create", params: Some(elicitation.params) })
    }

    /// Asks the client's model (`sampling/createMessage`), keyed `key`. Needs `sampling`
    /// (`sampling.tools` when the request carries `tools` or `toolChoice`).
    pub fn sample(self, key: impl Into<String>, sampling: Sampling) -> Self {
        self.with(
            key.into(),
            InputRequest { method: "sampling/createMessage", params: Some(Value::Object(sampling.0)) },
        )
    }

    /// Asks for the client's roots (`roots/list`), keyed `key`. Needs `roots`.
    pub fn list_roots(self, key: impl Into<String>) -> Self {
        self.with(key.into(), InputRequest { method: "roots/list", params: None })
    }

    /// State for the next round, handed back in [`Inputs::state`]. Opaque to the client, but
    /// sent to it: never put a secret or an authorization decision in it unprotected.
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.state = Some(state.into());
        self
    }

    /// `true` while nothing is asked and no state is set: ending a call with such an ask is
    /// the handler's bug (`-32603`).
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.state.is_none()
    }

    /// Appended to the recovery hint when a 2025 client cannot be asked (it lacks the
    /// capability): what the caller can do instead.
    pub fn fallback_hint(mut self, hint: impl Into<String>) -> Self {
        self.fallback_hint = Some(hint.into());
        self
    }
}

/// An `elicitation/create` request: a form (a flat object of primitive, enum and
/// string-format fields) or a URL for the user to open.
#[derive(Debug, Clone)]
#[must_use]
pub struct Elicitation {
    params: Value,
    problem: Option<String>,
}

impl Elicitation {
    /// A form with this schema, as written (`{"type":"object","properties":{…},"required":[…]}`).
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        let params = json!({"message": message.into(), "requestedSchema": requested_schema});
        Elicitation { params, problem: None }
    }

    /// A form whose schema is derived from `T` (`#[derive(Deserialize, JsonSchema)]`); read
    /// the answer back as `T` with [`Inputs::form`]. `T` must be a flat struct of strings
    /// (optionally with `format` email, uri, date or date-time), numbers, integers, booleans,
    /// unit-variant enums and lists of unit-variant enums; any other field makes the call fail
    /// with a configuration error naming it.
    pub fn form_for<T: JsonSchema + 'static>(message: impl Into<String>) -> Self {
        let form = form_of::<T>();
        match &form.schema {
            Ok(schema) => Elicitation::form(message, schema.clone()),
            Err(problem) => Elicitation { params: json!({"message": message.into()}), problem: Some(problem.clone()) },
        }
    }

    /// The `requestedSchema` [`Elicitation::form_for::<T>`](Elicitation::form_for) sends, or
    /// why `T` cannot be a form (the field and its problem). Made once per type; call it in a
    /// unit test to catch a form type elicitation cannot show before any call does:
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Shipping {
    ///     /// Where to send it.
    ///     address: String,
    ///     express: bool,
    /// }
    ///
    /// let schema = Elicitation::schema_for::<Shipping>().unwrap();
    /// assert_eq!(schema["properties"]["express"], serde_json::json!({"type": "boolean"}));
    /// ```
    pub fn schema_for<T: JsonSchema + 'static>() -> Result<Value, String> {
        form_of::<T>().schema.clone()
    }

    /// Sends the user to `url` (out-of-band interaction, such as a sign-in). Needs the
    /// client's `elicitation.url` capability.
    pub fn url(message: impl Into<String>, url: impl Into<String>) -> Self {
        let params = json!({"mode": "url", "message": message.into(), "url": url.into()});
        Elicitation { params, problem: None }
    }
}

/// A `sampling/createMessage` request: messages for the client's model, and how much it may
/// write.
#[derive(Debug, Clone)]
#[must_use]
pub struct Sampling(Map<String, Value>);

impl Sampling {
    /// No messages yet; at most `max_tokens` tokens back.
    pub fn new(max_tokens: u32) -> Self {
        let mut params = Map::new();
        params.insert("messages".into(), Value::Array(Vec::new()));
        params.insert("maxTokens".into(), max_tokens.into());
        Sampling(params)
    }

    /// Params as written (`{messages, maxTokens, …}`).
    pub fn from_params(params: Map<String, Value>) -> Self {
        Sampling(params)
    }

    fn message(mut self, role: &str, text: String) -> Self {
        let message = json!({"role": role, "content": {"type": "text", "text": text}});
        match self.0.get_mut("messages") {
            Some(Value::Array(messages)) => messages.push(message),
            _ => {
                self.0.insert("messages".into(), Value::Array(vec![message]));
            }
        }
        self
    }

    /// Adds a user text message.
    pub fn user(self, text: impl Into<String>) -> Self {
        self.message("user", text.into())
    }

    /// Adds an assistant text message.
    pub fn assistant(self, text: impl Into<String>) -> Self {
        self.message("assistant", text.into())
    }

    /// The system prompt.
    pub fn system_prompt(self, text: impl Into<String>) -> Self {
        self.param("systemPrompt", text.into())
    }

    /// Any other member of the params (`temperature`, `modelPreferences`, `stopSequences`,
    /// `tools`, …).
    pub fn param(mut self, key: &str, value: impl Serialize) -> Self {
        let value = serde_json::to_value(value).unwrap_or(Value::Null);
        self.0.insert(key.to_owned(), value);
        self
    }
}

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
enum Answer {
    Elicit { action: Action, content: Option<Value> },
    Sampled(Value),
    Roots(Value),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Action {
    Accept,
    Decline,
    Cancel,
}

/// This round's answers (filtered by the capabilities the client declared) and its
/// `requestState`. Empty on a first call. See [`Ctx::inputs`](crate::Ctx::inputs).
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    answers: HashMap<String, Answer>,
    state: Option<String>,
    dropped: Vec<String>,
}

static NULL: Value = Value::Null;

impl Inputs {
    /// The state the handler gave with its last ask ([`Ask::state`]). The runtime sealed it
    /// on the way out and verified it on the way back: it is what this server wrote, for
    /// this caller and this tool (prompt, resource), within the last 15 minutes. It may
    /// still be replayed within that time: for a decision that must hold once, use
    /// [`Ctx::consent`](crate::Ctx::consent).
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
    /// [`Elicitation::form_for::<T>`] sent and read into `T`; content that does not fit is
    /// [`Elicited::Missing`] (ask again).
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

    /// A round's inputs for a unit test (with [`Ctx::with_inputs`](crate::Ctx::with_inputs)):
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

// ---------------------------------------------------------------------------------------
// Typed forms.

/// A form type's elicitation schema (or why it has none) and its validator; made once per type.
struct Form {
    schema: Result<Value, String>,
    validator: Option<jsonschema::Validator>,
}

fn form_of<T: JsonSchema + 'static>() -> Arc<Form> {
    static FORMS: OnceLock<Mutex<HashMap<TypeId, Arc<Form>>>> = OnceLock::new();
    let forms = FORMS.get_or_init(Mutex::default);
    if let Some(form) = forms.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&TypeId::of::<T>()) {
        return Arc::clone(form);
    }
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    settings.inline_subschemas = true;
    let root = settings.into_generator().into_root_schema_for::<T>();
    let schema = elicitation_schema(root.as_value())
        .map_err(|why| format!("`{}` cannot be an elicitation form: {why}", std::any::type_name::<T>()));
    let validator = schema.as_ref().ok().and_then(|s| crate::schema::generate::compile(s).ok());
    let form = Arc::new(Form { schema, validator });
    forms.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(TypeId::of::<T>(), Arc::clone(&form));
    form
}

/// A derived schema restricted to what elicitation allows: a flat object whose properties
/// are strings (with `format` email, uri, date or date-time), numbers, integers, booleans,
/// single-select enums (`enum`, or `oneOf` of `const`/`title`) and multi-select enums
/// (arrays of those). `Option<T>` fields are optional `T`.
pub(crate) fn elicitation_schema(root: &Value) -> Result<Value, String> {
    if root.get("type").and_then(Value::as_str) != Some("object") {
        return Err("the form must be a struct with named fields".into());
    }
    let Some(properties) = root.get("properties").and_then(Value::as_object) else {
        return Err("the form must be a struct with named fields".into());
    };
    let mut out = Map::new();
    for (name, schema) in properties {
        out.insert(name.clone(), property(schema).map_err(|why| format!("field `{name}` {why}"))?);
    }
    let mut form = json!({"type": "object", "properties": out});
    if let Some(required) = root.get("required").filter(|r| r.as_array().is_some_and(|a| !a.is_empty())) {
        form["required"] = required.clone();
    }
    Ok(form)
}

/// One property of a form, or why elicitation cannot show it.
fn property(schema: &Value) -> Result<Value, String> {
    // `Option<T>`: `anyOf: [T, {type: null}]` or `type: [t, "null"]`.
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let non_null: Vec<&Value> =
            any.iter().filter(|s| s.get("type").and_then(Value::as_str) != Some("null")).collect();
        if let [only] = non_null[..] {
            let mut inner = property(only)?;
            for key in ["title", "description", "default"] {
                if let Some(v) = schema.get(key) {
                    inner[key] = v.clone();
                }
            }
            return Ok(inner);
        }
        return Err("is a union; use a unit-variant enum".into());
    }
    let kind = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => {
            let non_null: Vec<&str> = types.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect();
            match non_null[..] {
                [only] => only,
                _ => return Err("has more than one type".into()),
            }
        }
        _ if schema.get("oneOf").is_some() => "string",
        _ => return Err("has no primitive type (nested structs, maps and unions are not allowed)".into()),
    };
    let mut out = Map::new();
    out.insert("type".into(), kind.into());
    let copy = |out: &mut Map<String, Value>, keys: &[&str]| {
        for key in keys {
            if let Some(v) = schema.get(*key) {
                out.insert((*key).to_owned(), v.clone());
            }
        }
    };
    copy(&mut out, &["title", "description", "default"]);
    match kind {
        "string" => {
            copy(&mut out, &["minLength", "maxLength", "enum", "enumNames"]);
            if let Some(format) = schema.get("format").and_then(Value::as_str) {
                if !["email", "uri", "date", "date-time"].contains(&format) {
                    return Err(format!(
                        "has string format `{format}`; elicitation allows email, uri, date, date-time"
                    ));
                }
                out.insert("format".into(), format.into());
            }
            if let Some(one_of) = schema.get("oneOf") {
                out.insert("oneOf".into(), titled(one_of)?);
            }
        }
        "number" | "integer" => copy(&mut out, &["minimum", "maximum"]),
        "boolean" => {}
        "array" => {
            copy(&mut out, &["minItems", "maxItems"]);
            let items = schema.get("items").ok_or("is a list without an item type")?;
            if let Some(values) = items.get("enum") {
                out.insert("items".into(), json!({"type": "string", "enum": values}));
            } else if let Some(choices) = items.get("anyOf").or_else(|| items.get("oneOf")) {
                out.insert("items".into(), json!({"anyOf": titled(choices)?}));
            } else {
                return Err("is a list of something other than a unit-variant enum".into());
            }
        }
        other => {
            return Err(format!(
                "has type `{other}`; elicitation allows string, number, integer, boolean and enum lists"
            ));
        }
    }
    Ok(Value::Object(out))
}

/// `oneOf`/`anyOf` choices as `{const, title}`.
fn titled(choices: &Value) -> Result<Value, String> {
    let choices = choices.as_array().ok_or("has malformed choices")?;
    choices
        .iter()
        .map(|c| {
            let value = c
                .get("const")
                .or_else(|| c.get("enum").and_then(|e| e.get(0)))
                .ok_or("has a choice that is not a unit variant")?;
            let title = c.get("title").or_else(|| c.get("description")).cloned().unwrap_or_else(|| value.clone());
            Ok(json!({"const": value, "title": title}))
        })
        .collect::<Result<Vec<_>, String>>()
        .map(Value::Array)
}

// ---------------------------------------------------------------------------------------
// The signal a handler returns.

/// The value `Ctx::ask` returns: the ask, riding in a `ToolError` so that `?` and `Err(..)`
/// carry it, or the configuration failure of an ask built wrong.
pub(crate) fn signal(ask: Ask) -> ToolError {
    if let Some(problem) = &ask.problem {
        return ToolError::configuration(format!("The server is misconfigured: {problem}."))
            .reason("invalid_elicitation_form")
            .retryable(false)
            .hint("Do not retry; report the request id to the server operator.");
    }
    ToolError::__asking(Box::new(ask))
}

/// The ask a handler's error carries, if it is one.
pub(crate) fn take(error: &mut ToolError) -> Option<Ask> {
    error.__take_ask().and_then(|any| any.downcast::<Ask>().ok()).map(|ask| *ask)
}

// ---------------------------------------------------------------------------------------
// Capabilities: what each ask needs, and which answers a client may give.

/// The capability (dotted path) an embedded request needs.
fn needs(request: &InputRequest) -> &'static str {
    let param = |key: &str| request.params.as_ref().and_then(|p| p.get(key));
    match request.method {
        "elicitation/create" if param("mode").and_then(Value::as_str) == Some("url") => "elicitation.url",
        "elicitation/create" => "elicitation.form",
        "sampling/createMessage" if param("tools").is_some() || param("toolChoice").is_some() => "sampling.tools",
        "sampling/createMessage" if param("includeContext").and_then(Value::as_str).is_some_and(|c| c != "none") => {
            "sampling.context"
        }
        "sampling/createMessage" => "sampling",
        _ => "roots",
    }
}

/// Whether `capabilities` has the dotted path `capability` (a bare `elicitation` counts as
/// `elicitation.form`).
pub(crate) fn has_capability(capabilities: &Value, capability: &str) -> bool {
    let mut at = capabilities;
    let mut parts = capability.split('.').peekable();
    while let Some(part) = parts.next() {
        match at.get(part) {
            Some(next) if next.is_object() => at = next,
            Some(next) if parts.peek().is_none() && !next.is_null() => return true,
            _ => {
                let bare_form =
                    part == "form" && parts.peek().is_none() && at.as_object().is_some_and(serde_json::Map::is_empty);
                return bare_form;
            }
        }
    }
    true
}

/// A dotted capability as a `ClientCapabilities` object: `sampling.tools` →
/// `{"sampling": {"tools": {}}}`, merged into `into`.
fn merge_capability(into: &mut Map<String, Value>, capability: &str) {
    let mut at = into;
    for part in capability.split('.') {
        let next = at.entry(part.to_owned()).or_insert_with(|| Value::Object(Map::new()));
        if !next.is_object() {
            *next = Value::Object(Map::new());
        }
        let Value::Object(map) = next else { return };
        at = map;
    }
}

/// The requests of an ask the client cannot take: key, method, capability; in order.
fn refused<'a>(ask: &'a Ask, capabilities: Option<&Value>) -> Vec<(&'a str, &'static str, &'static str)> {
    ask.requests
        .iter()
        .map(|(key, request)| (key.as_str(), request.method, needs(request)))
        .filter(|(_, _, capability)| !capabilities.is_some_and(|caps| has_capability(caps, capability)))
        .collect()
}

/// The legacy refusal (RESEARCH §2.5): the `client_capability_missing` failure. Over HTTP
/// without sessions it names the real cause (a 2025-era request there gets no
/// server-to-client round trip, whatever the client declared) and the fix (a 2026-07-28
/// client, or sessions); the ask's fallback hint comes after the hint either way. `None` when
/// the client may be asked everything.
pub(crate) fn legacy_refusal(ask: &Ask, client: &Client) -> Option<ToolError> {
    let capabilities = client.capabilities();
    let (key, method, capability) = if client.is_per_request() {
        // Nothing can be asked, whatever the request would need.
        ask.requests.first().map(|(key, request)| (key.as_str(), request.method, needs(request)))?
    } else {
        *refused(ask, capabilities).first()?
    };
    let (message, hint) = match capabilities {
        _ if client.is_per_request() => (
            format!(
                "Cannot request input '{key}' ({method}): this server serves HTTP without sessions, and a 2025-era request there cannot be asked anything (no server-to-client round trip is possible within one request)"
            ),
            "Asking needs a client that speaks MCP 2026-07-28 (it answers in a retry of the call) or a server that keeps sessions; do not retry with this client.".to_owned(),
        ),
        Some(_) => (
            format!(
                "Cannot request input '{key}' ({method}): the client on this 2025-era connection did not declare the `{capability}` capability"
            ),
            format!("Reconnect with a client that declares the `{capability}` capability."),
        ),
        None => (
            format!(
                "Cannot request input '{key}' ({method}): the client on this 2025-era connection did not declare the `{capability}` capability (this request has no session, so no client capabilities are available and no server-to-client round trip can be made)"
            ),
            format!(
                "No client capabilities are visible without a session, so `{capability}` cannot be requested here. Reconnect over a stateful session whose client declares it."
            ),
        ),
    };
    let hint = match &ask.fallback_hint {
        Some(more) => format!("{hint} {more}"),
        None => hint,
    };
    Some(ToolError::new(ErrorCode::InvalidRequest, message).reason(CAPABILITY_MISSING).retryable(false).hint(hint))
}

/// Whether an answer of this kind may come from this client (RESEARCH §2.3, response side).
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
fn build(capabilities: Option<&Value>, answers: Vec<(String, Value)>, state: Option<String>) -> Inputs {
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

// ---------------------------------------------------------------------------------------
// The 2026-07-28 wire.

/// Who calls, as sealed state and consent records bind it: the principal's client id, subject
/// and tenant, each empty when it has none (and all three without authorization).
pub(crate) fn caller_of(principal: Option<&Principal>) -> [&str; 3] {
    let Some(principal) = principal else { return ["", "", ""] };
    [principal.client_id().unwrap_or(""), principal.subject().unwrap_or(""), principal.tenant().unwrap_or("")]
}

/// What a handler runs for: a method and its tool or prompt name, or resource URI. Kept as
/// given, and turned into a binding only when a state is sealed or opened, or a consent
/// recorded, so that a call that does neither allocates nothing for it.
#[derive(Clone, Debug)]
pub(crate) struct Operation {
    method: &'static str,
    name: &'static str,
    uri: Option<Arc<str>>,
}

impl Operation {
    /// `tools/call` of tool `name`, `prompts/get` of prompt `name`, or (for a completer or a
    /// lister, which cannot ask) `""`.
    pub(crate) fn named(method: &'static str, name: &'static str) -> Operation {
        Operation { method, name, uri: None }
    }

    /// `resources/read` of `uri` (by resource `name`).
    pub(crate) fn read(name: &'static str, uri: Arc<str>) -> Operation {
        Operation { method: "resources/read", name, uri: Some(uri) }
    }

    /// What a sealed state and a consent record are bound to: the caller ([`caller_of`]) and
    /// this operation, as one JSON array.
    pub(crate) fn binding(&self, principal: Option<&Principal>) -> String {
        let [client_id, subject, tenant] = caller_of(principal);
        let target = self.uri.as_deref().unwrap_or(self.name);
        serde_json::to_string(&[client_id, subject, tenant, self.method, target]).unwrap_or_default()
    }
}

/// How one request's state is sealed and opened: the server's key ring, who calls what, and
/// the request id a refusal names.
pub(crate) struct Sealing<'a> {
    pub(crate) sealer: &'a Sealer,
    pub(crate) principal: Option<&'a Principal>,
    pub(crate) operation: &'a Operation,
    pub(crate) request_id: RequestId,
}

impl Sealing<'_> {
    /// The one refusal of a state that does not open, whatever the reason (which is logged
    /// at debug, never sent).
    fn refuse(&self, why: &dyn std::fmt::Display) -> RpcError {
        tracing::debug!(target: "mcp_runtime::call", request_id = %self.request_id, %why, "requestState refused");
        RpcError {
            code: -32602,
            message: "Invalid or expired requestState".to_owned(),
            data: Some(json!({"reason": INVALID_STATE, "requestId": self.request_id.as_str()})),
        }
    }
}

/// A retry's `inputResponses` and `requestState`, read once per call: `-32602` when they are
/// malformed (not an object), or when the state does not open (not a string, not sealed by
/// this server's keys, changed, expired, or sealed for another caller or operation). A 2025
/// request's are ignored: its handler sees only what the shim collects.
pub(crate) fn incoming(
    client: &Client,
    sealing: &Sealing<'_>,
    responses: Option<&RawValue>,
    state: Option<&RawValue>,
) -> Result<Inputs, RpcError> {
    if client.era() != Era::Modern {
        return Ok(Inputs::default());
    }
    let state = match state {
        None => None,
        Some(raw) => {
            let token = serde_json::from_str::<&str>(raw.get())
                .map(std::borrow::Cow::Borrowed)
                .or_else(|_| serde_json::from_str::<String>(raw.get()).map(std::borrow::Cow::Owned))
                .map_err(|_| sealing.refuse(&"not a string"))?;
            let binding = sealing.operation.binding(sealing.principal);
            Some(sealing.sealer.open(&token, &binding).map_err(|why| sealing.refuse(&why))?)
        }
    };
    let answers = match responses {
        None => Vec::new(),
        Some(raw) if jsonrpc::is_object(raw) => {
            let map: Map<String, Value> = serde_json::from_str(raw.get())
                .map_err(|_| RpcError::invalid_params("Invalid params: `inputResponses` must be an object"))?;
            map.into_iter().collect()
        }
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: `inputResponses` must be an object of answers keyed like the server's `inputRequests`",
            ));
        }
    };
    Ok(build(client.capabilities(), answers, state))
}

/// [`incoming`] for a request whose params were read as a tree (`prompts/get`,
/// `resources/read`).
pub(crate) fn inputs_of(client: &Client, sealing: &Sealing<'_>, params: Option<&Value>) -> Result<Inputs, RpcError> {
    let raw = |key: &str| params.and_then(|p| p.get(key)).and_then(|v| serde_json::value::to_raw_value(v).ok());
    incoming(client, sealing, raw("inputResponses").as_deref(), raw("requestState").as_deref())
}

/// An ask as a 2026-07-28 `input_required` result.
#[derive(Debug)]
pub(crate) struct Asked {
    requests: Map<String, Value>,
    state: Option<String>,
}

/// A request's outcome: its result, or (2026-07-28 only) what it needs first, or (a task
/// tool's call, with the tasks extension) the task it goes on as: its `Task` members.
pub(crate) enum Reply<T = CallToolResult> {
    Complete(T),
    InputRequired(Asked),
    Task(Map<String, Value>),
}

/// The modern leg: the at-least-one rule (`-32603`: the handler's bug), then the gate against
/// this request's capabilities (`-32021` naming every missing capability).
pub(crate) fn modern(ask: Ask, client: &Client, tool: &str, sealing: &Sealing<'_>) -> Result<Asked, RpcError> {
    gate(&ask, client, tool)?;
    let requests = wire(ask.requests).collect();
    // The one place outgoing state is written: sealed, bound to this caller and operation.
    let state = match ask.state {
        None => None,
        Some(state) => Some(sealing.sealer.seal(&state, &sealing.operation.binding(sealing.principal)).ok_or_else(
            || RpcError {
                code: -32603,
                message: format!(
                    "Internal error: tool {tool} returned a requestState of {} bytes, too large to seal within {} KiB; \
                     keep the state small (an id) and put the rest in ctx.state()",
                    state.len(),
                    crate::state::seal::MAX_TOKEN_BYTES / 1024
                ),
                data: None,
            },
        )?),
    };
    Ok(Asked { requests, state })
}

/// What a task keeps of an ask: the requests by the handler's keys, and the state.
pub(crate) type TaskAsk = (Vec<(String, Value)>, Option<String>);

/// An ask made during a task: the same rules as [`modern`]; the requests by the handler's
/// keys, and the state as written (a task keeps it in its record: it never travels).
pub(crate) fn for_task(ask: Ask, client: &Client, tool: &str) -> Result<TaskAsk, RpcError> {
    gate(&ask, client, tool)?;
    Ok((wire(ask.requests).collect(), ask.state))
}

/// The requests of an ask as the wire shows them: `{method, params?}` by key.
fn wire(requests: Vec<(String, InputRequest)>) -> impl Iterator<Item = (String, Value)> {
    requests.into_iter().map(|(key, InputRequest { method, params })| {
        let mut request = Map::with_capacity(2);
        request.insert("method".into(), method.into());
        if let Some(params) = params {
            request.insert("params".into(), params);
        }
        (key, Value::Object(request))
    })
}

/// The rules of a 2026-07-28 ask: at least one request or a state (`-32603`), and every
/// capability the requests need declared (`-32021` naming them all).
fn gate(ask: &Ask, client: &Client, tool: &str) -> Result<(), RpcError> {
    if ask.requests.is_empty() && ask.state.is_none() {
        return Err(RpcError {
            code: -32603,
            message: format!(
                "Internal error: tool {tool} asked for input but gave neither an input request nor a requestState"
            ),
            data: None,
        });
    }
    let refused = refused(ask, client.capabilities());
    if let Some((key, method, _)) = refused.first() {
        let mut required = Map::new();
        for (_, _, capability) in &refused {
            merge_capability(&mut required, capability);
        }
        let message = format!(
            "Cannot request input '{key}' ({method}): the request's client capabilities do not declare the required capability"
        );
        return Err(RpcError { code: -32021, message, data: Some(json!({"requiredCapabilities": required})) });
    }
    Ok(())
}

/// The `input_required` result.
pub(crate) fn render<'a>(asked: &'a Asked, server_info: &'a RawValue) -> impl Serialize + 'a {
    #[derive(Serialize)]
    struct InputRequired<'a> {
        #[serde(rename = "resultType")]
        result_type: &'static str,
        #[serde(rename = "inputRequests", skip_serializing_if = "Map::is_empty")]
        requests: &'a Map<String, Value>,
        #[serde(rename = "requestState", skip_serializing_if = "Option::is_none")]
        state: Option<&'a str>,
        #[serde(rename = "_meta")]
        meta: ResultMeta<'a>,
    }
    InputRequired {
        result_type: "input_required",
        requests: &asked.requests,
        state: asked.state.as_deref(),
        meta: ResultMeta::new(server_info),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_are_found_by_dotted_path() {
        let caps = json!({"sampling": {}, "elicitation": {}, "roots": {"listChanged": true}});
        assert!(has_capability(&caps, "sampling"));
        assert!(has_capability(&caps, "roots.listChanged"));
        // A bare `elicitation` is form elicitation; it is not URL elicitation.
        assert!(has_capability(&caps, "elicitation.form"));
        assert!(!has_capability(&caps, "elicitation.url"));
        assert!(!has_capability(&caps, "sampling.tools"));
        assert!(!has_capability(&json!({}), "sampling"));
        assert!(!has_capability(&json!({"sampling": null}), "sampling"));
        assert!(!has_capability(&json!({"elicitation": {"url": {}}}), "elicitation.form"));
    }

    #[test]
    fn answers_are_kept_only_when_declared() {
        let answers = json!({
            "confirm": {"action": "accept", "content": {"ok": true}},
            "link": {"action": "accept"},
            "summary": {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m"},
            "tooly": {"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "x", "input": {}}], "model": "m"},
            "where": {"roots": [{"uri": "file:///p"}]},
            "wrapped": {"result": {"action": "accept"}},
            "number": 12345,
        });
        let keys = |caps: Option<Value>| {
            let inputs = Inputs::for_test(answers.clone(), None, caps.as_ref());
            let mut keys: Vec<String> = inputs.answers.keys().cloned().collect();
            keys.sort();
            keys
        };
        assert_eq!(keys(Some(json!({"elicitation": {}}))), ["confirm", "link"]);
        assert_eq!(keys(Some(json!({"elicitation": {"url": {}}}))), ["link"]);
        assert_eq!(keys(Some(json!({"sampling": {}}))), ["summary"]);
        assert_eq!(keys(Some(json!({"sampling": {"tools": {}}}))), ["summary", "tooly"]);
        assert_eq!(keys(Some(json!({"roots": {}}))), ["where"]);
        assert!(keys(Some(json!({"experimental": {"x": {}}}))).is_empty());
        assert!(keys(None).is_empty());
        let inputs = Inputs::for_test(answers, None, Some(&json!({})));
        let mut dropped = inputs.dropped().to_vec();
        dropped.sort();
        assert_eq!(dropped, ["number", "wrapped"]);
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Colour {
        Red,
        Green,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Good {
        /// Your name.
        name: String,
        age: Option<u32>,
        score: f64,
        ok: bool,
        colour: Colour,
        colours: Vec<Colour>,
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        inner: Good,
    }

    #[test]
    fn form_schemas_are_flat_and_primitive() {
        let form = form_of::<Good>();
        let schema = form.schema.as_ref().unwrap();
        assert_eq!(
            schema,
            &json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "Your name."},
                "age": {"type": "integer", "minimum": 0},
                "score": {"type": "number"},
                "ok": {"type": "boolean"},
                "colour": {"type": "string", "enum": ["Red", "Green"]},
                "colours": {"type": "array", "items": {"type": "string", "enum": ["Red", "Green"]}},
            }, "required": ["name", "score", "ok", "colour", "colours"]})
        );
        let err = form_of::<Nested>().schema.clone().unwrap_err();
        assert!(
            err.ends_with(
                "field `inner` has type `object`; elicitation allows string, number, integer, boolean and enum lists"
            ),
            "{err}"
        );
    }

    #[test]
    fn typed_answers_are_validated() {
        let caps = json!({"elicitation": {}});
        let answer = |content: Value| {
            Inputs::for_test(json!({"f": {"action": "accept", "content": content}}), None, Some(&caps))
                .form::<Good>("f")
        };
        let good = json!({"name": "a", "score": 1.5, "ok": true, "colour": "Red", "colours": ["Green"]});
        assert!(matches!(answer(good), Elicited::Accepted(Good { ok: true, .. })));
        assert_eq!(answer(json!({"name": "a"})).map_missing(), "missing");
        let declined = Inputs::for_test(json!({"f": {"action": "decline"}}), None, Some(&caps));
        assert_eq!(declined.form::<Good>("f").map_missing(), "declined");
    }

    impl<T> Elicited<T> {
        fn map_missing(&self) -> &'static str {
            match self {
                Elicited::Accepted(_) => "accepted",
                Elicited::Declined => "declined",
                Elicited::Cancelled => "cancelled",
                Elicited::Missing => "missing",
            }
        }
    }

    #[test]
    fn the_modern_gate_names_every_missing_capability() {
        let client = |caps: Value| {
            Client::Modern(Arc::new(crate::rpc::era::Envelope {
                version: "2026-07-28",
                capabilities: caps,
                info: None,
                log_level: None,
            }))
        };
        let ask = || {
            Ask::new()
                .elicit("confirm", Elicitation::form("Sure?", json!({"type": "object", "properties": {}})))
                .sample("tools", Sampling::new(10).user("x").param("tools", json!([])))
                .list_roots("where")
        };
        let sealer = Sealer::ephemeral(crate::state::seal::DEFAULT_TTL);
        let operation = Operation::named("tools/call", "t");
        let sealing =
            Sealing { sealer: &sealer, principal: None, operation: &operation, request_id: RequestId::generate() };
        let modern = |ask, client: &Client, tool| modern(ask, client, tool, &sealing);
        let err = modern(ask(), &client(json!({"sampling": {}})), "t").unwrap_err();
        assert_eq!(err.code, -32021);
        assert_eq!(
            err.message,
            "Cannot request input 'confirm' (elicitation/create): the request's client capabilities do not declare the required capability"
        );
        assert_eq!(
            err.data,
            Some(
                json!({"requiredCapabilities": {"elicitation": {"form": {}}, "sampling": {"tools": {}}, "roots": {}}})
            )
        );
        assert!(
            modern(ask(), &client(json!({"elicitation": {}, "sampling": {"tools": {}}, "roots": {}})), "t").is_ok()
        );
        assert_eq!(modern(Ask::new(), &client(json!({})), "t").unwrap_err().code, -32603);
    }
}
