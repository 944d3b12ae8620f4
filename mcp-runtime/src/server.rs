//! `Server`: the registry of tools, built once. Schemas are generated, post-processed and
//! compiled into validators here, and `tools/list` pages are serialized here, so that a
//! call does no schema work.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use mcp_core::{Icon, ToolAnnotations};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::Notices;
use crate::jsonrpc::RpcError;
use crate::principal::Principal;
use crate::prompts::{PromptDef, PromptSpec, Prompts};
use crate::resources::{ResourceDef, ResourceSpec, Resources};
pub use crate::schema::InputSpec;
use crate::seal::Sealer;
use crate::state::{AppData, StateStore, StoreError, Stores};

pub use crate::context::BoxFuture;
use crate::tool::ToolDef;
pub use crate::tool::ToolSpec;

/// Why a server could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two tools share a name.
    #[error("two tools are named `{0}`; tool names must be unique (rename one with #[tool(name = \"…\")])")]
    DuplicateTool(String),
    /// A generated schema could not be compiled into a validator.
    #[error("the {which} schema of tool `{tool}` does not compile: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `input` or `output`.
        which: &'static str,
        /// What the validator said.
        message: String,
    },
    /// A tool needs a session, and the server is configured without them.
    #[error(
        "tool `{0}` needs a session (`#[tool(needs_session)]`), but the server serves HTTP without sessions (`ServerBuilder::stateless_http(true)`, `--stateless`): serve it with sessions, or register the tool on another server"
    )]
    NeedsSession(String),
    /// Two prompts share a name.
    #[error("two prompts are named `{0}`; prompt names must be unique (rename one with #[prompt(name = \"…\")])")]
    DuplicatePrompt(String),
    /// A resource cannot be registered as declared.
    #[error("resource `{resource}` cannot be registered: {message}")]
    InvalidResource {
        /// The resource's name.
        resource: String,
        /// What is wrong.
        message: String,
    },
    /// A `requestState` sealing key is unusable (too short). Names the setting, never the key.
    #[error("{0}")]
    RequestStateKey(String),
    /// The state store named by `ServerBuilder::state_store_url` cannot be used.
    #[error("{0}")]
    StateStore(#[from] crate::state::StoreError),
    /// The authorization settings cannot be used.
    #[error("authorization: {0}")]
    InvalidAuthorization(String),
    /// `disable` or `policy` named a tool that is not registered.
    #[error("`{0}` is not a registered tool")]
    UnknownTool(String),
    /// Reading or writing the transport failed.
    #[error("transport failed: {0}")]
    Io(#[from] std::io::Error),
}

/// A policy's verdict on one call: refuse it, with an optional reason and hint written by
/// the server's author (sent to the caller).
#[derive(Clone, Debug, Default)]
pub struct Refusal {
    /// Appended to the message as ` Reason: <reason>.`
    pub reason: Option<String>,
    /// The recovery hint; the default one otherwise.
    pub hint: Option<String>,
}

impl Refusal {
    /// A refusal with a reason.
    pub fn because(reason: impl Into<String>) -> Self {
        Refusal { reason: Some(reason.into()), hint: None }
    }
}

/// What a policy sees of a call: the tool and the client.
#[derive(Debug)]
pub struct PolicyRequest<'a> {
    /// The tool being called.
    pub tool: &'a str,
    /// The client's `clientInfo`, once initialized.
    pub client_info: Option<&'a Value>,
}

type Policy = dyn Fn(&PolicyRequest<'_>) -> Option<Refusal> + Send + Sync;

/// Server options with their defaults.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub(crate) page_size: Option<usize>,
    pub(crate) max_line_bytes: usize,
    pub(crate) max_in_flight: usize,
    pub(crate) max_queued_bytes: usize,
    pub(crate) eof_grace: Duration,
    pub(crate) flush_grace: Duration,
    pub(crate) cancel_grace: Duration,
    /// How long the legacy shim waits for each answer (progress restarts it).
    pub(crate) ask_timeout: Duration,
    pub(crate) default_timeout: Option<Duration>,
    pub(crate) strict_resolution: bool,
    pub(crate) structured_errors: bool,
    /// Bytes of a plain error's cause chain sent in its message (0: none).
    pub(crate) error_causes: usize,
    /// `ttlMs` and `cacheScope` of modern list results.
    pub(crate) cache_ttl_ms: u64,
    pub(crate) cache_scope: CacheScope,
    /// `tools/list` leaves out the tools whose scopes the caller lacks.
    pub(crate) hide_unauthorized_tools: bool,
    pub(crate) http: HttpOptions,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            page_size: None,
            max_line_bytes: 4 * 1024 * 1024,
            max_in_flight: 4096,
            max_queued_bytes: 4 * 1024 * 1024,
            eof_grace: Duration::from_secs(2),
            flush_grace: Duration::from_secs(2),
            cancel_grace: Duration::from_millis(250),
            ask_timeout: Duration::from_secs(600),
            default_timeout: None,
            strict_resolution: false,
            structured_errors: false,
            error_causes: 0,
            cache_ttl_ms: 0,
            cache_scope: CacheScope::Private,
            hide_unauthorized_tools: false,
            http: HttpOptions::default(),
        }
    }
}

