//! `Ctx`: what a handler knows about its call, and how it talks back while it works.

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use mcp_core::{Contract, ContractEntry, NoReasons, ToolError};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::Notify;

use crate::auth::principal::Principal;
use crate::context::ask::{Ask, CAPABILITY_MISSING, Elicited, Inputs, Operation, has_capability};
use crate::context::consent::Consent;
use crate::rpc::channel::Channel;
use crate::rpc::era::Client;
pub use crate::rpc::era::{Era, LogLevel};
use crate::rpc::request_id::RequestId;
use crate::state::bus::{Bus, Event};
use crate::state::store::{State, Stores};

pub use crate::state::store::BoxFuture;

/// Changes announced by the server or a handler (resource updates, list changes, task
/// records), for the sessions and listen streams that asked to hear of them: published on
/// the server's bus, so that they reach them on every replica.
#[derive(Default)]
pub(crate) struct Notices {
    pub(crate) bus: Bus,
}

impl Notices {
    pub(crate) fn new(bus: Bus) -> Self {
        Notices { bus }
    }

    pub(crate) fn resource_updated(&self, uri: String) {
        self.bus.publish(Event::ResourceUpdated(Arc::from(uri)));
    }

    pub(crate) fn resources_changed(&self) {
        self.bus.publish(Event::ResourcesChanged);
    }
}

/// The cancellation signal of one call.
#[derive(Default)]
pub(crate) struct CancelState {
    flag: AtomicBool,
    notify: Notify,
}

impl CancelState {
    pub(crate) fn cancel(&self) {
        self.flag.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Acquire)
    }

    pub(crate) async fn cancelled(&self) {
        let notified = self.notify.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self.is_cancelled() {
            return;
        }
        notified.await;
    }
}

/// Progress reporting state: the client's token and the last value sent.
impl CallInfo {
    /// The same call, for a context built beside the arguments (`Call::context`).
    fn clone_for_context(&self) -> CallInfo {
        CallInfo {
            tool: self.tool,
            request_id: self.request_id,
            started: self.started,
            channel: Arc::clone(&self.channel),
            client: self.client.clone(),
            stores: Arc::clone(&self.stores),
            operation: self.operation.clone(),
            notices: Arc::clone(&self.notices),
            progress: self.progress.clone(),
            inputs: self.inputs.clone(),
            cancel: Arc::clone(&self.cancel),
            task: self.task.clone(),
        }
    }
}

pub(crate) struct Progress {
    pub(crate) token: Box<serde_json::value::RawValue>,
    last: std::sync::Mutex<Option<f64>>,
}

impl Progress {
    pub(crate) fn new(token: Box<serde_json::value::RawValue>) -> Self {
        Progress { token, last: std::sync::Mutex::new(None) }
    }
}

/// Everything the runtime knows about one call; owned by its `Ctx`.
pub struct CallInfo {
    pub(crate) tool: &'static str,
    pub(crate) request_id: RequestId,
    pub(crate) started: Instant,
    /// Where the call's messages go.
    pub(crate) channel: Arc<Channel>,
    /// The client as this request shows it (its era, capabilities, log level).
    pub(crate) client: Client,
    /// The server's app data, state store and sealer.
    pub(crate) stores: Arc<Stores>,
    /// What the handler runs for: with the client, what sealed state and consent records
    /// are bound to.
    pub(crate) operation: Operation,
    pub(crate) notices: Arc<Notices>,
    pub(crate) progress: Option<Arc<Progress>>,
    /// This round's answers to what the handler asked (`Ctx::ask`), and its state.
    pub(crate) inputs: Inputs,
    pub(crate) cancel: Arc<CancelState>,
    /// Set when the call may go on as a task (a task tool, a client that declared the
    /// extension): how `Ctx::run_as_task` asks for it. `None` on every other call.
    pub(crate) task: Option<Arc<TaskHook>>,
}

