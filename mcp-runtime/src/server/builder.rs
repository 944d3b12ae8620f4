//! `ServerBuilder`: what a server serves and how, checked and compiled by `build`.

use std::any::TypeId;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use crate::features::prompts::{PromptDef, PromptSpec, Prompts};
use crate::features::resources::{ResourceDef, ResourceSpec, Resources};
use crate::features::tools::tool::{ToolDef, ToolSpec};
use crate::state::seal::Sealer;
use crate::state::store::{AppData, StateStore, StoreError, Stores};

use super::{CacheScope, Error, PolicyRequest, Refusal, Server};
use crate::features::Shared;
use crate::features::tools::{Registered, Tools};
use crate::hooks::{Hook, Hooks};
use crate::options::Options;

/// Builds a [`Server`]; see [`Server::builder`].
///
/// ```
/// use mcp_runtime::prelude::*;
/// use std::time::Duration;
///
/// /// Says hello.
/// #[tool]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// let server = Server::builder("hello", "1.0.0")
///     .instructions("Call hello to be greeted.")
///     .default_timeout(Duration::from_secs(30))
///     .tool(hello)
///     .build()
///     .unwrap();
/// # let _ = server;
/// ```
///
/// Every setting is in the guide: [`crate::guide::getting_started`] (the server),
/// [`crate::guide::http`] (HTTP and the limits).
#[must_use]
pub struct ServerBuilder {
    name: String,
    version: String,
    instructions: Option<String>,
    specs: Vec<(ToolSpec, Option<String>)>,
    pub(crate) options: Options,
    hooks: Hooks,
    /// `otel()` found an exporter configured: the server records metrics.
    #[cfg(feature = "otel")]
    metrics: bool,
    app_data: AppData,
    store: Result<Option<Arc<dyn StateStore>>, crate::state::store::StoreError>,
    /// The Redis the bus links replicas through, when the store is a `RedisStore`.
    #[cfg(feature = "redis")]
    link_to: Option<crate::state::redis::LinkTo>,
    namespace: Option<String>,
    /// The sealing keys given, each with the name of the setting it came from.
    keys: Vec<(String, Vec<u8>)>,
    resources: Vec<ResourceSpec>,
    prompts: Vec<PromptSpec>,
    skills: Vec<crate::features::skills::Source>,
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
            hooks: Hooks::default(),
            #[cfg(feature = "otel")]
            metrics: false,
            app_data: AppData::new(),
            store: Ok(None),
            #[cfg(feature = "redis")]
            link_to: None,
            namespace: None,
            keys: Vec::new(),
            resources: Vec::new(),
            prompts: Vec::new(),
            skills: Vec::new(),
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

    /// Serves every skill in the directory at `path` (the Skills extension,
    /// `io.modelcontextprotocol/skills`): each folder in it is a skill, its `SKILL.md` (YAML
    /// frontmatter with `name`, the folder's name, and `description`) and every file under
    /// it, served as `skill://<name>/<path>`. Read, checked and hashed at
    /// [`build`](Self::build), which fails with [`Error::InvalidSkill`] (the file and the
    /// reason) for a folder without `SKILL.md`, frontmatter that lacks a field or breaks a
    /// rule, a symlink that leads out of the directory, a name a URI would have to escape, or
    /// a skill over the extension's limits (512 files, 16 MiB). Dot-files are left out;
    /// files are read once (a change on disk is served after a restart). None by default: a
    /// server without skills declares no extension. See [`crate::guide::skills`].
    pub fn skills_dir(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.skills.push(crate::features::skills::Source::Dir(path.into()));
        self
    }