/// Streamable HTTP settings, part of the server's options.
#[derive(Clone, Debug)]
pub(crate) struct HttpOptions {
    pub(crate) stateless: bool,
    /// Accepted `Host` names (any port); loopback by default.
    pub(crate) allowed_hosts: Vec<String>,
    /// Accepted `Origin`s (`scheme://host[:port]`, or a host name for any scheme and port);
    /// when empty, an `Origin` is accepted when its host is an allowed host.
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) max_body_bytes: usize,
    pub(crate) session_idle: Duration,
    pub(crate) max_sessions: usize,
    /// Sessions one client may hold (by principal, or by address when unauthenticated).
    pub(crate) max_sessions_per_client: usize,
    /// How long a connection may take to send a request's headers (and may sit idle between
    /// requests).
    pub(crate) header_timeout: Duration,
    /// How long a request's body may take to arrive.
    pub(crate) body_timeout: Duration,
    /// Connections open at once; past it, new ones wait in the listen backlog.
    pub(crate) max_connections: usize,
    /// Request bodies being read at once; past it, a request waits (within its body timeout).
    pub(crate) max_bodies: usize,
    /// `subscriptions/listen` streams open at once (they take no call slot).
    pub(crate) max_listens: usize,
    /// Bytes of sent SSE events kept for replay per stream, and in the whole process.
    pub(crate) replay_bytes_per_stream: usize,
    pub(crate) replay_bytes_total: usize,
    /// Notifications waiting for a session whose standalone stream is not open.
    pub(crate) max_detached_notifications: usize,
    /// The `retry` an SSE stream announces, in milliseconds.
    pub(crate) retry_ms: u64,
    pub(crate) shutdown_grace: Duration,
    /// Bearer tokens required, and the protected resource metadata served.
    pub(crate) authorization: Option<crate::auth::Authorization>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            stateless: false,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: Vec::new(),
            max_body_bytes: 4 * 1024 * 1024,
            session_idle: Duration::from_secs(30 * 60),
            max_sessions: 10_000,
            max_sessions_per_client: 100,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_bodies: 64,
            max_listens: 1024,
            replay_bytes_per_stream: 1024 * 1024,
            replay_bytes_total: 16 * 1024 * 1024,
            max_detached_notifications: 256,
            retry_ms: 1000,
            shutdown_grace: Duration::from_secs(10),
            authorization: None,
        }
    }
}

/// One registered tool, ready to serve.
pub(crate) struct Registered {
    pub(crate) spec: ToolSpec,
    pub(crate) input_validator: jsonschema::Validator,
    /// The input schema as listed (hints read property order and `$defs` from it).
    pub(crate) input_schema: Value,
    /// Optional root properties whose Rust type takes `null`: a `null` sent for one of them
    /// is read as absent (the listed schema does not allow `null`, for portability).
    pub(crate) null_means_absent: Box<[String]>,
    pub(crate) output_validator: Option<jsonschema::Validator>,
    pub(crate) descriptor_output: Option<Value>,
    /// The Rust type's schema is not an object: values travel as `{"result": …}`.
    pub(crate) wrap_result: bool,
    pub(crate) disabled: Option<String>,
    pub(crate) timeout: Option<Duration>,
    /// Parameters mirrored into `Mcp-Param-*` headers (`x-mcp-header`), checked on
    /// 2026-07-28 HTTP calls.
    pub(crate) header_params: Box<[crate::schema::HeaderParam]>,
    /// A call of this fn without `async` held its thread past the limit: its calls run on the
    /// blocking pool from now on.
    pub(crate) seen_blocking: std::sync::atomic::AtomicBool,
}

impl Registered {
    /// Where this tool's failures are rendered: with `structuredContent.error` unless the
    /// tool declares an `outputSchema` and the server keeps the spec's default.
    pub(crate) fn site(&self, options: &Options) -> crate::envelope::Site<'_> {
        crate::envelope::Site {
            family: "tool",
            tool: self.spec.name,
            contract: self.spec.contract,
            structured: options.structured_errors || self.output_validator.is_none(),
            causes: options.error_causes,
        }
    }
}

pub(crate) struct Shared {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    /// `{"name":…,"version":…}`, for modern results' `_meta`.
    pub(crate) server_info: Box<RawValue>,
    /// The tools served now; replaced whole when a tool is added or removed.
    tools: RwLock<Arc<Tools>>,
    /// Bumped when the tool list changes: listeners send `notifications/tools/list_changed`.
    pub(crate) tools_changed: tokio::sync::watch::Sender<u64>,
    pub(crate) resources: Resources,
    /// Resource changes announced by the server or a handler.
    pub(crate) notices: Arc<Notices>,
    /// The prompts served now; replaced whole when one is added or removed.
    prompts: RwLock<Arc<Prompts>>,
    pub(crate) prompts_changed: tokio::sync::watch::Sender<u64>,
    pub(crate) options: Options,
    pub(crate) policy: Option<Box<Policy>>,
    /// App data, the state store and the sealer of `requestState`.
    pub(crate) stores: Arc<Stores>,
    /// Blocking-pool threads handlers may hold at once (`max_in_flight`).
    pub(crate) blocking: Arc<tokio::sync::Semaphore>,
}