/// How a handler asks to go on as a task ([`Ctx::run_as_task`]), for the runtime that waits
/// on it while the call is inline, and where its `ctx.progress` goes: the task's
/// `statusMessage`, which the task's runner writes at its own pace.
#[derive(Default)]
pub(crate) struct TaskHook {
    asked: AtomicBool,
    notify: Notify,
    /// The latest progress (its value, for the rule that progress increases, and its text),
    /// and whether the runner has written it.
    status: std::sync::Mutex<TaskStatus>,
    progressed: Notify,
}

#[derive(Default)]
struct TaskStatus {
    /// The latest progress value; `None` before the first report.
    last: Option<f64>,
    /// Its text, rewritten in place on each report (no allocation once it is long enough).
    text: String,
    written: bool,
}

impl TaskHook {
    /// Records a progress report as the task's status message (`3 of 10: exporting ISS-42`):
    /// whether it was taken (progress that does not increase is dropped).
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        use std::fmt::Write as _;
        {
            let mut status = self.status.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if status.last.is_some_and(|l| progress <= l) {
                return false;
            }
            status.last = Some(progress);
            status.written = false;
            let text = &mut status.text;
            text.clear();
            let _ = write!(text, "{progress}");
            if let Some(total) = total {
                let _ = write!(text, " of {total}");
            }
            if let Some(message) = message {
                let _ = write!(text, ": {message}");
            }
        }
        self.progressed.notify_one();
        true
    }

    /// The latest progress message not yet written to the task's record, marked written.
    pub(crate) fn take_status(&self) -> Option<String> {
        let mut status = self.status.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if status.written || status.last.is_none() {
            return None;
        }
        status.written = true;
        Some(status.text.clone())
    }

    /// Resolves when the handler reported progress (at once when a report came since the
    /// last wait).
    pub(crate) async fn progressed(&self) {
        self.progressed.notified().await;
    }

    fn ask(&self) {
        if !self.asked.swap(true, Ordering::AcqRel) {
            // A permit is kept when nobody waits yet.
            self.notify.notify_one();
        }
    }

    /// Whether the handler asked.
    pub(crate) fn asked(&self) -> bool {
        self.asked.load(Ordering::Acquire)
    }

    /// Resolves once the handler asked.
    pub(crate) async fn notified(&self) {
        if !self.asked() {
            self.notify.notified().await;
        }
    }
}

/// The context of one tool call: its request id, the client, logging and progress back to
/// the client, cancellation, shared state, and — through `R`, the tool's reason enum —
/// typed failures.
///
/// Take it as a by-reference parameter anywhere in a `#[tool]` fn's signature: `ctx: &Ctx`
/// for a tool without `#[errors]`, `ctx: &Ctx<FetchItemsError>` for `fn fetch_items` with
/// `#[errors(...)]`. It is optional.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Counts to `n`, reporting progress, and stops when the client cancels.
/// #[tool]
/// fn count(ctx: &Ctx, n: u32) -> Result<String, ToolError> {
///     for i in 1..=n {
///         if ctx.is_cancelled() {
///             return Err(ToolError::cancelled());
///         }
///         ctx.progress(f64::from(i), Some(f64::from(n)), None);
///     }
///     ctx.info(format!("counted to {n}"));
///     Ok(format!("counted to {n} in request {}", ctx.request_id()))
/// }
///
/// let ctx: Ctx = mcp_runtime::testing::TestCtx::new().build();
/// assert!(count::handler(&ctx, 3).unwrap().starts_with("counted to 3"));
/// ```
///
/// The guide's chapter on it: [`crate::guide::context`].
pub struct Ctx<R = NoReasons> {
    info: CallInfo,
    _contract: PhantomData<fn() -> R>,
}