    /// Serves a skill declared in code ([`Skill`](crate::Skill)): its `SKILL.md` and files
    /// from `include_str!` or generated, checked at [`build`](Self::build) as a skill on disk
    /// is.
    pub fn skill(mut self, skill: crate::features::skills::Skill) -> Self {
        self.skills.push(crate::features::skills::Source::Code(skill));
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

    /// A per-call policy on tool calls, run before argument validation: return a
    /// [`Refusal`] to refuse the call (`tool_unavailable`; the tool stays listed).
    ///
    /// A policy is a [`Hook`]: it runs among the hooks, in the order it was added. Each call
    /// of `policy` adds one (two policies both run; before, the second replaced the first).
    pub fn policy(self, policy: impl Fn(&PolicyRequest<'_>) -> Option<Refusal> + Send + Sync + 'static) -> Self {
        self.hook(crate::hooks::policy::PolicyHook(Box::new(policy)))
    }

    /// Adds a hook around every call of a tool, a resource or a prompt: its
    /// [`before`](Hook::before) runs after the hooks added before it, once the call is
    /// resolved and before its arguments are checked, and may refuse the call with a
    /// failure envelope; its [`after`](Hook::after) runs once the call is answered, before
    /// those of the hooks added before it. See [`RateLimit`](crate::RateLimit) and
    /// [`Audit`](crate::Audit).
    pub fn hook(mut self, hook: impl Hook) -> Self {
        self.hooks.push(Box::new(hook));
        self
    }

    /// Traces and metrics by the OpenTelemetry conventions for MCP, exported over OTLP/HTTP
    /// as the standard environment says (feature `otel`), and the stderr logging of
    /// [`init_stderr_logging`](crate::init_stderr_logging): call it instead of that.
    ///
    /// Without `OTEL_EXPORTER_OTLP_ENDPOINT` (or a per-signal endpoint) nothing is exported,
    /// and the server is as without this call. With it: one `SERVER` span per request
    /// received, the `mcp.server.operation.duration` and `mcp.server.session.duration`
    /// histograms, and this SDK's calls and active calls; `OTEL_EXPORTER_OTLP_PROTOCOL`
    /// (`http/protobuf`, `http/json`), `OTEL_SERVICE_NAME` (default: this server's name),
    /// `OTEL_TRACES_SAMPLER`, `OTEL_METRIC_EXPORT_INTERVAL` and the other standard variables
    /// apply. What is batched is flushed when the server stops serving. A configuration
    /// that cannot be served (an `https://` endpoint without feature `otel-tls`, `grpc`)
    /// turns the export off with a line on stderr that says what to do.
    ///
    /// The export is set up once per process. When a `tracing` subscriber is installed
    /// already, spans are exported only if it holds [`otel_layer`](crate::otel_layer) (a
    /// line on stderr says so); metrics are exported either way.
    ///
    /// ```no_run
    /// use mcp_runtime::prelude::*;
    ///
    /// # /// Adds two numbers.
    /// # #[tool] fn add(a: i64, b: i64) -> i64 { a + b }
    /// #[tokio::main]
    /// async fn main() -> Result<(), mcp_runtime::Error> {
    ///     // OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 ./calc
    ///     Server::builder("calc", "1.0.0").tool(add).otel().build()?.serve_stdio().await
    /// }
    /// ```
    #[cfg(feature = "otel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
    pub fn otel(mut self) -> Self {
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        let telemetry = crate::observe::export::telemetry(&self.name, &self.version);
        self.metrics = telemetry.is_some();
        let logging = tracing_subscriber::registry()
            .with(crate::context::logging::stderr_layer())
            .with(crate::context::logging::client_log_layer());
        // Without an export, exactly the subscriber of `init_stderr_logging` (not one with an
        // empty `Option` layer, which would weigh in on every callsite's interest).
        let installed = match telemetry {
            Some(telemetry) => logging.with(crate::observe::export::layer(telemetry)).try_init().is_ok(),
            None => logging.try_init().is_ok(),
        };
        let given = crate::observe::export::LAYER_GIVEN.load(std::sync::atomic::Ordering::Relaxed);
        if !installed && !given && telemetry.is_some() {
            let instead = if crate::context::logging::installed_by_init() {
                "call .otel() instead of init_stderr_logging(): it installs the same logging"
            } else {
                "add mcp_runtime::otel_layer() to the subscriber you install"
            };
            eprintln!(
                "mcp-runtime: a tracing subscriber was installed before .otel(), so spans are not exported (metrics are); {instead}"
            );
        }
        self
    }

    /// A value of this process for handlers (a database pool, a config), read with
    /// `ctx.app_data::<T>()`. One value per type. What must be shared by replicas or outlive
    /// the process goes in the state store instead ([`ServerBuilder::state_store`]).
    pub fn app_data<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.app_data.insert(TypeId::of::<T>(), Box::new(value));
        self
    }

    /// The state store handlers reach with `ctx.state()`, and consent records and tasks live
    /// in (default: a [`MemoryStore`](crate::MemoryStore) of this process). Replicas that
    /// share one store (Redis: `RedisStore`, feature `redis`) behave as one: with a
    /// `RedisStore`, the events listeners hear (list changes, resource updates, task changes)
    /// travel between them over Redis pub/sub too. To keep a handle to the store, give it an
    /// `Arc::clone` (`StateStore` is implemented for `Arc<S>`, and for `Box<dyn StateStore>`).
    pub fn state_store<S: StateStore>(mut self, store: S) -> Self {
        #[cfg(feature = "redis")]
        {
            let any: &dyn std::any::Any = &store;
            // A `RedisStore`, or an `Arc` of one the app keeps a handle to.
            self.link_to = any
                .downcast_ref::<crate::state::redis::RedisStore>()
                .or_else(|| any.downcast_ref::<Arc<crate::state::redis::RedisStore>>().map(|s| &**s))
                .map(crate::state::redis::RedisStore::link_to);
        }
        self.store = Ok(Some(Arc::new(store)));
        self
    }

    /// The state store a URL names (see [`store_from_url`]): `memory:`, or
    /// `redis://[user:password@]host[:port][/db]` (feature `redis`; `rediss://` with feature
    /// `redis-tls`; several node URLs separated by commas for a Redis Cluster, feature
    /// `redis-cluster`). Events then travel between replicas too, as with
    /// [`ServerBuilder::state_store`]. A URL that names no store fails
    /// [`ServerBuilder::build`].
    pub fn state_store_url(mut self, url: &str) -> Self {
        #[cfg(feature = "redis")]
        if is_redis(url) {
            match crate::state::redis::RedisStore::open(url) {
                Ok(store) => return self.state_store(store),
                Err(e) => self.store = Err(e),
            }
            return self;
        }
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

    /// How many unredeemed consent records ([`Ctx::consent`](crate::Ctx::consent)) one caller
    /// may hold (default 64): asking past it lets that caller's oldest unanswered ask go (its
    /// answer, if it ever comes, is asked again). One caller is a principal, or over HTTP
    /// without authorization an address; a record lives 15 minutes at most either way.
    pub fn max_consents_per_caller(mut self, records: usize) -> Self {
        self.options.consents_per_caller = records.max(1);
        self
    }

    /// An `optional` task tool (`#[tool(task = "optional")]`) whose call has not finished
    /// within `after` goes on as a task, for a client that declared the tasks extension:
    /// quick calls stay inline, slow ones answer `CreateTaskResult` and go on in the
    /// background (default: only when the handler asks, with `ctx.run_as_task()`).
    pub fn task_after(mut self, after: Duration) -> Self {
        self.options.tasks.after = Some(after);
        self
    }

    /// How long a task lives from its creation, its `ttlMs` (default one hour). A task that
    /// has not ended by then is `failed` (reason `task_expired`, retryable); every task is
    /// purged a minute after its TTL, then `tasks/get` no longer finds it.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.options.tasks.ttl = ttl.max(Duration::from_millis(1));
        self
    }

    /// The polling interval tasks ask clients to keep, `pollIntervalMs` (default one second).
    pub fn task_poll_interval(mut self, interval: Duration) -> Self {
        self.options.tasks.poll = interval.max(Duration::from_millis(1));
        self
    }

    /// How long the replica running a task vouches for it before renewing (default 15 s;
    /// renewed every third of it). If the replica stops, its tasks read `failed` with a
    /// retryable `task_lost` error once this has passed. Replicas' clocks must agree well
    /// within it.
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.options.tasks.lease = lease.max(Duration::from_millis(300));
        self
    }