/// The tools served, with their `tools/list` pages serialized once per era: page `i`
/// answers cursor `i`.
pub(crate) struct Tools {
    pub(crate) all: Vec<Arc<Registered>>,
    by_name: HashMap<&'static str, usize>,
    pub(crate) legacy_pages: Vec<Box<RawValue>>,
    pub(crate) modern_pages: Vec<Box<RawValue>>,
}

impl Tools {
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<Registered>> {
        self.by_name.get(name).map(|&i| &self.all[i])
    }

    fn new(tools: Vec<Arc<Registered>>, options: &Options, server_info: &RawValue) -> Tools {
        let by_name = tools.iter().enumerate().map(|(i, t)| (t.spec.name, i)).collect();
        let legacy_pages = list_pages(&tools, options, None);
        let modern_pages = list_pages(&tools, options, Some(server_info));
        Tools { all: tools, by_name, legacy_pages, modern_pages }
    }
}

impl Shared {
    /// Whether `tools/list` shows `tool` to a caller with `principal`: always, unless the
    /// server hides the tools whose scopes the caller lacks.
    pub(crate) fn lists_to(&self, tool: &Registered, principal: Option<&Principal>) -> bool {
        !self.options.hide_unauthorized_tools || crate::principal::require(principal, tool.spec.scopes, "").is_ok()
    }

