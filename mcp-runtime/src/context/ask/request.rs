//! What a handler asks the caller for: the [`Ask`] it ends its run with, and the requests
//! it holds ([`Elicitation`], [`Sampling`], the client's roots), each kept as the
//! `{method, params?}` the client is sent. Built in the handler; `gate` checks it, `wire`
//! (2026-07-28) or `shim` (2025) sends it.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::form::form_of;

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

    /// State for the next round, handed back in [`Inputs::state`](crate::Inputs::state).
    /// Opaque to the client, but sent to it: never put a secret or an authorization decision
    /// in it unprotected.
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
    /// the answer back as `T` with [`Inputs::form`](crate::Inputs::form). `T` must be a flat
    /// struct of strings (optionally with `format` email, uri, date or date-time), numbers,
    /// integers, booleans, unit-variant enums and lists of unit-variant enums; any other
    /// field makes the call fail with a configuration error naming it.
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