/// The log's account of a [`Ctx::app_data`] failure (a `source`: logged, never sent).
#[derive(Debug, thiserror::Error)]
#[error(
    "no `{0}` was registered: add `.app_data(value)` to `Server::builder(..)` (declared with `#[tool(app_data(..))]`, `build()` names it)"
)]
struct MissingAppData(&'static str);

impl<R: Contract> FromCall for Ctx<R> {
    type Contract = R;

    fn from_call(info: CallInfo) -> Self {
        Ctx { info, _contract: PhantomData }
    }
}

impl<R: Contract> Ctx<R> {
    /// Everything the runtime knows about this call.
    pub(crate) fn call_info(&self) -> &CallInfo {
        &self.info
    }

    /// A declared failure: the entry's code, its `when` as the message, its reason and its
    /// `retryable`. Refine it with the builder methods of [`ToolError`] (`.message(..)`,
    /// `.data(..)`, `.hint(..)`, `.retryable(..)`, `.with_source(..)`); the reason stays.
    /// The declared recovery hint is filled in when the failure leaves the handler.
    ///
    /// It takes the tool's reasons (`R`), and, for a tool that adds `#[errors(...)]` to a
    /// shared `#[tool(contract = Shared)]`, the shared contract's reasons too
    /// ([`ReasonOf`](mcp_core::ReasonOf)).
    pub fn fail(&self, reason: impl mcp_core::ReasonOf<R>) -> ToolError {
        ToolError::from_entry(reason.entry())
    }

    /// The declared recovery hint of a reason (of the tool's, or of its shared contract's).
    pub fn recovery_for(&self, reason: impl mcp_core::ReasonOf<R>) -> &'static str {
        reason.entry().recovery
    }
}