    /// The `tools/list` pages for a caller with `principal` (modern ones when `modern`): the
    /// pages made once, unless some listed tool is hidden from this caller.
    pub(crate) fn list_pages_for<'t>(
        &self,
        tools: &'t Tools,
        principal: Option<&Principal>,
        modern: bool,
    ) -> std::borrow::Cow<'t, [Box<RawValue>]> {
        let made = if modern { &tools.modern_pages } else { &tools.legacy_pages };
        if tools.all.iter().all(|t| t.disabled.is_some() || self.lists_to(t, principal)) {
            return std::borrow::Cow::Borrowed(made);
        }
        let shown: Vec<Arc<Registered>> = tools.all.iter().filter(|t| self.lists_to(t, principal)).cloned().collect();
        std::borrow::Cow::Owned(list_pages(&shown, &self.options, modern.then_some(&*self.server_info)))
    }

    /// The tools served now (a consistent set, for the whole of one request).
    pub(crate) fn tools(&self) -> Arc<Tools> {
        Arc::clone(&self.tools.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// The prompts served now.
    pub(crate) fn prompts(&self) -> Arc<Prompts> {
        Arc::clone(&self.prompts.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Whether prompts are a capability of this server (some were registered at build
    /// time, or added since).
    pub(crate) fn has_prompts(&self) -> bool {
        !self.prompts().all.is_empty() || *self.prompts_changed.borrow() > 0
    }

    /// Replaces the tool set with what `change` makes of it, and tells listeners.
    fn change_tools(&self, change: impl FnOnce(&mut Vec<Arc<Registered>>) -> bool) -> bool {
        let mut current = self.tools.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut tools = current.all.clone();
        if !change(&mut tools) {
            return false;
        }
        *current = Arc::new(Tools::new(tools, &self.options, &self.server_info));
        drop(current);
        self.tools_changed.send_modify(|n| *n += 1);
        true
    }
}

/// An MCP server: tools, built and validated once; serve it with [`Server::serve_stdio`], or
/// call a tool in-process with [`Server::call`].
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> String {
///     (a + b).to_string()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::builder("calc", "1.0.0").tool(add).build()?;
/// let result = server.call("add", serde_json::json!({"a": 2, "b": 3})).await;
/// assert_eq!(result.first_text(), Some("5"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

/// Builds a [`Server`]; see [`Server::builder`].
#[must_use]
pub struct ServerBuilder {
    name: String,
    version: String,
    instructions: Option<String>,
    specs: Vec<(ToolSpec, Option<String>)>,
    options: Options,
    policy: Option<Box<Policy>>,
    app_data: AppData,
    store: Result<Option<Arc<dyn StateStore>>, crate::state::StoreError>,
    namespace: Option<String>,
    /// The sealing keys given, each with the name of the setting it came from.
    keys: Vec<(String, Vec<u8>)>,
    resources: Vec<ResourceSpec>,
    prompts: Vec<PromptSpec>,
}

impl Server {
    /// Starts building a server with the name and version it reports in `initialize`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            name: name.into(),
            version: version.into(),
            instructions: None,
            specs: Vec::new(),
            options: Options::default(),
            policy: None,
            app_data: AppData::new(),
            store: Ok(None),
            namespace: None,
            keys: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
        }
    }
}

impl ServerBuilder {
    /// Registers a tool: pass the name of a `#[tool]` fn (`.tool(add)`). `#[tool]` makes that
    /// name a fn that returns the tool's type, `T`, whose impl the registry reads.
    pub fn tool<T: ToolDef>(self, _tool: fn() -> T) -> Self {
        self.with_tool(T::spec, None)
    }

    /// Registers a tool that is disabled: it is not listed, and a call to it is refused as
    /// `tool_unavailable` with `reason` (written by you, sent to the caller).
    pub fn disabled_tool<T: ToolDef>(self, _tool: fn() -> T, reason: impl Into<String>) -> Self {
        self.with_tool(T::spec, Some(reason.into()))
    }

    /// Not generic: compiled once, not once per tool.
    fn with_tool(mut self, spec: fn() -> ToolSpec, disabled: Option<String>) -> Self {
        self.specs.push((spec(), disabled));
        self
    }

    /// Registers a resource: pass the name of a `#[resource]` fn (`.resource(note)`).
    /// A read finds fixed URIs first, then templates in the order they were added.
    pub fn resource<T: ResourceDef>(mut self, _resource: fn() -> T) -> Self {
        self.resources.push(T::spec());
        self
    }

    /// Registers a prompt: pass the name of a `#[prompt]` fn (`.prompt(review)`).
    pub fn prompt<T: PromptDef>(mut self, _prompt: fn() -> T) -> Self {
        self.prompts.push(T::spec());
        self
    }

    /// Instructions for the model, sent in the `initialize` result.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(text.into());
        self
    }

    /// A per-call policy, run before argument validation: return a [`Refusal`] to refuse the
    /// call (`tool_unavailable`; the tool stays listed).
    pub fn policy(mut self, policy: impl Fn(&PolicyRequest<'_>) -> Option<Refusal> + Send + Sync + 'static) -> Self {
        self.policy = Some(Box::new(policy));
        self
    }

    /// A value of this process for handlers (a database pool, a config), read with
    /// `ctx.app_data::<T>()`. One value per type. What must be shared by replicas or outlive
    /// the process goes in the state store instead ([`ServerBuilder::state_store`]).
    pub fn app_data<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app_data.insert(TypeId::of::<T>(), Box::new(value));
        self
    }

    /// The state store handlers reach with `ctx.state()`, and consent records live in
    /// (default: a [`MemoryStore`](crate::MemoryStore) of this process). Replicas that share
    /// one store (Redis: `RedisStore`, feature `redis`) behave as one.
    pub fn state_store(mut self, store: impl StateStore) -> Self {
        self.store = Ok(Some(Arc::new(store)));
        self
    }

    /// The state store a URL names: `memory:`, or `redis://[user:password@]host[:port][/db]`
    /// (feature `redis`). A URL that names no store fails [`ServerBuilder::build`].
    pub fn state_store_url(mut self, url: &str) -> Self {
        self.store = store_from_url(url).map(Some);
        self
    }

    /// Scopes every key of the state store (default: the server's name), so that servers
    /// sharing one store keep apart. Replicas of one server must agree on it.
    pub fn state_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// A key that seals and verifies `requestState` (HMAC-SHA256), at least 32 bytes: the
    /// first one given seals, every one verifies, so rotation is "add the new key first, keep
    /// the old one 15 minutes". Replicas must share the keys. `setting` names where the key
    /// came from (an environment variable, a config key) in the error of one too short; the
    /// key itself is never printed.
    ///
    /// Without a key, the server seals with a random key of its own process: states die with
    /// it and other replicas refuse them (a warning says so when it serves HTTP).
    pub fn request_state_key(mut self, setting: impl Into<String>, key: impl Into<Vec<u8>>) -> Self {
        self.keys.push((setting.into(), key.into()));
        self
    }

    /// Pages `tools/list` with this many tools per page (default: one page, no cursor).
    pub fn page_size(mut self, tools: usize) -> Self {
        self.options.page_size = Some(tools.max(1));
        self
    }

    /// The longest accepted line (default 4 MiB). A longer line is answered with -32600
    /// without being buffered whole.
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.options.max_line_bytes = bytes;
        self
    }

    /// The most calls run at once (default 4096). Further calls wait in a queue, in order,
    /// while the server goes on reading (so cancellations still arrive) until the queued
    /// calls' lines add up to the line cap; then it stops reading until a call finishes.
    pub fn max_in_flight(mut self, calls: usize) -> Self {
        self.options.max_in_flight = calls.max(1);
        self
    }

    /// How many bytes of calls may wait for a slot (default 4 MiB), counted by the length
    /// of their lines.
    pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
        self.options.max_queued_bytes = bytes;
        self
    }

    /// How long in-flight calls may finish after EOF on stdin (default 2 s).
    pub fn eof_grace(mut self, grace: Duration) -> Self {
        self.options.eof_grace = grace;
        self
    }

    /// How long what is left to write may take after EOF and the calls' grace (default 2 s):
    /// a client that closed its input but does not read its output cannot keep the server
    /// alive.
    pub fn flush_grace(mut self, grace: Duration) -> Self {
        self.options.flush_grace = grace;
        self
    }

    /// How long a cancelled handler may clean up before its future is dropped (default 250 ms).
    pub fn cancel_grace(mut self, grace: Duration) -> Self {
        self.options.cancel_grace = grace;
        self
    }

    /// How long a 2025 client has to answer each request the runtime sends it for a
    /// handler's [`Ctx::ask`](crate::Ctx::ask) (default 600 s); every progress notification
    /// about the request starts it over. Past it the call fails.
    pub fn ask_timeout(mut self, limit: Duration) -> Self {
        self.options.ask_timeout = limit;
        self
    }

    /// A time limit for tools without their own `timeout_ms` (default: none).
    pub fn default_timeout(mut self, limit: Duration) -> Self {
        self.options.default_timeout = Some(limit);
        self
    }

    /// Strict resolution: an unknown or disabled tool is a JSON-RPC -32602 protocol error, as
    /// in the upstream specification, instead of a tool execution error (default off).
    pub fn strict_resolution(mut self, strict: bool) -> Self {
        self.options.strict_resolution = strict;
        self
    }

    /// Puts `structuredContent.error` on the error results of tools that declare an
    /// `outputSchema` too (default off).
    ///
    /// By default such a tool's error result carries only the envelope text and
    /// `isError: true`: the specification says `structuredContent` conforms to the output
    /// schema, and clients that check it on error results (the TypeScript SDK 1.x
    /// `Client.callTool`, the MCP Inspector) would otherwise show their schema complaint
    /// instead of the error. Turn this on only when every client of the server reads error
    /// results without checking them against the output schema (the TypeScript SDK v2
    /// client does not check them). Tools without an output schema always carry
    /// `structuredContent.error`.
    pub fn structured_errors_always(mut self, on: bool) -> Self {
        self.options.structured_errors = on;
        self
    }

    /// Sends the cause chain of plain errors to the client, after their message, `: `-joined
    /// (as `anyhow`'s `{:#}` shows it) and cut at `max_bytes`: `parsing tasks.json as a task
    /// list: EOF while parsing an object at line 2 column 0` instead of the first part
    /// alone. Off by default, because causes can name what the caller should not see (paths,
    /// hosts, queries); turn it on when your errors' causes are written for the caller.
    /// Errors with a reason, and errors whose message the author wrote, are sent as they are.
    pub fn error_causes(mut self, max_bytes: usize) -> Self {
        self.options.error_causes = max_bytes;
        self
    }

    /// The cache hints of modern list results (`ttlMs`, `cacheScope`; default `0` and
    /// private): how long a client may reuse a `tools/list` answer, and whether it is the
    /// same for every caller. Legacy results carry none.
    pub fn cache_hints(mut self, ttl: Duration, scope: CacheScope) -> Self {
        self.options.cache_ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        self.options.cache_scope = scope;
        self
    }

    /// Streamable HTTP without sessions (default: with them). Each POST stands alone: no
    /// `initialize` is needed before a call, no `Mcp-Session-Id` is minted, GET and DELETE
    /// are 405. Any replica behind a load balancer can answer any request. Cancellation
    /// (`notifications/cancelled`) and `logging/setLevel` reach nothing across requests.
    pub fn stateless_http(mut self, stateless: bool) -> Self {
        self.options.http.stateless = stateless;
        self
    }

    /// The `Host` names the HTTP endpoint answers, any port (default: `localhost`,
    /// `127.0.0.1`, `::1`: DNS-rebinding protection for a server on your machine). Add the
    /// names a deployment is reached by; `"*"` allows any. Others get 403.
    pub fn allowed_hosts<S: Into<String>>(mut self, hosts: impl IntoIterator<Item = S>) -> Self {
        self.options.http.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// The `Origin`s browsers may call the HTTP endpoint from (`https://app.example.com`, or
    /// a host name for any scheme and port). Default: origins whose host is an allowed host.
    /// A request without `Origin` (not from a browser) is not checked.
    pub fn allowed_origins<S: Into<String>>(mut self, origins: impl IntoIterator<Item = S>) -> Self {
        self.options.http.allowed_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The largest HTTP request body (default 4 MiB); a larger one gets 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.options.http.max_body_bytes = bytes;
        self
    }

    /// How long an HTTP session may sit unused before it ends (default 30 min), and how many
    /// may be live at once (default 10,000). At the cap, `initialize` ends the least recently
    /// used session that runs no call; when every session runs one, it gets 503.
    pub fn http_sessions(mut self, idle: Duration, max: usize) -> Self {
        self.options.http.session_idle = idle;
        self.options.http.max_sessions = max.max(1);
        self
    }

    /// How many HTTP sessions one client may hold (default 100): the caller's principal, or
    /// its address when unauthenticated. At the cap, its `initialize` ends its own least
    /// recently used session that runs no call (503 when each runs one): one client cannot
    /// crowd the others out.
    pub fn max_sessions_per_client(mut self, max: usize) -> Self {
        self.options.http.max_sessions_per_client = max.max(1);
        self
    }

    /// How long a connection may take to send a request's headers, and sit idle between
    /// requests (default 10 s); then it is closed. Applies to [`Server::serve_http`] and its
    /// variants (behind your own server, set your server's).
    pub fn http_header_timeout(mut self, limit: Duration) -> Self {
        self.options.http.header_timeout = limit;
        self
    }

    /// How long a request's body may take to arrive (default 30 s): past it the request gets
    /// 408 and its bytes are freed.
    pub fn http_body_timeout(mut self, limit: Duration) -> Self {
        self.options.http.body_timeout = limit;
        self
    }

    /// How many connections [`Server::serve_http`] keeps open at once (default 1024); further
    /// ones wait in the listen backlog until one closes. Keep it below the process's file
    /// limit (`ulimit -n`).
    pub fn max_connections(mut self, max: usize) -> Self {
        self.options.http.max_connections = max.max(1);
        self
    }

    /// How many request bodies are read at once (default 64, each at most
    /// [`max_body_bytes`](Self::max_body_bytes)); further requests wait for a turn within
    /// their body timeout.
    pub fn max_bodies_reading(mut self, max: usize) -> Self {
        self.options.http.max_bodies = max.max(1);
        self
    }

    /// How many 2026-07-28 `subscriptions/listen` streams may be open at once (default 1024).
    /// They take no call slot ([`max_in_flight`](Self::max_in_flight)); past the cap a listen
    /// is refused `server_busy`, retryable.
    pub fn max_listens(mut self, max: usize) -> Self {
        self.options.http.max_listens = max.max(1);
        self
    }

    /// Bytes of sent SSE events a 2025 request stream keeps for a client that resumes it
    /// (default 1 MiB). Events past it are let go once sent; resuming before them gets 404.
    pub fn sse_replay_bytes_per_stream(mut self, bytes: usize) -> Self {
        self.options.http.replay_bytes_per_stream = bytes;
        self
    }

    /// Bytes of sent SSE events kept for replay in the whole process (default 16 MiB): past
    /// it, a stream lets its sent events go.
    pub fn sse_replay_bytes_total(mut self, bytes: usize) -> Self {
        self.options.http.replay_bytes_total = bytes;
        self
    }

    /// How many notifications wait for a 2025 HTTP session whose standalone stream (GET) is
    /// not open (default 256). List changes and resource updates are coalesced (one pending
    /// per kind and URI); past the cap, further ones are dropped, counted and logged.
    pub fn max_detached_notifications(mut self, max: usize) -> Self {
        self.options.http.max_detached_notifications = max;
        self
    }

    /// How long requests in progress may finish after SIGINT/SIGTERM (default 10 s).
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.options.http.shutdown_grace = grace;
        self
    }

    /// Makes the HTTP transport an OAuth 2.1 resource server: every request needs a bearer
    /// token that `authorization`'s validator accepts (401 with a `WWW-Authenticate`
    /// challenge otherwise), the protected resource metadata is served at
    /// `/.well-known/oauth-protected-resource`, and handlers see the caller with
    /// [`Ctx::principal`](crate::Ctx::principal). Stdio is not affected.
    pub fn authorization(mut self, authorization: crate::auth::Authorization) -> Self {
        self.options.http.authorization = Some(authorization);
        self
    }

    /// Leaves out of `tools/list` the tools whose `scopes(..)` the caller's token does not
    /// grant (default off: every tool is listed, and calling one without its scopes fails
    /// with `insufficient_scope`). With it on, lists vary by caller: keep the modern
    /// `cacheScope` private.
    pub fn hide_unauthorized_tools(mut self, hide: bool) -> Self {
        self.options.hide_unauthorized_tools = hide;
        self
    }

    /// Generates and compiles every schema, and checks names. Returns an error, never
    /// panics.
    pub fn build(self) -> Result<Server, Error> {
        if let Some(auth) = &self.options.http.authorization {
            auth.check().map_err(Error::InvalidAuthorization)?;
        }
        let mut tools = Vec::with_capacity(self.specs.len());
        let mut names = std::collections::HashSet::new();
        for (spec, disabled) in self.specs {
            if !names.insert(spec.name) {
                return Err(Error::DuplicateTool(spec.name.to_owned()));
            }
            tools.push(Arc::new(register(spec, disabled, &self.options)?));
        }
        let server_info =
            serde_json::value::to_raw_value(&serde_json::json!({"name": self.name, "version": self.version}))
                .unwrap_or_else(|_| unreachable!("two strings serialize"));
        let blocking = Arc::new(tokio::sync::Semaphore::new(self.options.max_in_flight));
        let sealer = if self.keys.is_empty() {
            Sealer::ephemeral(crate::seal::DEFAULT_TTL)
        } else {
            for (setting, key) in &self.keys {
                crate::seal::check_key(setting, key).map_err(Error::RequestStateKey)?;
            }
            Sealer::new(self.keys.into_iter().map(|(_, key)| key).collect(), crate::seal::DEFAULT_TTL)
        };
        let stores = Arc::new(Stores {
            app_data: self.app_data,
            store: self.store?.unwrap_or_else(|| Arc::new(crate::state::MemoryStore::new())),
            namespace: self.namespace.unwrap_or_else(|| self.name.clone()),
            sealer,
        });
        let mut resources = Resources::default();
        for spec in self.resources {
            resources
                .add(spec)
                .map_err(|(resource, message)| Error::InvalidResource { resource: resource.to_owned(), message })?;
        }
        let mut prompts = Prompts::default();
        for spec in self.prompts {
            if prompts.get(spec.name).is_some() {
                return Err(Error::DuplicatePrompt(spec.name.to_owned()));
            }
            prompts.all.push(Arc::new(spec));
        }
        Ok(Server {
            shared: Arc::new(Shared {
                tools: RwLock::new(Arc::new(Tools::new(tools, &self.options, &server_info))),
                tools_changed: tokio::sync::watch::Sender::new(0),
                resources,
                notices: Arc::default(),
                prompts: RwLock::new(Arc::new(prompts)),
                prompts_changed: tokio::sync::watch::Sender::new(0),
                name: self.name,
                version: self.version,
                instructions: self.instructions,
                server_info,
                options: self.options,
                policy: self.policy,
                stores,
                blocking,
            }),
        })
    }
}

