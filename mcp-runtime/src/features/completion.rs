//! `completion/complete`: suggestions for a prompt's argument or a resource template's
//! variable, from the completer declared with `complete(name = fn)`.

use mcp_core::ToolError;
use serde_json::{Value, json};

use crate::context::ctx::{BoxFuture, Call, Caller};
use crate::features::call::{Completion, Road};
use crate::rpc::catch::{CatchUnwind, panic_text};
use crate::rpc::envelope::{Origin, Site};
use crate::rpc::jsonrpc::RpcError;

/// A completer as `#[prompt]` and `#[resource]` register it: the call's `value` argument is
/// what the user typed so far.
pub type Completer = fn(Call) -> BoxFuture<'static, Result<Vec<String>, ToolError>>;

/// At most this many values are sent; `total` and `hasMore` tell the rest.
const MAX_VALUES: usize = 100;

/// What a completer fn returns: `Vec<String>`, or a `Result` of it.
#[diagnostic::on_unimplemented(
    message = "a completer cannot return `{Self}`",
    label = "return `Vec<String>` or `Result<Vec<String>, ToolError>`"
)]
pub trait IntoCompletion {
    /// The values, or why there are none.
    fn into_completion(self) -> Result<Vec<String>, ToolError>;
}

impl IntoCompletion for Vec<String> {
    fn into_completion(self) -> Result<Vec<String>, ToolError> {
        Ok(self)
    }
}

impl<E: Into<ToolError>> IntoCompletion for Result<Vec<String>, E> {
    fn into_completion(self) -> Result<Vec<String>, ToolError> {
        self.map_err(Into::into)
    }
}

/// A probe that lets a completer be a plain fn or an `async fn`: `(&&CompletionOf::of(&out))
/// .complete(out).await` awaits `out` when it is a future ([`AwaitCompletion`]) and takes it
/// as it is otherwise ([`ReadyCompletion`]). Its marker is `fn() -> T`, so the probe is
/// `Sync` whatever `T` is: the future that holds `&&CompletionOf<T>` is `Send` when the
/// completer's is, without asking the completer's future to be `Sync`.
pub struct CompletionOf<T>(std::marker::PhantomData<fn() -> T>);

impl<T> CompletionOf<T> {
    /// The probe for a completer's return value.
    pub fn of(_: &T) -> Self {
        CompletionOf(std::marker::PhantomData)
    }
}

/// An `async fn` completer's future.
pub trait AwaitCompletion<T> {
    /// Awaits the completer, then reads its values.
    fn complete(&self, out: T) -> impl Future<Output = Result<Vec<String>, ToolError>>;
}

impl<T: Future<Output: IntoCompletion>> AwaitCompletion<T> for &CompletionOf<T> {
    async fn complete(&self, out: T) -> Result<Vec<String>, ToolError> {
        out.await.into_completion()
    }
}

/// A plain fn completer's values. Implemented for every `T`, the bound on the method: a
/// completer that returns neither a future nor values is an error at the completer, saying
/// what it may return ([`IntoCompletion`]'s message), not a method that cannot be called.
pub trait ReadyCompletion<T> {
    /// Reads the values.
    fn complete(&self, out: T) -> impl Future<Output = Result<Vec<String>, ToolError>>
    where
        T: IntoCompletion;
}

impl<T> ReadyCompletion<T> for CompletionOf<T> {
    async fn complete(&self, out: T) -> Result<Vec<String>, ToolError>
    where
        T: IntoCompletion,
    {
        out.into_completion()
    }
}

/// What a `completion/complete` asks: `{ref, argument: {name, value}}`.
pub(crate) struct CompletionRequest {
    /// `ref/prompt` by name, or `ref/resource` by template.
    pub(crate) reference: Ref,
    pub(crate) argument: String,
    pub(crate) value: String,
}

pub(crate) enum Ref {
    Prompt(String),
    Resource(String),
}

/// The params, or a `-32602` that shows their shape.
pub(crate) fn request(params: Option<&Value>) -> Result<CompletionRequest, RpcError> {
    let shape = || {
        RpcError::invalid_params(
            "Invalid params: completion/complete needs {ref: {type: \"ref/prompt\", name} or {type: \"ref/resource\", uri}, argument: {name, value}}",
        )
    };
    let params = params.ok_or_else(shape)?;
    let reference = params.get("ref").ok_or_else(shape)?;
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned).ok_or_else(shape);
    let reference = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => Ref::Prompt(text(reference, "name")?),
        Some("ref/resource") => Ref::Resource(text(reference, "uri")?),
        _ => return Err(shape()),
    };
    let argument = params.get("argument").ok_or_else(shape)?;
    Ok(CompletionRequest { reference, argument: text(argument, "name")?, value: text(argument, "value")? })
}

/// Runs the completer of `argument` among `completers` (of the prompt or template `owner`,
/// for a caller that holds its `scopes`; refused like a read or a get otherwise) on the road
/// (`features::call`: completion passes no hooks, and a completer does not ask):
/// `{completion: {values, total, hasMore}}`, with no values when it has none.
pub(crate) async fn run(
    caller: &Caller<'_>,
    owner: &'static str,
    scopes: &[&str],
    completers: &[(&'static str, Completer)],
    req: CompletionRequest,
) -> Result<Value, RpcError> {
    let road = Road::<Completion>::new(caller);
    let site = Site { causes: caller.causes, ..Site::bare("completion", owner, caller.drafts) };
    road.admit(site, scopes, owner, None).await?;
    let Some((_, completer)) = completers.iter().find(|(arg, _)| *arg == req.argument) else {
        return Ok(json!({"completion": {"values": [], "total": 0, "hasMore": false}}));
    };
    let call = caller.call(owner, json!({"value": req.value}), road.request_id);
    let mut values = match CatchUnwind(completer(call)).await {
        Ok(Ok(values)) => values,
        Ok(Err(err)) => return Err(road.fail(site, err, Origin::Handler, None)),
        Err(payload) => {
            tracing::error!(target: "mcp_runtime::call", request_id = %road.request_id, completer = owner, payload = panic_text(&*payload), "completer panicked");
            let err = ToolError::internal(format!("Completing `{}` of {owner} failed unexpectedly.", req.argument))
                .reason("internal_error")
                .hint("Go on without suggestions.");
            return Err(road.fail(site, err, Origin::Fault, None));
        }
    };
    let total = values.len();
    values.truncate(MAX_VALUES);
    Ok(json!({"completion": {"values": values, "total": total, "hasMore": total > MAX_VALUES}}))
}