impl<R> Ctx<R> {
    /// Tells clients subscribed to `uri` that its contents changed (after a handler wrote
    /// it): `notifications/resources/updated` goes to the 2025 sessions that subscribed to it
    /// and to the 2026-07-28 listen streams that named it.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.info.notices.resource_updated(uri.into());
    }

    /// Tells clients that the set of resources changed (a note was created or deleted):
    /// `notifications/resources/list_changed` goes to 2025 sessions and to the listen streams
    /// that asked for it.
    pub fn resources_changed(&self) {
        self.info.notices.resources_changed();
    }

    /// The server-generated request id (`XXXXX-XXXXX`), also in the error envelope and on
    /// every log record of this call.
    pub fn request_id(&self) -> &str {
        self.info.request_id.as_str()
    }

    /// The name of the tool being called.
    pub fn tool_name(&self) -> &'static str {
        self.info.tool
    }

    /// When the request arrived.
    pub fn started(&self) -> Instant {
        self.info.started
    }

    /// The protocol era of this request: [`Era::Modern`] when it carried a 2026-07-28
    /// envelope in `_meta`, [`Era::Legacy`] when it belongs to an `initialize` session.
    pub fn era(&self) -> Era {
        self.info.client.era()
    }

    /// The protocol revision of this request: its `_meta` claim (modern), or what
    /// `initialize` negotiated (legacy; `None` without a session, as over stateless HTTP).
    pub fn protocol_version(&self) -> Option<&'static str> {
        self.info.client.protocol_version()
    }

    /// Who the client says it is: this request's `clientInfo` (modern), or the one it
    /// declared in `initialize` (legacy). Self-reported: never a security input.
    pub fn client_info(&self) -> Option<&Value> {
        self.info.client.info()
    }

    /// The client's capabilities: this request's `clientCapabilities` as sent (modern), or
    /// the `capabilities` it declared in `initialize` (legacy; `None` without a session).
    pub fn client_capabilities(&self) -> Option<&Value> {
        self.info.client.capabilities()
    }

    /// Whether this request's client renders MCP Apps views: it declared the
    /// `io.modelcontextprotocol/ui` extension with `text/html;profile=mcp-app` among its
    /// `mimeTypes` (in this request's `clientCapabilities` in 2026-07-28, in `initialize` in
    /// 2025; `false` over HTTP without sessions for a 2025 request, whose capabilities are not
    /// known). A tool with a view (`#[tool(ui = "ui://..")]`) answers with its text content
    /// either way; this tells it whether a view will show its structured result too.
    pub fn client_supports_apps(&self) -> bool {
        self.info.client.shows_apps()
    }

    /// Fails the call unless the client declared `capability`: a dotted path into its
    /// capabilities (`"sampling"`, `"roots"`, `"elicitation.form"`; a bare `elicitation`
    /// counts as `elicitation.form`). Use it before relying on a capability, with `?`.
    ///
    /// A 2026-07-28 request that lacks it is answered with the protocol error `-32021` whose
    /// `data.requiredCapabilities` names what to declare; a 2025 one gets the error envelope
    /// with reason `client_capability_missing` (the client cannot declare more without
    /// reconnecting).
    pub fn require_client_capability(&self, capability: &str) -> Result<(), ToolError> {
        let declared = self.info.client.capabilities();
        if declared.is_some_and(|caps| has_capability(caps, capability)) {
            return Ok(());
        }
        let (why, hint) = match (self.era(), declared) {
            _ if self.info.client.is_per_request() => (
                "this server serves HTTP without sessions, so a 2025-era request's client capabilities are not known"
                    .to_owned(),
                format!(
                    "Call it from a client that speaks MCP 2026-07-28 (it sends `{capability}` with each request), or through a server that keeps sessions."
                ),
            ),
            (Era::Modern, _) => (
                format!("this request's client capabilities do not declare `{capability}`"),
                format!("Send the request again with `{capability}` in `_meta` clientCapabilities."),
            ),
            (_, Some(_)) => (
                format!("the client on this 2025-era connection did not declare the `{capability}` capability"),
                format!("Reconnect with a client that declares the `{capability}` capability."),
            ),
            (_, None) => (
                "no client capabilities are visible (this request has no session)".to_owned(),
                format!("Reconnect over a stateful session whose client declares `{capability}`."),
            ),
        };
        let message = format!("Cannot use `{capability}`: {why}");
        let mut required = Value::Object(serde_json::Map::new());
        for part in capability.split('.').rev() {
            required = serde_json::json!({ part: required });
        }
        Err(ToolError::new(mcp_core::ErrorCode::InvalidRequest, message)
            .reason(CAPABILITY_MISSING)
            .retryable(false)
            .hint(hint)
            .data(serde_json::json!({ "requiredCapabilities": required })))
    }

    /// Ends the call asking the caller for input: `return Err(ctx.ask(Ask::new()…))`. Not a
    /// failure: nothing is logged as one and no error envelope is built. A 2026-07-28 client
    /// receives an `input_required` result and retries with its answers; over a 2025 session
    /// the runtime sends the requests to the client and calls the handler again. Either way
    /// the handler then reads the answers with [`Ctx::inputs`]. See [`Ask`].
    ///
    /// Each request needs a capability of the client (`elicitation.form`, `elicitation.url`,
    /// `sampling`, `sampling.tools`, `roots`); a 2026-07-28 request that lacks one is
    /// answered `-32021`, a 2025 one with the error envelope, reason
    /// `client_capability_missing`. Check [`Ctx::client_capabilities`] first for an
    /// optional ask.
    pub fn ask(&self, ask: Ask) -> ToolError {
        crate::context::ask::signal(ask)
    }

    /// This round's answers to what the handler asked, filtered by the capabilities the
    /// client declared, and the round's `requestState`. Empty on a first call.
    pub fn inputs(&self) -> &Inputs {
        &self.info.inputs
    }

    /// Asks to go on as a task (a tool declared `#[tool(task = "optional")]` or
    /// `"required"`): the call is answered with a `CreateTaskResult` right away, the client
    /// polls `tasks/get` for the outcome, and the handler keeps running, here, in the
    /// background. `true` when the call goes (or went) on as a task: the tool is a task tool
    /// and this request's client declared the tasks extension
    /// (`io.modelcontextprotocol/tasks`, 2026-07-28 only). Otherwise it does nothing and the
    /// call is answered inline, as usual: `false`.
    ///
    /// Call it once the quick checks are done and the long part begins, after any ask that
    /// should be answered before the task exists:
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use std::time::Duration;
    ///
    /// /// Exports every row of a table (long: goes on as a task).
    /// #[tool(task = "optional")]
    /// async fn export_table(ctx: &Ctx, table: String) -> Result<String, ToolError> {
    ///     if table.is_empty() {
    ///         return Err(ToolError::invalid_params("Name a table.").hint("Call list_tables first."));
    ///     }
    ///     ctx.run_as_task();
    ///     tokio::select! {
    ///         () = tokio::time::sleep(Duration::from_millis(10)) => Ok(format!("exported {table}")),
    ///         () = ctx.cancelled() => Err(ToolError::internal("cancelled")),
    ///     }
    /// }
    /// ```
    ///
    /// Inside a task the handler works as in any call: its failures keep their envelope
    /// (the task completes with the `isError` result), [`Ctx::ask`] and [`Ctx::consent`] ask
    /// through the task (`input_required`, answered with `tasks/update`; the handler then
    /// runs again with the answers), and a `tasks/cancel` fires [`Ctx::cancelled`]. It sends
    /// no log or progress notifications (the extension has none for tasks).
    pub fn run_as_task(&self) -> bool {
        match &self.info.task {
            Some(hook) => {
                hook.ask();
                true
            }
            None => false,
        }
    }

    /// A value this process registered with `Server::builder(..).app_data(value)` (a
    /// database pool, a config), by type, ready for `?`:
    ///
    /// ```
    /// # use mcp_runtime::prelude::*;
    /// struct Db { url: String }
    ///
    /// /// Where the data lives.
    /// #[tool]
    /// fn database_url(ctx: &Ctx) -> Result<String, ToolError> {
    ///     Ok(ctx.app_data::<Db>()?.url.clone())
    /// }
    /// ```
    ///
    /// A type that was never registered is the server's mistake, not the caller's: the call
    /// fails with `ConfigurationError` (-32008), not retryable, and the log names the type.
    /// Declare what a tool reads with `#[tool(app_data(Db))]`, and `build()` fails naming a
    /// type that was not registered instead.
    /// For values that must outlive the process or be shared by replicas, use
    /// [`Ctx::state`].
    pub fn app_data<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        let found = self.info.stores.app_data.get(&std::any::TypeId::of::<T>()).and_then(|b| b.downcast_ref::<T>());
        found.ok_or_else(|| {
            ToolError::configuration("The server is misconfigured: this tool cannot run.")
                .retryable(false)
                .hint("Do not retry; report the request id to the server operator.")
                .with_source(MissingAppData(std::any::type_name::<T>()))
        })
    }

    /// The server's state store (`ServerBuilder::state_store`; in memory by default, Redis
    /// to share it between replicas), scoped to this server and the caller's tenant: JSON
    /// values by key, each with a time to live, and an atomic [`State::take`].
    ///
    /// ```
    /// # use mcp_runtime::prelude::*;
    /// # use std::time::Duration;
    /// /// Remembers a value for an hour.
    /// #[tool]
    /// async fn remember(ctx: &Ctx, key: String, value: String) -> Result<(), ToolError> {
    ///     ctx.state().set(&format!("memo:{key}"), &value, Duration::from_secs(3600)).await
    /// }
    /// ```
    ///
    /// A store that does not answer fails the call as retryable, reason
    /// `state_store_unavailable`. For a yes/no from the user that must hold once, see
    /// [`Ctx::consent`].
    pub fn state(&self) -> State<'_> {
        State::new(&self.info.stores, crate::context::ask::caller_of(self.principal())[2])
    }

    /// Asks the user to consent to `consent`'s action, and gives their answer only when it
    /// redeems the record this server wrote when it asked: once, on this call, for this
    /// caller and target. See [`Consent`].
    pub async fn consent<T: JsonSchema + DeserializeOwned + 'static>(
        &self,
        consent: Consent<T>,
    ) -> Result<Elicited<T>, ToolError> {
        let binding = self.info.operation.binding(self.principal());
        let caller = self.info.channel.caller();
        crate::context::consent::redeem_or_ask(
            &self.info.stores,
            self.state(),
            &caller,
            &binding,
            &self.info.inputs,
            consent,
        )
        .await
    }

    /// Who is calling: the principal of the request's access token, when the server checks
    /// tokens (`ServerBuilder::authorization`, feature `http`) or a
    /// middleware in front of the HTTP endpoint put a [`Principal`] in the request's
    /// extensions. Where no authorization is configured (stdio, in-process, HTTP without
    /// authorization), the server's local principal
    /// ([`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal); default
    /// [`Principal::local`], holding every scope; [`Principal::is_local`] tells it apart).
    /// `None` only over HTTP with authorization, for a request without a token (which never
    /// reaches a handler).
    pub fn principal(&self) -> Option<&Principal> {
        self.info.channel.principal()
    }

    /// Fails the call unless the caller ([`Ctx::principal`]: a token's principal, or the
    /// local one) holds every scope of `scopes`, with the same failure as a `scopes(..)`
    /// declaration: reason `insufficient_scope`, code `Forbidden`, not retryable, a hint
    /// naming the missing scopes. Use it with `?` where a scope depends on the arguments:
    ///
    /// ```
    /// # use mcp_runtime::prelude::*;
    /// /// Deletes a note; shared notes need `notes:admin`.
    /// #[tool(scopes("notes:write"))]
    /// fn delete_note(ctx: &Ctx, name: String, shared: bool) -> Result<String, ToolError> {
    ///     if shared {
    ///         ctx.require_scopes(&["notes:admin"])?;
    ///     }
    ///     Ok(format!("deleted {name}"))
    /// }
    /// ```
    pub fn require_scopes(&self, scopes: &[&str]) -> Result<(), ToolError> {
        crate::auth::principal::require(self.principal(), scopes, self.info.tool)
    }

    /// The HTTP request this call came in, when it came over HTTP: its method, URI, headers
    /// and extensions (what middleware in front of the endpoint put there, such as an
    /// authenticated user). `None` on stdio and in-process.
    pub fn http_request(&self) -> Option<&http::request::Parts> {
        self.info.channel.http()
    }

    /// Over Streamable HTTP with sessions, ends the HTTP response this call's messages ride
    /// on now, without ending the call: the client reconnects (`GET` with `Last-Event-ID`,
    /// after the `retry` delay the stream announced) and receives what was sent meanwhile,
    /// the result included. Lets long calls survive proxies that cut idle connections.
    /// Elsewhere it does nothing.
    pub fn close_sse_stream(&self) {
        self.info.channel.pause();
    }

    /// `true` once the client cancelled this call. Cheap: one atomic load.
    pub fn is_cancelled(&self) -> bool {
        self.info.cancel.is_cancelled()
    }

    /// Resolves when the client cancels this call. The handler then has the cancellation
    /// grace (250 ms by default) to clean up before its future is dropped; nothing it
    /// returns is sent.
    pub async fn cancelled(&self) {
        self.info.cancel.cancelled().await;
    }

    /// Sends `notifications/message` to the client when `level` is at or above its
    /// threshold, with this tool's name as `logger`: the session's `logging/setLevel`
    /// (legacy; `info` before it), or this request's `_meta` `logLevel` (modern; nothing is
    /// sent for a request without one).
    /// Every record also goes to stderr with the request id.
    pub fn log(&self, level: LogLevel, data: impl Serialize) {
        let data =
            serde_json::to_value(data).unwrap_or_else(|e| Value::String(format!("<unserializable log data: {e}>")));
        crate::context::logging::stderr_record(level, self.info.tool, &data);
        self.info.channel.log(&self.info.client, level, self.info.tool, data);
    }

    /// [`Ctx::log`] at `debug`.
    pub fn debug(&self, data: impl Serialize) {
        self.log(LogLevel::Debug, data);
    }

    /// [`Ctx::log`] at `info`.
    pub fn info(&self, data: impl Serialize) {
        self.log(LogLevel::Info, data);
    }

    /// [`Ctx::log`] at `notice`.
    pub fn notice(&self, data: impl Serialize) {
        self.log(LogLevel::Notice, data);
    }

    /// [`Ctx::log`] at `warning`.
    pub fn warning(&self, data: impl Serialize) {
        self.log(LogLevel::Warning, data);
    }

    /// [`Ctx::log`] at `error`.
    pub fn error(&self, data: impl Serialize) {
        self.log(LogLevel::Error, data);
    }

    /// Sends `notifications/progress` when the request carried `_meta.progressToken`. A value
    /// that does not increase is dropped (logged at debug). Without a token it does nothing.
    ///
    /// In a call that may go on as a task (a `#[tool(task = ..)]` tool called by a client
    /// that declared the tasks extension, which has no progress notifications) it sets the
    /// task's `statusMessage` instead, as `"{progress} of {total}: {message}"` (`3 of 10:
    /// exporting ISS-42`; the parts left out that are `None`): `tasks/get` on any replica
    /// and `notifications/tasks` show the latest. The record is written at most four times a
    /// second, so a tight loop may report as often as it likes.
    pub fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(task) = &self.info.task {
            if !self.is_cancelled() && !task.progress(progress, total, message) {
                tracing::debug!(request_id = %self.info.request_id, progress, "progress did not increase; not shown");
            }
            return;
        }
        let Some(p) = &self.info.progress else { return };
        if self.is_cancelled() {
            // Nothing more is sent for a cancelled request, progress included.
            return;
        }
        {
            let mut last = p.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if last.is_some_and(|l| progress <= l) {
                tracing::debug!(request_id = %self.info.request_id, progress, last = ?*last, "progress did not increase; not sent");
                return;
            }
            *last = Some(progress);
        }
        self.info.channel.progress(&p.token, progress, total, message);
    }
}