/// The store a URL names: `memory:` (this process only) or, with feature `redis`,
/// `redis://[user:password@]host[:port][/db]`.
pub fn store_from_url(url: &str) -> Result<Arc<dyn StateStore>, StoreError> {
    if url == "memory:" || url == "memory" {
        return Ok(Arc::new(crate::state::MemoryStore::new()));
    }
    if url.starts_with("redis://") || url.starts_with("redis+unix://") || url.starts_with("unix://") {
        #[cfg(feature = "redis")]
        return Ok(Arc::new(crate::redis_store::RedisStore::open(url)?));
        #[cfg(not(feature = "redis"))]
        return Err(StoreError::new("redis", "this build has no Redis backend: enable feature `redis` of mcp-runtime"));
    }
    let scheme = url.split_once(':').map_or(url, |(scheme, _)| scheme);
    Err(StoreError::new(
        "url",
        format!("unknown state store `{scheme}:`; use `memory:` or `redis://host:port` (feature `redis`)"),
    ))
}

fn register(spec: ToolSpec, disabled: Option<String>, options: &Options) -> Result<Registered, Error> {
    if spec.needs_session && options.http.stateless {
        return Err(Error::NeedsSession(spec.name.to_owned()));
    }
    let invalid = |which: &'static str| {
        let tool = spec.name.to_owned();
        move |message| Error::InvalidSchema { tool, which, message }
    };
    let input = crate::schema::input(&spec.input, !spec.allow_unknown_args);
    let input_validator = crate::schema::compile(&input.schema).map_err(invalid("input"))?;
    let output = crate::schema::output(spec.output_schema);
    let output_validator =
        output.as_ref().map(|o| crate::schema::compile(&o.schema)).transpose().map_err(invalid("output"))?;
    let timeout = spec.timeout_ms.map(Duration::from_millis).or(options.default_timeout);
    let header_params = crate::schema::header_params(&input.schema).map_err(invalid("input"))?;
    let wrap_result = output.as_ref().is_some_and(|o| o.wrapped);
    Ok(Registered {
        descriptor_output: output.map(|o| o.schema),
        spec,
        input_validator,
        input_schema: input.schema,
        null_means_absent: input.null_means_absent,
        output_validator,
        wrap_result,
        disabled,
        timeout,
        header_params,
        seen_blocking: std::sync::atomic::AtomicBool::new(false),
    })
}