    /// The most tasks this replica runs at once (default 1024), and the most one caller (a
    /// principal, or the local one) runs here at once (default 64). A call that would go on
    /// as a task past either is answered with the retryable `server_busy` envelope instead;
    /// it is never queued. A task counts until it ends (waiting for input included).
    pub fn task_max_running(mut self, total: usize, per_caller: usize) -> Self {
        self.options.tasks.max_running = total;
        self.options.tasks.max_running_per_caller = per_caller;
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

    /// The most tasks one `subscriptions/listen` stream may follow (default 256): a listen
    /// whose `notifications.taskIds` lists more is refused with `-32602` before any of them
    /// is looked at. Open another stream for the rest.
    pub fn max_listen_tasks(mut self, tasks: usize) -> Self {
        self.options.max_listen_tasks = tasks;
        self
    }

    /// The most resources one `subscriptions/listen` stream may subscribe to (default 256):
    /// a listen whose `notifications.resourceSubscriptions` lists more is refused with
    /// `-32602` before any of them is looked at. URIs this server has no resource for, and
    /// those the caller may not read, are left out of the subscription (and of the
    /// acknowledgement).
    pub fn max_listen_subscriptions(mut self, resources: usize) -> Self {
        self.options.max_listen_subscriptions = resources;
        self
    }

    /// The most bytes the URIs of one `subscriptions/listen`'s
    /// `notifications.resourceSubscriptions` may add up to (default 64 KiB: 256 URIs of 256
    /// bytes): a listen whose URIs add up to more is refused with `-32602` before any of them
    /// is looked at. The server keeps the URIs for as long as the stream is open and echoes
    /// them in its acknowledgement, which must fit the stream's notification budget (1 MiB).
    pub fn max_listen_subscription_bytes(mut self, bytes: usize) -> Self {
        self.options.max_listen_subscription_bytes = bytes;
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

    /// How many characters of a value a client chose a request's span records (default
    /// 1,024): the URI of a `resources/read`, a failure's message and the envelope's fields.
    /// A longer value is cut at a character boundary and ends with `…`. A span is kept until
    /// it is exported (see [`crate::guide::observability`]); without this cut, a client's
    /// megabyte-long URIs would be kept as long, once per request.
    pub fn span_value_chars(mut self, chars: usize) -> Self {
        self.options.span_value_chars = chars;
        self
    }

    /// How long the last export of spans and metrics may take when the server stops serving
    /// (default 2 s; feature `otel`): at EOF over stdio, at the end of an HTTP server's
    /// shutdown. Past it the server returns without waiting for a collector that does not
    /// answer (what it did not take is lost, and a line on stderr says so), so that a client
    /// that closes a stdio server's input and kills it a few seconds later finds it gone.
    #[cfg(feature = "otel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
    pub fn otel_flush_grace(mut self, grace: Duration) -> Self {
        self.options.otel_flush_grace = grace;
        self
    }

    /// How many bytes the spans waiting for export may hold (default 16 MiB; feature `otel`),
    /// besides the count the standard `OTEL_BSP_MAX_QUEUE_SIZE` sets (default 2048). While
    /// a collector is slow or does not answer, spans wait; past either bound new ones are
    /// dropped, a warning says so when it starts, and the total when the server stops. The
    /// queue is the process's, like the export: the value applies from `build()` on.
    #[cfg(feature = "otel")]
    #[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
    pub fn otel_queue_bytes(mut self, bytes: usize) -> Self {
        self.options.otel_queue_bytes = Some(bytes);
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

    /// Whether every `isError` result also carries the failure in the place the draft
    /// SEP-3313 proposes (default off while it is a draft):
    /// `_meta["io.modelcontextprotocol/toolFailure"] = {class, code, retryable, retryNotBefore,
    /// correlationId, agentGuidance}`, mapped from the envelope (`code` is the reason,
    /// `agentGuidance` the recovery hint, `correlationId` the request id; `class` by the error
    /// code: docs/errors.md#the-draft-failure-standards). In both eras and on tasks' results.
    pub fn tool_failure_meta(mut self, on: bool) -> Self {
        self.options.drafts.tool_failure_meta = on;
        self
    }

    /// Whether a rate-limit refusal that is a protocol error (a `resources/read`,
    /// `prompts/get` or `completion/complete` refused by [`RateLimit`](crate::RateLimit)) has
    /// the code `-32023` of the draft SEP-3304, with `data.retryAfterMs` (default off: `-32003`,
    /// with the same data). A `tools/call` refusal stays a tool execution error.
    pub fn rate_limited_code(mut self, on: bool) -> Self {
        self.options.drafts.rate_limited_code = on;
        self
    }

    /// Whether `tools/list` carries each tool's declared failure modes (default on): a tool
    /// with `#[errors(...)]` or a `contract` lists them in its `_meta` under
    /// [`FAILURES_META_KEY`](crate::FAILURES_META_KEY), one object per reason in declaration
    /// order, `{"reason", "code", "retryable" (when declared), "when", "recovery"}`, so that an
    /// agent or a gateway can plan for a failure before the call. `list_failures(false)`
    /// leaves them out (the contract still fills every failure's envelope).
    pub fn list_failures(mut self, on: bool) -> Self {
        self.options.list_failures = on;
        self
    }

    /// Repairs the arguments of a call that fails its tool's input schema when the repaired
    /// arguments then validate (default on): a string holding a number or a boolean where
    /// the schema wants one (`"5"` is `5`), a lone value where it wants an array (a list of
    /// one), `null` for an optional field (absent); inside nested objects, arrays and tagged
    /// unions. The handler sees the repaired, typed value; each repair is logged with the
    /// call (`mcp_runtime.input.repairs` on its span). Off, such a call is refused with
    /// `invalid_arguments`. One tool turns them off with `#[tool(repair = false)]`. A valid
    /// call never pays for this: repairs are tried only after validation failed
    /// (docs/errors.md#repairs).
    pub fn repair_inputs(mut self, on: bool) -> Self {
        self.options.repair_inputs = on;
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

    /// The caller of every request that arrives where no authorization is configured: stdio,
    /// in-process calls ([`Server::call`], `Server::connect`, `TestClient`), and HTTP without
    /// `authorization` (feature `http`) when no middleware put a [`Principal`](crate::auth::principal::Principal) in the
    /// request. Default [`Principal::local`](crate::auth::principal::Principal::local), which holds every scope: a local process is
    /// authorized by whoever starts it. Declared `scopes(..)`, `ctx.require_scopes(..)`,
    /// [`hide_unauthorized_tools`](Self::hide_unauthorized_tools) and scoped resources and
    /// prompts apply to it as to a token's principal, so a narrower one limits what local
    /// callers may do:
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// /// Deletes a note.
    /// #[tool(scopes("notes:write"))]
    /// fn delete_note(name: String) -> Result<String, ToolError> {
    ///     Ok(format!("deleted {name}"))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
    /// let server = Server::builder("notes", "1.0.0")
    ///     .tool(delete_note)
    ///     .local_principal(Principal::new("operator").with_scopes(["notes:read"]))
    ///     .build()?;
    /// let out = server.call("delete_note", serde_json::json!({"name": "n1"})).await;
    /// assert_eq!(out.is_error, Some(true)); // the local principal lacks `notes:write`
    /// # Ok(()) }
    /// ```
    ///
    /// Behind your own HTTP authentication (a middleware that inserts a `Principal`), set a
    /// local principal without scopes, `Principal::default()`, so that a request it lets
    /// through without one holds none.
    pub fn local_principal(mut self, principal: crate::auth::principal::Principal) -> Self {
        self.options.local_principal = std::sync::Arc::new(principal.into_local());
        self
    }

    /// Generates and compiles every schema, and checks names. Returns an error, never
    /// panics.
    pub fn build(self) -> Result<Server, Error> {
        #[cfg(feature = "http")]
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
        stateless_asks(&tools, &self.options)?;
        for tool in tools.iter().filter(|t| t.disabled.is_none()) {
            app_data_registered(&tool.spec, &self.app_data)?;
        }
        let server_info =
            serde_json::value::to_raw_value(&serde_json::json!({"name": self.name, "version": self.version}))
                .unwrap_or_else(|_| unreachable!("two strings serialize"));
        let blocking = Arc::new(tokio::sync::Semaphore::new(self.options.max_in_flight));
        let value_chars = self.options.span_value_chars;
        #[cfg(feature = "otel")]
        if let Some(bytes) = self.options.otel_queue_bytes {
            crate::observe::queue::set_max_bytes(bytes);
        }
        let sealer = if self.keys.is_empty() {
            Sealer::ephemeral(crate::state::seal::DEFAULT_TTL)
        } else {
            for (setting, key) in &self.keys {
                crate::state::seal::check_key(setting, key).map_err(Error::RequestStateKey)?;
            }
            Sealer::new(self.keys.into_iter().map(|(_, key)| key).collect(), crate::state::seal::DEFAULT_TTL)
        };
        let store = self.store?;
        let shared = store.is_some();
        let mut stores = Stores::new(
            self.app_data,
            store.unwrap_or_else(|| Arc::new(crate::state::store::MemoryStore::new())),
            self.namespace.unwrap_or_else(|| self.name.clone()),
            sealer,
        );
        stores.consents_per_caller = self.options.consents_per_caller;
        stores.shared = shared;
        let stores = Arc::new(stores);
        #[cfg(feature = "redis")]
        let bus = match self.link_to {
            Some(link_to) => crate::state::bus::Bus::linked(Box::new(link_to.link(&stores.namespace))),
            None => crate::state::bus::Bus::default(),
        };
        #[cfg(not(feature = "redis"))]
        let bus = crate::state::bus::Bus::default();
        let (resources, skills) = resources_and_skills(self.resources, self.skills, &tools)?;
        let mut prompts = Prompts::default();
        for spec in self.prompts {
            if prompts.get(spec.name).is_some() {
                return Err(Error::DuplicatePrompt(spec.name.to_owned()));
            }
            prompts.all.push(Arc::new(spec));
        }
        let notices = Arc::new(crate::context::ctx::Notices::new(bus));
        let tasks = crate::tasks::Tasks::new(
            Arc::clone(&stores.store),
            &stores.namespace,
            self.options.tasks.clone(),
            Arc::clone(&notices),
        );
        Ok(Server {
            shared: Arc::new(Shared {
                tools: RwLock::new(Arc::new(Tools::new(tools, &self.options, &server_info))),
                resources,
                skills,
                notices,
                prompts: RwLock::new(Arc::new(prompts)),
                prompts_changed: tokio::sync::watch::Sender::new(0),
                name: self.name,
                version: self.version,
                instructions: self.instructions,
                server_info,
                options: self.options,
                observer: crate::observe::Observer {
                    hooks: self.hooks,
                    value_chars,
                    stores: Arc::clone(&stores),
                    #[cfg(feature = "otel")]
                    metrics: crate::observe::export::current()
                        .filter(|_| self.metrics)
                        .map(|t| Arc::new(crate::observe::metrics::Metrics::new(&t.meter))),
                },
                stores,
                tasks,
                blocking,
            }),
        })
    }
}

/// The store a URL names: `memory:` (this process only) or, with feature `redis`,
/// `redis://[user:password@]host[:port][/db]`; with feature `redis-tls`, `rediss://…`
/// (checked against the system's roots; a private CA needs `RedisStore::with_tls`);
/// with feature `redis-cluster`, the URLs of one or more nodes of a Redis Cluster,
/// separated by commas (`redis://10.0.0.1:6379,redis://10.0.0.2:6379`).
pub fn store_from_url(url: &str) -> Result<Arc<dyn StateStore>, StoreError> {
    if url == "memory:" || url == "memory" {
        return Ok(Arc::new(crate::state::store::MemoryStore::new()));
    }
    if is_redis(url) {
        #[cfg(feature = "redis")]
        return Ok(Arc::new(crate::state::redis::RedisStore::open(url)?));
        #[cfg(not(feature = "redis"))]
        return Err(StoreError::new("redis", "this build has no Redis backend: enable feature `redis` of mcp-runtime"));
    }
    let scheme = url.split_once(':').map_or(url, |(scheme, _)| scheme);
    Err(StoreError::new(
        "url",
        format!("unknown state store `{scheme}:`; use `memory:` or `redis://host:port` (feature `redis`)"),
    ))
}

/// The resources and the skills (whose files are resources), each checked; then every tool's
/// MCP Apps view is one of them.
fn resources_and_skills(
    specs: Vec<ResourceSpec>,
    skills: Vec<crate::features::skills::Source>,
    tools: &[Arc<Registered>],
) -> Result<(Resources, crate::features::skills::Skills), Error> {
    let mut resources = Resources::default();
    for spec in specs {
        resources
            .add(spec)
            .map_err(|(resource, message)| Error::InvalidResource { resource: resource.to_owned(), message })?;
    }
    let skills = crate::features::skills::Skills::build(skills, &mut resources)
        .map_err(|(file, reason)| Error::InvalidSkill { file, reason })?;
    for tool in tools {
        view_served(&tool.spec, &resources)?;
    }
    Ok((resources, skills))
}

/// A tool's `#[tool(ui = "ui://..")]` names one of the server's MCP Apps views.
pub(crate) fn view_served(spec: &ToolSpec, resources: &Resources) -> Result<(), Error> {
    let views = resources.views();
    match spec.ui.as_ref().and_then(|ui| crate::features::apps::unserved(ui, &views)) {
        None => Ok(()),
        Some(uri) => {
            let views: Vec<String> = views.iter().map(|v| format!("`{v}`")).collect();
            Err(Error::UnknownView { tool: spec.name.to_owned(), uri: uri.to_owned(), views: views.join(", ") })
        }
    }
}

/// Every app data type `spec` reads (`#[tool(app_data(..))]`) is registered.
pub(crate) fn app_data_registered(spec: &ToolSpec, app_data: &AppData) -> Result<(), Error> {
    for need in spec.app_data {
        let (id, type_name) = need();
        if !app_data.contains_key(&id) {
            return Err(Error::MissingAppData { tool: spec.name.to_owned(), type_name });
        }
    }
    Ok(())
}

/// Over HTTP without sessions a 2025-era client cannot be asked: the tools that ask are named
/// in a warning, or fail the build with `deny_stateless_asks(true)`.
fn stateless_asks(tools: &[Arc<Registered>], options: &Options) -> Result<(), Error> {
    if !options.http.stateless {
        return Ok(());
    }
    let asking: Vec<String> =
        tools.iter().filter(|t| t.spec.asks && t.disabled.is_none()).map(|t| t.spec.name.to_owned()).collect();
    if asking.is_empty() {
        return Ok(());
    }
    if options.http.deny_stateless_asks {
        return Err(Error::AsksWithoutSessions(asking));
    }
    tracing::warn!(target: "mcp_runtime::server", "{}: a 2025-era call is refused with `client_capability_missing`, only 2026-07-28 clients can answer; serve with sessions for 2025-era clients (`deny_stateless_asks(true)` makes this an error)", super::asking_tools(&asking));
    Ok(())
}

/// Whether a store URL names Redis.
fn is_redis(url: &str) -> bool {
    ["redis://", "rediss://", "redis+unix://", "unix://"].iter().any(|scheme| url.starts_with(scheme))
}

pub(crate) fn register(spec: ToolSpec, disabled: Option<String>, options: &Options) -> Result<Registered, Error> {
    if spec.needs_session && options.http.stateless {
        return Err(Error::NeedsSession(spec.name.to_owned()));
    }
    let invalid = |which: &'static str| {
        let tool = spec.name.to_owned();
        move |message| Error::InvalidSchema { tool, which, message }
    };
    let input = crate::schema::generate::input(&spec.input, !spec.allow_unknown_args);
    let input_validator = crate::schema::generate::compile(&input.schema).map_err(invalid("input"))?;
    let output = crate::schema::generate::output(spec.output_schema);
    let output_validator =
        output.as_ref().map(|o| crate::schema::generate::compile(&o.schema)).transpose().map_err(invalid("output"))?;
    let timeout = spec.timeout_ms.map(Duration::from_millis).or(options.default_timeout);
    let header_params = crate::schema::generate::header_params(&input.schema).map_err(invalid("input"))?;
    let wrap_result = output.as_ref().is_some_and(|o| o.wrapped);
    let failures_meta = options.list_failures.then(|| crate::features::tools::list::failures_meta(&spec)).flatten();
    let repair = spec.repair && options.repair_inputs;
    Ok(Registered {
        descriptor_output: output.map(|o| o.schema),
        failures_meta,
        spec,
        input_validator,
        input_schema: input.schema,
        null_means_absent: input.null_means_absent,
        repair,
        output_validator,
        wrap_result,
        disabled,
        timeout,
        header_params,
        pace: crate::features::tools::pace::Pace::default(),
    })
}