impl<R> std::fmt::Debug for Ctx<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ctx")
            .field("tool", &self.info.tool)
            .field("request_id", &self.info.request_id)
            .finish_non_exhaustive()
    }
}

/// One call as the generated code receives it: validated arguments and the call's context.
pub struct Call {
    /// Shared, so that a handler that asks can run again with the same arguments.
    pub(crate) args: Arc<Value>,
    pub(crate) info: CallInfo,
}

/// Parameters the runtime injects by reference (`&Ctx<R>`).
#[diagnostic::on_unimplemented(
    message = "`&{Self}` cannot be a parameter of a `#[tool]` fn",
    label = "by-reference parameters are injected by the runtime, and only `&Ctx<..>` can be",
    note = "take arguments by value (`query: String`); take the context as `ctx: &Ctx` or `ctx: &Ctx<MyToolError>`"
)]
pub trait FromCall: Sized {
    /// The failure modes the parameter can raise (`R` of `Ctx<R>`): the tool's contract table
    /// when the tool declares none of its own.
    type Contract: Contract;
    /// Builds the parameter from the call's context.
    fn from_call(info: CallInfo) -> Self;
}

/// A probe for the contract a context parameter's type `C` names (`R` of `Ctx<R>`): the
/// contract table of a tool without `#[errors]` or `contract = ...`.
///
/// `(&&ContractOf::<C>::new()).entries()` resolves to [`ContextContract`] when `C` is a
/// context, and to [`NotAContext`] (an empty table) otherwise: a by-reference parameter that
/// is not a context is already an error at its type, and the probe adds none.
pub struct ContractOf<C>(std::marker::PhantomData<fn() -> C>);