/// A tool as `tools/list` describes it, serialized straight from the registry.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Descriptor<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<&'a ToolAnnotations>,
    #[serde(skip_serializing_if = "<[Icon]>::is_empty")]
    icons: &'a [Icon],
    #[serde(rename = "_meta", skip_serializing_if = "Meta::is_empty")]
    meta: Meta<'a>,
}

/// `_meta` entries, in declaration order.
struct Meta<'a>(&'a [(&'static str, Value)]);

impl Meta<'_> {
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl serde::Serialize for Meta<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

fn descriptor(tool: &Registered) -> Descriptor<'_> {
    let spec = &tool.spec;
    Descriptor {
        name: spec.name,
        title: spec.title,
        description: spec.description,
        input_schema: &tool.input_schema,
        output_schema: tool.descriptor_output.as_ref(),
        annotations: spec.annotations.as_ref(),
        icons: &spec.icons,
        meta: Meta(&spec.meta),
    }
}

/// One `tools/list` result; a modern one also carries `resultType`, the cache hints and
/// the server's name.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ListPage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'static str>,
    tools: &'a [Descriptor<'a>],
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cache_scope: Option<CacheScope>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<crate::client::ResultMeta<'a>>,
}

/// The `tools/list` pages: legacy ones, or modern ones naming the server (`server_info`).
fn list_pages(tools: &[Arc<Registered>], options: &Options, server_info: Option<&RawValue>) -> Vec<Box<RawValue>> {
    let listed: Vec<Descriptor<'_>> = tools.iter().filter(|t| t.disabled.is_none()).map(|t| descriptor(t)).collect();
    let size = options.page_size.unwrap_or(usize::MAX).min(listed.len().max(1));
    let chunks: Vec<&[Descriptor<'_>]> = if listed.is_empty() { vec![&[][..]] } else { listed.chunks(size).collect() };
    let count = chunks.len();
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, tools)| {
            let next_cursor = (i + 1 < count).then(|| cursor_for(i + 1));
            let page = ListPage {
                result_type: server_info.map(|_| "complete"),
                tools,
                next_cursor,
                ttl_ms: server_info.map(|_| options.cache_ttl_ms),
                cache_scope: server_info.map(|_| options.cache_scope),
                meta: server_info.map(crate::client::ResultMeta::new),
            };
            serde_json::value::to_raw_value(&page)
                .unwrap_or_else(|_| unreachable!("descriptors serialize: string keys, JSON values"))
        })
        .collect()
}

impl Server {
    /// The descriptors `tools/list` sends (all pages), for inspection and tests.
    pub fn tool_descriptors(&self) -> Vec<Value> {
        let descriptor =
            |tool| serde_json::to_value(descriptor(tool)).unwrap_or_else(|_| unreachable!("descriptors serialize"));
        self.shared.tools().all.iter().filter(|t| t.disabled.is_none()).map(|t| descriptor(t)).collect()
    }

    /// App data registered with [`ServerBuilder::app_data`], from outside a handler.
    pub fn app_data<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.shared.stores.app_data.get(&TypeId::of::<T>()).and_then(|b| b.downcast_ref::<T>())
    }

    /// The state store handlers reach with `ctx.state()`, scoped to this server and no tenant:
    /// to seed or inspect it from outside a handler.
    pub fn state(&self) -> crate::state::State<'_> {
        crate::state::State::new(&self.shared.stores, "")
    }

    /// Adds a tool while the server runs (or replaces the one of that name): the next
    /// `tools/list` shows it, and clients listening for changes are told
    /// (`notifications/tools/list_changed`). A tool whose schema does not compile is refused
    /// as at build time.
    pub fn add_tool<T: ToolDef>(&self, _tool: fn() -> T) -> Result<(), Error> {
        let registered = Arc::new(register(T::spec(), None, &self.shared.options)?);
        self.shared.change_tools(|tools| {
            tools.retain(|t| t.spec.name != registered.spec.name);
            tools.push(registered);
            true
        });
        Ok(())
    }

    /// Removes a tool while the server runs; calls already running finish. `false` when no
    /// tool has that name. Clients listening for changes are told.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.shared.change_tools(|tools| {
            let before = tools.len();
            tools.retain(|t| t.spec.name != name);
            tools.len() < before
        })
    }
}