impl<C> ContractOf<C> {
    /// The probe.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        ContractOf(std::marker::PhantomData)
    }
}

/// `C` is a context.
pub trait ContextContract<C: FromCall> {
    /// The contract's table.
    fn entries(&self) -> &'static [ContractEntry] {
        <C::Contract as Contract>::ENTRIES
    }
    /// Compiles only when `A` is the context's contract (`#[tool(contract = A)]` with
    /// `&Ctx<A>`).
    fn check<A>(&self)
    where
        C: FromCall<Contract = A>,
    {
    }
}

impl<C: FromCall> ContextContract<C> for &ContractOf<C> {}

/// `C` is not a context.
pub trait NotAContext {
    /// Empty.
    fn entries(&self) -> &'static [ContractEntry] {
        &[]
    }
    /// Nothing to check.
    fn check<A>(&self) {}
}

impl<C> NotAContext for ContractOf<C> {}

impl Call {
    /// Splits the call into the context parameter and the deserialized arguments. Arguments
    /// that passed the schema but that serde still cannot read are an `invalid_arguments`
    /// failure (the schema is looser than the Rust type).
    pub fn parts<C: FromCall, A: serde::de::DeserializeOwned>(self) -> Result<(C, A), ToolError> {
        let args = crate::schema::validate::deserialize_args(self.info.tool, &self.args)?;
        Ok((C::from_call(self.info), args))
    }
}

impl Call {
    /// The context parameter of a `#[resource]`, `#[prompt]` or completer fn.
    pub fn context<C: FromCall>(&self) -> C {
        C::from_call(self.info.clone_for_context())
    }

    /// A URI template variable or a prompt argument, read from its text: a value that does
    /// not read as `T` is an `invalid_arguments` failure (`-32602`) saying what was expected.
    pub fn text<T: crate::context::text::TextValue>(&self, name: &'static str) -> Result<T, ToolError> {
        let text = self.args.get(name).and_then(Value::as_str);
        T::from_text(text).map_err(|expected| {
            let sent = match text {
                Some(text) => format!("{:?}", crate::rpc::envelope::display_name(text)),
                None => "missing".to_owned(),
            };
            ToolError::invalid_params(format!("`{name}` must be {expected}; got {sent}."))
                .reason("invalid_arguments")
                .retryable(false)
                .hint(format!("Send `{name}` as {expected}."))
        })
    }
}

/// How a request other than `tools/call` reaches a handler (a resource read, a prompt, a
/// completer): who asked, where its messages go, and the server's state.
pub(crate) struct Caller<'a> {
    pub(crate) channel: &'a Arc<Channel>,
    /// The server's hooks: a resource's or a prompt's call passes their `before`.
    pub(crate) hooks: &'a crate::hooks::Hooks,
    pub(crate) client: &'a Client,
    pub(crate) cancel: &'a Arc<CancelState>,
    pub(crate) stores: &'a Arc<Stores>,
    pub(crate) notices: &'a Arc<Notices>,
    /// `ServerBuilder::error_causes`.
    pub(crate) causes: usize,
    /// The draft failure standards the server speaks.
    pub(crate) drafts: crate::rpc::envelope::Drafts,
    /// `ServerBuilder::ask_timeout`: how long the shim waits for each answer.
    pub(crate) ask_timeout: std::time::Duration,
}