impl Server {
    /// Adds a prompt while the server runs (or replaces the one of that name): clients
    /// listening for changes are told (`notifications/prompts/list_changed`).
    pub fn add_prompt<T: PromptDef>(&self, _prompt: fn() -> T) {
        let spec = Arc::new(T::spec());
        self.change_prompts(|prompts| {
            prompts.retain(|p| p.name != spec.name);
            prompts.push(spec);
            true
        });
    }

    /// Removes a prompt while the server runs. `false` when no prompt has that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change_prompts(|prompts| {
            let before = prompts.len();
            prompts.retain(|p| p.name != name);
            prompts.len() < before
        })
    }

    fn change_prompts(&self, change: impl FnOnce(&mut Vec<Arc<PromptSpec>>) -> bool) -> bool {
        let shared = &self.shared;
        let mut current = shared.prompts.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut all = current.all.clone();
        if !change(&mut all) {
            return false;
        }
        *current = Arc::new(Prompts { all });
        drop(current);
        shared.prompts_changed.send_modify(|n| *n += 1);
        true
    }

    /// Tells clients that the set of resources changed (a template's `list` fn now lists
    /// other instances): `notifications/resources/list_changed` goes to 2025 sessions and to
    /// 2026-07-28 listen streams that asked for it.
    pub fn resources_changed(&self) {
        self.shared.notices.resources_changed();
    }

    /// Tells clients subscribed to `uri` that its contents changed:
    /// `notifications/resources/updated` goes to the 2025 sessions that sent
    /// `resources/subscribe` for it and to 2026-07-28 listen streams that named it.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.shared.notices.resource_updated(uri.into());
    }
}

/// Who may cache a list result (`cacheScope`, 2026-07-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Only this caller: the default, and the only choice for lists that vary by caller.
    Private,
    /// Any caller: the result is the same for everyone.
    Public,
}

/// Cursors are opaque to clients: `page-<n>`.
pub(crate) fn cursor_for(page: usize) -> String {
    format!("page-{page}")
}

/// The page (of `pages`) a list request's `cursor` names: 0 without one; `-32602` for a
/// cursor this server did not hand out, saying to `restart` (list again without a cursor).
pub(crate) fn page_index(params: Option<&Value>, pages: usize, restart: &str) -> Result<usize, RpcError> {
    match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::String(cursor)) => {
            cursor.strip_prefix("page-").and_then(|n| n.parse().ok()).filter(|&p| p > 0 && p < pages).ok_or_else(|| {
                RpcError::invalid_params(format!(
                    "Invalid params: unknown cursor; {restart} without a cursor to start over"
                ))
            })
        }
        Some(_) => Err(RpcError::invalid_params("Invalid params: `cursor` must be a string")),
    }
}

/// SIGINT or SIGTERM: what ends `serve_stdio` and `serve_http` as EOF would.
pub(crate) async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