impl Caller<'_> {
    /// How this request's `requestState` is sealed and opened, for `operation`.
    pub(crate) fn sealing<'a>(
        &'a self,
        operation: &'a Operation,
        request_id: RequestId,
    ) -> crate::context::ask::Sealing<'a> {
        crate::context::ask::Sealing {
            sealer: &self.stores.sealer,
            principal: self.channel.principal(),
            operation,
            request_id,
        }
    }

    /// One handler call of `name` with `args` (variables or arguments, by name), asking
    /// nothing: a resource's `list` fn, a completer.
    pub(crate) fn call(&self, name: &'static str, args: Value, request_id: RequestId) -> Call {
        let operation = Operation::named("", name);
        let info = self.info(name, request_id, Instant::now(), &operation, Inputs::default());
        Call { args: Arc::new(args), info }
    }

    /// The record of one handler call (`name`, for request `request_id` started at `started`,
    /// for `operation`, with this round's answers): the one place a real call's [`CallInfo`]
    /// is made, for every family and a task's rounds.
    pub(crate) fn info(
        &self,
        name: &'static str,
        request_id: RequestId,
        started: Instant,
        operation: &Operation,
        inputs: crate::context::ask::Inputs,
    ) -> CallInfo {
        CallInfo {
            tool: name,
            request_id,
            started,
            channel: Arc::clone(self.channel),
            client: self.client.clone(),
            stores: Arc::clone(self.stores),
            operation: operation.clone(),
            notices: Arc::clone(self.notices),
            progress: None,
            inputs,
            cancel: Arc::clone(self.cancel),
            task: None,
        }
    }
}

impl CallInfo {
    /// The call's progress token, when its request carried one.
    pub(crate) fn with_progress(mut self, progress: Option<Arc<Progress>>) -> Self {
        self.progress = progress;
        self
    }

    /// How the handler asks to go on as a task (a task tool's call, for a client that
    /// declared the extension).
    pub(crate) fn with_task(mut self, task: Arc<TaskHook>) -> Self {
        self.task = Some(task);
        self
    }
}

/// The arguments of a tool without parameters (the schema has already rejected any key).
pub struct NoArgs;

impl<'de> serde::Deserialize<'de> for NoArgs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| NoArgs)
    }
}
