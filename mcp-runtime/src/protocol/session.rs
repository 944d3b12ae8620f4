//! One client connection as its requests see it: the era of each request, the lifecycle
//! methods of both eras (`initialize`, `ping`, `logging/setLevel`; `server/discover`),
//! `tools/list`, `subscriptions/listen`, notifications (`notifications/cancelled`), and the
//! routing of `tools/call` to its own task. Each request is classified here, once: a
//! modern `_meta` claim makes it a 2026-07-28 request served with its own envelope; any
//! other request belongs to the `initialize` session (2025).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::value::RawValue;
use serde_json::{Value, json};

use tracing::Instrument as _;

use crate::context::ask::Reply;
use crate::context::ctx::CancelState;
use crate::hooks::Answer;
use crate::observe::Watch;
use crate::protocol::dispatch::{self, CallRequest};
use crate::protocol::router::{self, Feature, Listening};
use crate::rpc::channel::Channel;
use crate::rpc::era::{self, Claim, Client, Complete, Era, LEGACY_VERSIONS, Legacy, LogLevel, MODERN_VERSIONS};
use crate::rpc::jsonrpc::{self, Incoming, RpcError};
use crate::server::{BoxFuture, Shared, page_index};
use crate::state::bus::Event;

/// One client's session, as the requests of one channel see it: the session's state, and
/// where answers and notifications go. On stdio that is the connection's one outbox; over
/// HTTP each POST has its own (its response), and shares the session's state with the
/// others.
pub(crate) struct Session {
    pub(crate) shared: Arc<Shared>,
    pub(crate) state: Arc<State>,
    pub(crate) channel: Arc<Channel>,
    /// Turns `true` when the transport ends: listen streams end with their graceful result.
    closing: Option<tokio::sync::watch::Receiver<bool>>,
}

/// What a session remembers between requests.
pub(crate) struct State {
    /// Set by the first `initialize`; a second one is refused.
    initialized: AtomicBool,
    /// Legacy requests are served without `initialize` (HTTP without sessions).
    per_request: bool,
    /// What `initialize` declared, and the log level.
    legacy: Arc<Legacy>,
    /// Requests running or queued, by their id as sent: how a cancellation finds them, and
    /// how a second request with the same id is refused.
    in_flight: Mutex<HashMap<Box<str>, Arc<CancelState>>>,
    /// URIs named by `resources/subscribe` (2025).
    subscriptions: Mutex<std::collections::HashSet<String>>,
    /// Set when the task that sends this 2025 session its list changes and resource updates
    /// runs (from `initialize` on).
    forwarding: AtomicBool,
    /// Dropped with the state: the forwarding task ends with the session.
    alive: tokio::sync::watch::Sender<()>,
    /// Where messages outside any request go: an HTTP session's standalone stream (GET).
    /// `None` on stdio, where the connection's own output carries them.
    standalone: Option<Arc<crate::rpc::outbox::Outbox>>,
}

impl State {
    /// A session that starts with `initialize`.
    pub(crate) fn new() -> Self {
        State {
            initialized: AtomicBool::new(false),
            per_request: false,
            legacy: Arc::default(),
            in_flight: Mutex::default(),
            subscriptions: Mutex::default(),
            forwarding: AtomicBool::new(false),
            alive: tokio::sync::watch::Sender::new(()),
            standalone: None,
        }
    }

    /// An HTTP session, whose messages outside any request go to `standalone` (its GET stream).
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // used by the HTTP transport
    pub(crate) fn with_standalone(standalone: Arc<crate::rpc::outbox::Outbox>) -> Self {
        State { standalone: Some(standalone), ..State::new() }
    }

    /// The state of one request served without a session (stateless HTTP).
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // used by the HTTP transport
    pub(crate) fn per_request() -> Self {
        State { per_request: true, legacy: Arc::new(Legacy::per_request()), ..State::new() }
    }

    /// The revision `initialize` negotiated, if one did.
    pub(crate) fn protocol_version(&self) -> Option<&'static str> {
        self.legacy.version()
    }

    /// Whether an `initialize` succeeded.
    pub(crate) fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    /// Whether a request of the session runs or waits.
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // used by the HTTP transport
    pub(crate) fn running(&self) -> bool {
        !self.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty()
    }

    /// Cancels every request of the session that runs or waits (the session ended).
    #[cfg_attr(not(feature = "http"), allow(dead_code))] // used by the HTTP transport
    pub(crate) fn cancel_all(&self) {
        let in_flight = self.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for cancel in in_flight.values() {
            cancel.cancel();
        }
    }
}

/// What the reader should do with a line after the session looked at it.
// `Next` only lives between reading a line and spawning its call; boxing the request would
// cost an allocation per call for nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Next {
    Done,
    /// A `tools/call` or a `subscriptions/listen` to run in its own task. Its cancellation
    /// handle is registered already, so a `notifications/cancelled` on the next line finds it.
    Call {
        id: Box<RawValue>,
        job: Job,
        cancel: Arc<CancelState>,
    },
    /// A request that cannot be served now: the transport keeps its line and hands it back
    /// with [`Seen::Parked`] when it can.
    Park(Parked),
}

/// Work that runs in a task of its own, and the client as its request showed it.
pub(crate) struct Job {
    client: Client,
    work: Work,
    /// The request, watched until its answer.
    watch: Watch,
}

enum Work {
    Call(CallRequest),
    /// A resource read, a prompt, a completion: the author's code runs.
    Feature(Feature),
    /// `tasks/get`, `tasks/update` or `tasks/cancel`: the state store answers.
    Task(crate::tasks::TaskRequest),
    /// A listen stream; `tools` when the client asked for `notifications/tools/list_changed`,
    /// `task_ids` the tasks whose `notifications/tasks` it asked for.
    Listen {
        tools: bool,
        more: Listening,
        task_ids: Vec<String>,
    },
}

impl Job {
    /// `true` for a listen stream, which runs until cancelled or the transport ends.
    pub(crate) fn is_listen(&self) -> bool {
        matches!(self.work, Work::Listen { .. })
    }

    /// Whether this is a `tools/call` that may run on the stdio reader itself (see
    /// `Registered::runs_inline`).
    pub(crate) fn runs_inline(&self, shared: &Shared) -> bool {
        match &self.work {
            Work::Call(req) => shared.tools().get(req.name.as_str()).is_some_and(|tool| tool.runs_inline()),
            _ => false,
        }
    }
}

/// What the transport can do for a request now.
#[derive(Clone, Copy)]
pub(crate) struct Admit {
    /// Output is not congested: answers may be queued.
    pub(crate) answer: bool,
    /// A call may start (a slot is free and no call waits before it).
    pub(crate) run: bool,
    /// Calls that cannot start are refused (the queue is full).
    pub(crate) refuse: bool,
}

/// Whether a line is new or comes back from the transport's queue.
#[derive(Clone, Copy)]
pub(crate) enum Seen {
    Fresh,
    Parked(Parked),
}

/// A parked request: whether it is a `tools/call` (it needs a slot to leave the queue) and
/// whether its id is registered already (a cancellation finds it while it waits).
#[derive(Clone, Copy)]
pub(crate) struct Parked {
    pub(crate) call: bool,
    pub(crate) registered: bool,
}

impl Session {
    pub(crate) fn new(
        shared: Arc<Shared>,
        state: Arc<State>,
        channel: Channel,
        closing: Option<tokio::sync::watch::Receiver<bool>>,
    ) -> Self {
        Session { shared, state, channel: Arc::new(channel), closing }
    }

    /// Queues an answer.
    pub(crate) fn send(&self, line: Vec<u8>) {
        self.channel.send(line);
    }

    /// Handles one line. Notifications take effect at once; requests are answered here when
    /// `admit` allows, except `tools/call` and `subscriptions/listen`, which are parsed here
    /// and handed back to run in their own task; what cannot be served now is handed back to
    /// be parked.
    pub(crate) fn handle(&self, line: &[u8], admit: Admit, seen: Seen) -> Next {
        let incoming = jsonrpc::parse(line);
        let is_request = !matches!(incoming, Incoming::Notification { .. } | Incoming::Response { .. });
        if is_request && !admit.answer {
            // Parked as it is; a call's id is registered so that a cancellation finds it.
            let registered = match (&incoming, seen) {
                (_, Seen::Parked(p)) => p.registered,
                (Incoming::Request { id, method, .. }, Seen::Fresh) if runs_alone(method) => {
                    self.register(id).is_some()
                }
                _ => false,
            };
            let call = matches!(&incoming, Incoming::Request { method, .. } if runs_alone(method));
            return Next::Park(Parked { call, registered });
        }
        match incoming {
            Incoming::ParseError => self.send(jsonrpc::failure(None, -32700, "Parse error")),
            Incoming::Invalid { id, message } => self.send(jsonrpc::failure(id.as_deref(), -32600, &message)),
            // The answer to a request of the legacy shim: to the call that waits for it.
            Incoming::Response { id, result, error } => self.state.legacy.pending.answer(id, result, error),
            Incoming::Notification { method, params } => self.notification(&method, params),
            Incoming::Request { id, method, params } => {
                let client = match self.classify(&method, params) {
                    Ok(client) => client,
                    Err(e) => {
                        if let Seen::Parked(Parked { registered: true, .. }) = seen {
                            self.in_flight_map().remove(id.get());
                        }
                        self.refuse(id, &method, params, None, &e);
                        return Next::Done;
                    }
                };
                if runs_alone(&method) && (!modern_only(&method) || client.era() == Era::Modern) {
                    return self.start(id, &method, params, client, admit, seen);
                }
                if let Seen::Parked(Parked { registered: true, .. }) = seen {
                    // Parked as if it would run alone (a 2025 `subscriptions/listen`): answered
                    // here instead, so its id is free again.
                    self.in_flight_map().remove(id.get());
                }
                let watch = self.watch(&method, id, params);
                let answer = watch.span().in_scope(|| match client.era() {
                    Era::Modern => self.modern(id, &method, params, &client),
                    _ => self.legacy(id, &method, params, &client),
                });
                match answer {
                    Ok(line) => {
                        self.end(watch, Some(&client), Answer::Result);
                        self.send(line);
                    }
                    Err(e) => {
                        self.end(watch, Some(&client), Answer::Error(&e));
                        self.send(jsonrpc::error(Some(id), &e));
                    }
                }
            }
        }
        Next::Done
    }

    /// The era of a request, and the client as it shows it; or why it cannot be served.
    fn classify(&self, method: &str, params: Option<&RawValue>) -> Result<Client, RpcError> {
        match era::claim(params)? {
            Claim::Modern(envelope) => {
                if let Some(instead) = removed_in_modern(method) {
                    return Err(RpcError {
                        code: -32601,
                        message: format!("Method not found: {method} was removed in {}; {instead}", envelope.version),
                        data: None,
                    });
                }
                Ok(Client::Modern(Arc::new(envelope)))
            }
            Claim::Legacy | Claim::None => {
                let served =
                    method == "initialize" || method == "ping" || self.state.per_request || self.state.is_initialized();
                if !served {
                    return Err(RpcError::invalid_params(format!(
                        "Invalid params: `_meta` names no protocol version. Put \"io.modelcontextprotocol/protocolVersion\" ({}) and \"io.modelcontextprotocol/clientCapabilities\" in `params._meta`, or send `initialize` first ({})",
                        MODERN_VERSIONS.join(", "),
                        LEGACY_VERSIONS[0]
                    )));
                }
                Ok(Client::Legacy(Arc::clone(&self.state.legacy)))
            }
        }
    }

    /// A 2025 request answered at once.
    fn legacy(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: &Client,
    ) -> Result<Vec<u8>, RpcError> {
        match method {
            "initialize" => self.initialize(value(params)).map(|r| jsonrpc::success(id, &r)),
            "ping" => Ok(jsonrpc::success(id, &json!({}))),
            "tools/list" => self.tools_list(id, params, false),
            "logging/setLevel" => {
                Self::set_level(value(params).as_ref(), client).map(|()| jsonrpc::success(id, &json!({})))
            }
            "resources/subscribe" | "resources/unsubscribe" if !self.shared.resources.is_empty() => self
                .subscribe(method == "resources/subscribe", value(params).as_ref())
                .map(|()| jsonrpc::success(id, &json!({}))),
            other => self.feature(id, other, params, client),
        }
    }

    /// A 2026-07-28 request answered at once.
    fn modern(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: &Client,
    ) -> Result<Vec<u8>, RpcError> {
        match method {
            "server/discover" => Ok(jsonrpc::success(id, &self.discover())),
            "tools/list" => self.tools_list(id, params, true),
            other => self.feature(id, other, params, client),
        }
    }

    /// `tools/list` in either era: the page the cursor names, of what this caller may see.
    fn tools_list(&self, id: &RawValue, params: Option<&RawValue>, modern: bool) -> Result<Vec<u8>, RpcError> {
        let tools = self.shared.tools();
        let pages = self.shared.list_pages_for(&tools, self.channel.principal(), modern);
        page(&pages, value(params).as_ref()).map(|p| jsonrpc::success(id, &p))
    }

    /// A feature method answered at once (a list), in either era; anything else is not found.
    fn feature(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: &Client,
    ) -> Result<Vec<u8>, RpcError> {
        match router::answer(&self.shared, client, self.channel.principal(), method, value(params).as_ref()) {
            Some(answer) => answer.map(|result| jsonrpc::success(id, &result)),
            None => Err(RpcError::method_not_found(&crate::rpc::envelope::display_name(method))),
        }
    }

    /// `server/discover`: the versions, and the capabilities whose methods work here.
    fn discover(&self) -> Value {
        let shared = &self.shared;
        let mut result = json!({
            "resultType": "complete",
            "supportedVersions": MODERN_VERSIONS,
            "capabilities": self.capabilities(Era::Modern),
            "ttlMs": shared.options.cache_ttl_ms,
            "cacheScope": shared.options.cache_scope,
        });
        if let Some(text) = &shared.instructions {
            result["instructions"] = Value::from(text.as_str());
        }
        result["_meta"] = json!({"io.modelcontextprotocol/serverInfo": &*shared.server_info});
        result
    }

    /// What this server offers: tools and logging, and the features it has, with the change
    /// notifications this client can hear.
    fn capabilities(&self, era: Era) -> Value {
        // Changes reach a modern client on its listen stream, a 2025 session through its
        // forwarding task; a request served alone (stateless HTTP) has no way to hear them.
        let told = era == Era::Modern || !self.state.per_request;
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("tools".into(), json!({"listChanged": told}));
        capabilities.insert("logging".into(), json!({}));
        router::capabilities(&self.shared, told, &mut capabilities);
        if era == Era::Modern && self.shared.has_task_tools() {
            // Tasks are an extension of 2026-07-28 (a 2025 `initialize` never offers them).
            capabilities.insert("extensions".into(), json!({crate::tasks::EXTENSION: {}}));
        }
        Value::Object(capabilities)
    }

    /// Starts the task that sends a 2025 session what it cannot ask for: list changes and
    /// updates of the resources it subscribed to, on stdio's output or an HTTP session's
    /// standalone stream.
    fn start_forwarding(&self) {
        let out = match (&self.state.standalone, self.channel.http()) {
            (Some(standalone), _) => Arc::new(Channel::new(Some(Arc::clone(standalone)), None)),
            (None, None) => Arc::clone(&self.channel),
            // Served per request: no stream outlives the request.
            (None, Some(_)) => return,
        };
        if self.state.per_request || self.state.forwarding.swap(true, Ordering::AcqRel) {
            return;
        }
        let watches = Watches {
            events: self.shared.notices.bus.subscribe(),
            alive: self.state.alive.subscribe(),
            closing: self.closing.clone(),
        };
        tokio::spawn(forward(Arc::downgrade(&self.state), out, watches));
    }

    /// `resources/subscribe` and `resources/unsubscribe` (2025): the URI is remembered for
    /// this session, and the forwarding task sends `notifications/resources/updated` when the
    /// server announces it.
    fn subscribe(&self, on: bool, params: Option<&Value>) -> Result<(), RpcError> {
        let Some(uri) = params.and_then(|p| p.get("uri")).and_then(Value::as_str) else {
            return Err(RpcError::invalid_params("Invalid params: needs params {uri} (a string)"));
        };
        let mut subscribed = self.state.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if on {
            let Some(scopes) = self.shared.resources.scopes_of(uri) else {
                return Err(RpcError {
                    code: -32002,
                    message: format!("Resource not found: {}", crate::rpc::envelope::display_name(uri)),
                    data: Some(json!({"uri": uri})),
                });
            };
            // Watching a resource tells when it changes: the same scopes as reading it.
            let name = crate::rpc::envelope::display_name(uri);
            if let Err(err) = crate::auth::principal::require(self.channel.principal(), scopes, &name) {
                let site = crate::rpc::envelope::Site {
                    family: "resource",
                    tool: &name,
                    contract: &[],
                    structured: true,
                    causes: 0,
                };
                let request_id = crate::rpc::request_id::RequestId::generate();
                return Err(crate::rpc::envelope::fail_rpc(
                    site,
                    err,
                    request_id,
                    crate::rpc::envelope::Origin::Refusal,
                    None,
                ));
            }
            if subscribed.len() >= MAX_SUBSCRIPTIONS && !subscribed.contains(uri) {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: a session subscribes to at most {MAX_SUBSCRIPTIONS} resources; unsubscribe from one first"
                )));
            }
            subscribed.insert(uri.to_owned());
        } else {
            subscribed.remove(uri);
        }
        drop(subscribed);
        Ok(())
    }

    /// The answer carrying a `tools/call` result, in the request's era.
    fn result(&self, id: &RawValue, client: &Client, mut result: mcp_core::CallToolResult) -> Vec<u8> {
        match client {
            Client::Modern(_) => {
                let meta = result.meta.take();
                jsonrpc::success(id, &Complete::new(&result, &self.shared.server_info, meta.as_ref()))
            }
            Client::Legacy(_) => jsonrpc::success(id, &result),
        }
    }

    /// A `tools/call` or `subscriptions/listen`: registered under its id (a second request
    /// with an id in use is refused), then run, parked or refused as `admit` says.
    fn start(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: Client,
        admit: Admit,
        seen: Seen,
    ) -> Next {
        let work = |params| -> Result<Work, RpcError> {
            match method {
                "tools/call" => call_request(params).map(Work::Call),
                "subscriptions/listen" => listen_request(&self.shared, &client, self.channel.principal(), params),
                "tasks/get" | "tasks/update" | "tasks/cancel" => {
                    crate::tasks::request(method, &client, self.shared.has_task_tools(), value(params).as_ref())
                        .map(Work::Task)
                }
                _ => router::request(&self.shared, method, value(params)).map(Work::Feature),
            }
        };
        let cancel = if let Seen::Parked(Parked { registered: true, .. }) = seen {
            let found = self.in_flight_map().get(id.get()).cloned();
            match found {
                Some(cancel) if !cancel.is_cancelled() => cancel,
                _ => {
                    // Cancelled while it waited: it never runs, and nothing is sent.
                    self.in_flight_map().remove(id.get());
                    tracing::debug!(request = id.get(), "call cancelled before it started; not run");
                    return Next::Done;
                }
            }
        } else {
            let Some(cancel) = self.register(id) else {
                let message = format!(
                    "Invalid request: id {} is already in use by a call in progress; send each request with a new id",
                    shown_id(id)
                );
                self.refuse(id, method, params, Some(&client), &RpcError::invalid_request(message));
                return Next::Done;
            };
            if !admit.run {
                if admit.refuse {
                    self.in_flight_map().remove(id.get());
                    match work(params) {
                        Ok(Work::Call(req)) => {
                            let mut watch = self.watch(method, id, params);
                            watch.names(&self.shared.observer, &req.name, req.arguments.as_ref());
                            let result = dispatch::busy(&self.shared, &req.name);
                            self.end(watch, Some(&client), Answer::Tool(&result));
                            self.send(self.result(id, &client, result));
                        }
                        Ok(Work::Listen { .. } | Work::Feature(_) | Work::Task(_)) => {
                            let busy = RpcError {
                                code: -32603,
                                message: format!(
                                    "Server busy: {} requests are already running; retry later",
                                    self.shared.options.max_in_flight
                                ),
                                data: None,
                            };
                            self.refuse(id, method, params, Some(&client), &busy);
                        }
                        Err(e) => self.refuse(id, method, params, Some(&client), &e),
                    }
                    return Next::Done;
                }
                return Next::Park(Parked { call: true, registered: true });
            }
            cancel
        };
        match work(params) {
            Ok(work) => {
                let mut watch = self.watch(method, id, params);
                match &work {
                    Work::Call(req) => watch.names(&self.shared.observer, &req.name, req.arguments.as_ref()),
                    Work::Feature(Feature::GetPrompt(Some(params))) => {
                        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
                        watch.names(&self.shared.observer, name, params.get("arguments"));
                    }
                    Work::Feature(Feature::Read(uri, _)) => watch.reads(uri),
                    _ => {}
                }
                Next::Call { id: id.to_owned(), job: Job { client, work, watch }, cancel }
            }
            Err(e) => {
                self.in_flight_map().remove(id.get());
                self.refuse(id, method, params, Some(&client), &e);
                Next::Done
            }
        }
    }

    /// Begins watching a request.
    fn watch(&self, method: &str, id: &RawValue, params: Option<&RawValue>) -> Watch {
        self.shared.observer.begin(method, Some(id), params, &self.channel)
    }

    /// Ends the watch of a request with its answer, before the answer is sent.
    fn end(&self, watch: Watch, client: Option<&Client>, answer: Answer<'_>) {
        watch.end(&self.shared.observer, &self.channel, client, answer, &|method, name| {
            self.shared.serves(method, name)
        });
    }

    /// Answers a request with a protocol error, watched like any answer.
    fn refuse(&self, id: &RawValue, method: &str, params: Option<&RawValue>, client: Option<&Client>, e: &RpcError) {
        let watch = self.watch(method, id, params);
        self.end(watch, client, Answer::Error(e));
        self.send(jsonrpc::error(Some(id), e));
    }

    fn in_flight_map(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, Arc<CancelState>>> {
        self.state.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a call's cancellation handle under its id; `None` when the id is in use.
    fn register(&self, id: &RawValue) -> Option<Arc<CancelState>> {
        let mut map = self.in_flight_map();
        if map.contains_key(id.get()) {
            return None;
        }
        let cancel = Arc::new(CancelState::default());
        map.insert(id.get().into(), Arc::clone(&cancel));
        Some(cancel)
    }

    fn notification(&self, method: &str, params: Option<&RawValue>) {
        #[derive(serde::Deserialize)]
        struct Cancelled<'a> {
            #[serde(borrow, rename = "requestId")]
            request_id: &'a RawValue,
        }
        match method {
            "notifications/cancelled" => {
                let Some(Cancelled { request_id }) = params.and_then(|p| serde_json::from_str(p.get()).ok()) else {
                    tracing::debug!("notifications/cancelled without a requestId");
                    return;
                };
                let found = self.in_flight_map().get(request_id.get()).cloned();
                if let Some(cancel) = found {
                    cancel.cancel();
                } else {
                    tracing::debug!(request = request_id.get(), "cancel for an unknown or finished request; ignored");
                }
            }
            "notifications/progress" => {
                // Progress on a request of the legacy shim: its leg's time limit starts over.
                #[derive(serde::Deserialize)]
                struct Progress<'a> {
                    #[serde(borrow, rename = "progressToken")]
                    token: &'a RawValue,
                }
                if let Some(Progress { token }) = params.and_then(|p| serde_json::from_str(p.get()).ok()) {
                    self.state.legacy.pending.progress(token);
                }
            }
            "notifications/initialized" => tracing::debug!("client initialized"),
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    fn initialize(&self, params: Option<Value>) -> Result<Value, RpcError> {
        let params = params.unwrap_or(Value::Null);
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err(RpcError::invalid_params("Invalid params: initialize needs `protocolVersion` (a string)"));
        };
        if self.state.initialized.swap(true, Ordering::AcqRel) {
            return Err(RpcError::invalid_request(
                "Invalid request: the session is already initialized; initialize is sent once",
            ));
        }
        let version = LEGACY_VERSIONS.iter().find(|v| **v == requested).copied().unwrap_or(LEGACY_VERSIONS[0]);
        self.state.legacy.declare(version, params.get("clientInfo").cloned(), params.get("capabilities").cloned());
        self.start_forwarding();
        let shared = &self.shared;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": self.capabilities(Era::Legacy),
            "serverInfo": {"name": shared.name, "version": shared.version},
        });
        if let Some(text) = &shared.instructions {
            result["instructions"] = Value::from(text.as_str());
        }
        Ok(result)
    }

    fn set_level(params: Option<&Value>, client: &Client) -> Result<(), RpcError> {
        let level = params
            .and_then(|p| p.get("level"))
            .and_then(|l| serde_json::from_value::<LogLevel>(l.clone()).ok())
            .ok_or_else(|| {
                RpcError::invalid_params(
                    "Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency",
                )
            })?;
        if let Client::Legacy(legacy) = client {
            legacy.set_level(level);
        }
        Ok(())
    }

    /// Runs a `tools/call`, a feature request or a listen stream to its end (in its own task),
    /// unless the client cancels it. Not an `async fn`: a listen stream's or a feature's future
    /// is far larger than a call's, and is boxed rather than carried by every call's task.
    pub(crate) fn run_call(
        self: Arc<Self>,
        id: Box<RawValue>,
        job: Job,
        cancel: Arc<CancelState>,
    ) -> futures_util::future::Either<impl Future<Output = ()> + Send, BoxFuture<'static, ()>> {
        use futures_util::future::Either;
        let Job { client, work, watch } = job;
        match work {
            Work::Call(req) => Either::Left(self.run_tool(id, client, req, cancel, watch)),
            Work::Listen { tools, more, task_ids } => {
                Either::Right(Box::pin(self.listen(id, tools, more, task_ids, cancel, watch)))
            }
            Work::Feature(feature) => Either::Right(Box::pin(self.run_feature(id, client, feature, cancel, watch))),
            Work::Task(request) => Either::Right(Box::pin(self.run_task(id, request, cancel, watch))),
        }
    }

    /// A `tools/call` run to its end unless the client cancels it (then nothing is sent).
    async fn run_tool(
        self: Arc<Self>,
        id: Box<RawValue>,
        client: Client,
        req: CallRequest,
        cancel: Arc<CancelState>,
        watch: Watch,
    ) {
        let call = dispatch::call(&self.shared, &self.channel, &client, req, Arc::clone(&cancel));
        let call = std::pin::pin!(call.instrument(watch.span().clone()));
        let outcome = unless_cancelled(call, &cancel, self.shared.options.cancel_grace).await;
        self.in_flight_map().remove(id.get());
        // A cancel that arrived while the result was being built still wins: once the client
        // cancelled, nothing more is sent for this id.
        match outcome.filter(|_| !cancel.is_cancelled()) {
            Some(Ok(Reply::Complete(result))) => {
                self.end(watch, Some(&client), Answer::Tool(&result));
                self.send(self.result(&id, &client, result));
            }
            Some(Ok(Reply::InputRequired(asked))) => {
                self.end(watch, Some(&client), Answer::InputRequired);
                self.send(jsonrpc::success(&id, &crate::context::ask::render(&asked, &self.shared.server_info)));
            }
            Some(Ok(Reply::Task(task))) => {
                self.end(watch, Some(&client), Answer::Result);
                self.send(jsonrpc::success(&id, &Complete::task(&task, &self.shared.server_info)));
            }
            Some(Err(e)) => {
                self.end(watch, Some(&client), Answer::Error(&e));
                self.send(jsonrpc::error(Some(&id), &e));
            }
            None => {
                self.end(watch, Some(&client), Answer::Cancelled);
                tracing::debug!(request = id.get(), "call cancelled by the client; no response sent");
                self.channel.unanswered();
            }
        }
    }

    /// `notifications/tasks` on a listen stream: the followed task's `DetailedTask`, when it
    /// changed since the last one sent (`followed`: the task and that revision).
    async fn task_notification(&self, followed: &mut (String, Option<u64>), tag: &Value) {
        let Some(record) = self.shared.tasks.detailed(&followed.0, self.channel.principal()).await else { return };
        if followed.1 == Some(record.rev) {
            return;
        }
        followed.1 = Some(record.rev);
        let mut params = record.detailed();
        params.insert("_meta".into(), tag.clone());
        self.channel.notify(jsonrpc::notification("notifications/tasks", &params));
    }

    /// `tasks/get`, `tasks/update` or `tasks/cancel`, answered from the state store (the
    /// task may run on another replica), unless the client cancels it.
    async fn run_task(
        self: Arc<Self>,
        id: Box<RawValue>,
        request: crate::tasks::TaskRequest,
        cancel: Arc<CancelState>,
        watch: Watch,
    ) {
        let answer = self.shared.tasks.answer(request, self.channel.principal()).instrument(watch.span().clone());
        let outcome = unless_cancelled(std::pin::pin!(answer), &cancel, self.shared.options.cancel_grace).await;
        self.in_flight_map().remove(id.get());
        match outcome.filter(|_| !cancel.is_cancelled()) {
            Some(Ok(body)) => {
                self.end(watch, None, Answer::Result);
                self.send(jsonrpc::success(&id, &Complete::new(&body, &self.shared.server_info, None)));
            }
            Some(Err(e)) => {
                self.end(watch, None, Answer::Error(&e));
                self.send(jsonrpc::error(Some(&id), &e));
            }
            None => {
                self.end(watch, None, Answer::Cancelled);
                tracing::debug!(request = id.get(), "request cancelled by the client; no response sent");
                self.channel.unanswered();
            }
        }
    }

    /// A resource read, a prompt or a completion, run to its end unless the client cancels
    /// it (then nothing is sent).
    async fn run_feature(
        self: Arc<Self>,
        id: Box<RawValue>,
        client: Client,
        feature: Feature,
        cancel: Arc<CancelState>,
        watch: Watch,
    ) {
        let caller = crate::context::ctx::Caller {
            channel: &self.channel,
            hooks: &self.shared.observer.hooks,
            client: &client,
            cancel: &cancel,
            stores: &self.shared.stores,
            notices: &self.shared.notices,
            causes: self.shared.options.error_causes,
            ask_timeout: self.shared.options.ask_timeout,
        };
        let fut = router::run(&self.shared, &caller, feature).instrument(watch.span().clone());
        let outcome = unless_cancelled(std::pin::pin!(fut), &cancel, self.shared.options.cancel_grace).await;
        self.in_flight_map().remove(id.get());
        match outcome.filter(|_| !cancel.is_cancelled()) {
            Some(Ok(result)) => {
                self.end(watch, Some(&client), Answer::Result);
                self.send(jsonrpc::success(&id, &result));
            }
            Some(Err(e)) => {
                self.end(watch, Some(&client), Answer::Error(&e));
                self.send(jsonrpc::error(Some(&id), &e));
            }
            None => {
                self.end(watch, Some(&client), Answer::Cancelled);
                tracing::debug!(request = id.get(), "request cancelled by the client; no response sent");
                self.channel.unanswered();
            }
        }
    }

    /// A listen stream: the acknowledgement, then the list changes and resource updates it
    /// asked for (raised on this replica or, through the bus, on another), tagged with the
    /// stream's id, until the client cancels it (no answer) or the transport ends (the
    /// graceful listen result).
    async fn listen(
        self: Arc<Self>,
        id: Box<RawValue>,
        tools: bool,
        more: Listening,
        task_ids: Vec<String>,
        cancel: Arc<CancelState>,
        watch: Watch,
    ) {
        use tokio::sync::broadcast::error::RecvError;
        let tag = json!({era::SUBSCRIPTION_KEY: &*id});
        let bus = &self.shared.notices.bus;
        let mut events = bus.subscribe();
        // What another replica does after the acknowledgement must reach this stream.
        bus.ready().await;
        // The tasks followed: those of this caller that exist, each with the revision last sent.
        let mut followed: Vec<(String, Option<u64>)> = Vec::with_capacity(task_ids.len());
        for task in &task_ids {
            if self.shared.tasks.detailed(task, self.channel.principal()).await.is_some() {
                followed.push((task.clone(), None));
            }
        }
        let mut honoured = serde_json::Map::new();
        if tools {
            honoured.insert("toolsListChanged".into(), Value::Bool(true));
        }
        more.honoured(&mut honoured);
        if !task_ids.is_empty() {
            honoured.insert("taskIds".into(), json!(followed.iter().map(|(t, _)| t).collect::<Vec<_>>()));
        }
        self.channel.notify(jsonrpc::notification(
            "notifications/subscriptions/acknowledged",
            &json!({"_meta": tag, "notifications": honoured}),
        ));
        // Each followed task's state now, then every change.
        for task in &mut followed {
            self.task_notification(task, &tag).await;
        }
        let notify = |method: &str| self.channel.notify(jsonrpc::notification(method, &json!({"_meta": tag})));
        let updated = |uri: &str| {
            self.channel
                .notify(jsonrpc::notification("notifications/resources/updated", &json!({"uri": uri, "_meta": tag})));
        };
        let mut closing = self.closing.clone();
        let graceful = loop {
            tokio::select! {
                biased;
                () = cancel.cancelled() => break false,
                () = closed(closing.as_mut()) => break true,
                event = events.recv() => match event {
                    Ok(Event::ToolsChanged) if tools => notify("notifications/tools/list_changed"),
                    Ok(Event::PromptsChanged) if more.prompts => notify("notifications/prompts/list_changed"),
                    Ok(Event::ResourcesChanged) if more.resources => notify("notifications/resources/list_changed"),
                    Ok(Event::ResourceUpdated(uri)) if more.subscriptions.contains(&uri) => updated(&uri),
                    Ok(Event::Task(task)) => {
                        if let Some(at) = followed.iter().position(|(t, _)| **t == *task) {
                            self.task_notification(&mut followed[at], &tag).await;
                        }
                    }
                    Ok(Event::Missed) | Err(RecvError::Lagged(_)) => {
                        // Events were missed: everything this stream asked for may have changed.
                        tracing::debug!(request = id.get(), "a listen stream missed events; telling it of everything it asked for");
                        if tools {
                            notify("notifications/tools/list_changed");
                        }
                        if more.prompts {
                            notify("notifications/prompts/list_changed");
                        }
                        if more.resources {
                            notify("notifications/resources/list_changed");
                        }
                        for uri in &more.subscriptions {
                            updated(uri);
                        }
                        for task in &mut followed {
                            self.task_notification(task, &tag).await;
                        }
                    }
                    Ok(_) => {}
                    Err(RecvError::Closed) => break true,
                },
            }
        };
        self.in_flight_map().remove(id.get());
        if graceful {
            self.end(watch, None, Answer::Result);
            let empty = serde_json::Map::new();
            self.send(jsonrpc::success(&id, &Complete::listen_end(&empty, &self.shared.server_info, &id)));
        } else {
            self.end(watch, None, Answer::Cancelled);
            tracing::debug!(request = id.get(), "listen stream cancelled by the client");
            self.channel.unanswered();
        }
    }
}

/// Runs a request's work to its end, or `None` when the client cancels it first. Then the
/// handler sees `ctx.cancelled()` (and the shim cancels what it asked the client) and gets
/// `grace` to end; whatever it returns is dropped. The work is pinned by the caller, so that
/// its (large) future is held once, not copied into this one's.
async fn unless_cancelled<F: std::future::Future>(
    mut fut: std::pin::Pin<&mut F>,
    cancel: &CancelState,
    grace: std::time::Duration,
) -> Option<F::Output> {
    let outcome = tokio::select! {
        biased;
        () = cancel.cancelled() => None,
        outcome = &mut fut => Some(outcome),
    };
    if outcome.is_none() {
        let _ = tokio::time::timeout(grace, &mut fut).await;
    }
    outcome
}

/// Resolves when the transport ends (never without a signal).
async fn closed(closing: Option<&mut tokio::sync::watch::Receiver<bool>>) {
    match closing {
        Some(closing) => {
            let _ = closing.wait_for(|c| *c).await;
        }
        None => std::future::pending().await,
    }
}

/// The most resources one 2025 session may subscribe to at once.
const MAX_SUBSCRIPTIONS: usize = 1024;
/// The most tasks one listen stream follows.
const MAX_TASK_IDS: usize = 256;

/// Methods that run in a task of their own.
fn runs_alone(method: &str) -> bool {
    method == "tools/call" || modern_only(method) || router::runs_alone(method)
}

/// Methods served to 2026-07-28 requests only (a 2025 session gets `-32601` for the tasks
/// methods and its own listen answer); they run in a task of their own.
fn modern_only(method: &str) -> bool {
    matches!(method, "subscriptions/listen" | "tasks/get" | "tasks/update" | "tasks/cancel")
}

/// What a 2025 session's forwarding task waits on.
struct Watches {
    /// The server's bus: changes raised here or on another replica.
    events: tokio::sync::broadcast::Receiver<Event>,
    /// Fails when the session's state is dropped.
    alive: tokio::sync::watch::Receiver<()>,
    closing: Option<tokio::sync::watch::Receiver<bool>>,
}

/// Sends a 2025 session `notifications/{tools,prompts,resources}/list_changed` and
/// `notifications/resources/updated` for the URIs it subscribed to, until its transport ends
/// or the session is gone.
async fn forward(state: std::sync::Weak<State>, channel: Arc<Channel>, mut w: Watches) {
    use tokio::sync::broadcast::error::RecvError;
    let list_changed = |method: &str| channel.notify(jsonrpc::notification(method, &json!({})));
    loop {
        let event = tokio::select! {
            () = closed(w.closing.as_mut()) => return,
            _ = w.alive.changed() => return,
            event = w.events.recv() => event,
        };
        match event {
            Ok(Event::ToolsChanged) => list_changed("notifications/tools/list_changed"),
            Ok(Event::PromptsChanged) => list_changed("notifications/prompts/list_changed"),
            Ok(Event::ResourcesChanged) => list_changed("notifications/resources/list_changed"),
            Ok(Event::ResourceUpdated(uri)) => {
                let Some(state) = state.upgrade() else { return };
                let subscribed =
                    state.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).contains(&*uri);
                if subscribed {
                    channel.notify(jsonrpc::notification("notifications/resources/updated", &json!({"uri": &*uri})));
                }
            }
            Ok(Event::Missed) | Err(RecvError::Lagged(_)) => {
                // Events were missed: every list and every subscribed resource may have changed.
                let Some(state) = state.upgrade() else { return };
                tracing::warn!(
                    "changes came faster than this session took them, or from a replica that was out of reach; telling it of everything"
                );
                for method in [
                    "notifications/tools/list_changed",
                    "notifications/prompts/list_changed",
                    "notifications/resources/list_changed",
                ] {
                    list_changed(method);
                }
                let subscriptions = state.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                for uri in subscriptions.iter() {
                    channel.notify(jsonrpc::notification("notifications/resources/updated", &json!({"uri": uri})));
                }
            }
            // Tasks are 2026-07-28 only: a 2025 session hears nothing of them.
            Ok(Event::Task(_)) => {}
            Err(RecvError::Closed) => return,
        }
    }
}

/// Why a method removed in 2026-07-28 is not served under a modern claim, and what to do.
fn removed_in_modern(method: &str) -> Option<&'static str> {
    Some(match method {
        "initialize" => "there is no handshake: call server/discover to learn what the server offers",
        "ping" => "any request shows that the server is up",
        "logging/setLevel" => "put \"io.modelcontextprotocol/logLevel\" in each request's `_meta` instead",
        "resources/subscribe" | "resources/unsubscribe" => {
            "use subscriptions/listen with `resourceSubscriptions` instead"
        }
        _ => return None,
    })
}

/// A `tools/list` page by its cursor.
fn page<'p>(pages: &'p [Box<RawValue>], params: Option<&Value>) -> Result<&'p RawValue, RpcError> {
    Ok(&pages[page_index(params, pages.len(), "call tools/list")?])
}

/// The `subscriptions/listen` params: `{notifications: {toolsListChanged?, …}}`. Types this
/// server does not send are left out of the acknowledgement.
fn listen_request(
    shared: &crate::server::Shared,
    client: &Client,
    principal: Option<&crate::auth::principal::Principal>,
    params: Option<&RawValue>,
) -> Result<Work, RpcError> {
    let shape = || {
        RpcError::invalid_params(
            "Invalid params: subscriptions/listen needs params {notifications: {toolsListChanged?: boolean, …}}",
        )
    };
    let params = value(params).ok_or_else(shape)?;
    let filter = params.get("notifications").filter(|f| f.is_object()).ok_or_else(shape)?;
    let tools = match filter.get("toolsListChanged") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(RpcError::invalid_params("Invalid params: `notifications.toolsListChanged` must be a boolean"));
        }
    };
    let task_ids = match filter.get("taskIds") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => {
            if !ids.is_empty() && !crate::tasks::declared(client) {
                return Err(crate::tasks::missing_capability("`notifications.taskIds` of subscriptions/listen"));
            }
            let mut seen = Vec::with_capacity(ids.len().min(MAX_TASK_IDS));
            for id in ids.iter().filter_map(Value::as_str) {
                if !seen.iter().any(|s: &String| s == id) {
                    seen.push(id.to_owned());
                }
            }
            if seen.len() > MAX_TASK_IDS {
                return Err(RpcError::invalid_params(format!(
                    "Invalid params: a listen stream follows at most {MAX_TASK_IDS} tasks; open another for the rest"
                )));
            }
            seen
        }
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: `notifications.taskIds` must be an array of task ids",
            ));
        }
    };
    Ok(Work::Listen { tools, more: Listening::read(shared, principal, filter)?, task_ids })
}

/// An id as a message shows it: cut at 64 characters.
fn shown_id(id: &RawValue) -> String {
    let text = id.get();
    match text.char_indices().nth(64) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// Params that a method reads as a tree (the rare ones: `initialize`, `tools/list`, …).
fn value(params: Option<&RawValue>) -> Option<Value> {
    params.and_then(|p| serde_json::from_str(p.get()).ok())
}

/// The members of `tools/call` params, unparsed but for `arguments`, which validation reads.
#[derive(serde::Deserialize)]
struct RawCall<'a> {
    #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
    name: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
    arguments: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "_meta", deserialize_with = "jsonrpc::present")]
    meta: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "inputResponses", deserialize_with = "jsonrpc::present")]
    input_responses: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "requestState", deserialize_with = "jsonrpc::present")]
    request_state: Option<&'a RawValue>,
}

/// The `CallToolRequest` shape: `{name: string, arguments?: object, _meta?: {progressToken?}}`.
fn call_request(params: Option<&RawValue>) -> Result<CallRequest, RpcError> {
    let shape = || RpcError::invalid_params("Invalid params: tools/call needs params {name, arguments?}");
    let params = params.filter(|p| jsonrpc::is_object(p)).ok_or_else(shape)?;
    let raw: RawCall<'_> = serde_json::from_str(params.get()).map_err(|_| shape())?;
    let name = match raw.name {
        None => return Err(RpcError::invalid_params("Invalid params: `name` is required")),
        Some(name) => serde_json::from_str::<String>(name.get())
            .map_err(|_| RpcError::invalid_params("Invalid params: `name` must be a string"))?,
    };
    let arguments = match raw.arguments {
        None => None,
        Some(args) if jsonrpc::is_object(args) => Some(serde_json::from_str::<Value>(args.get()).map_err(|_| shape())?),
        Some(_) => return Err(RpcError::invalid_params("Invalid params: `arguments` must be an object")),
    };
    let progress_token = match raw.meta {
        None => None,
        Some(meta) if jsonrpc::is_object(meta) => {
            #[derive(serde::Deserialize)]
            struct Meta<'a> {
                #[serde(default, borrow, rename = "progressToken", deserialize_with = "jsonrpc::present")]
                token: Option<&'a RawValue>,
            }
            let meta: Meta<'_> = serde_json::from_str(meta.get()).map_err(|_| shape())?;
            match meta.token {
                None => None,
                Some(token) => match jsonrpc::valid_id(token) {
                    Ok(token) => Some(token.to_owned()),
                    Err(_) if token.get().len() > jsonrpc::MAX_ID_BYTES => {
                        return Err(RpcError::invalid_params(format!(
                            "Invalid params: `_meta.progressToken` is longer than {} bytes",
                            jsonrpc::MAX_ID_BYTES
                        )));
                    }
                    Err(_) => {
                        return Err(RpcError::invalid_params(
                            "Invalid params: `_meta.progressToken` must be a string or a number",
                        ));
                    }
                },
            }
        }
        Some(_) => return Err(RpcError::invalid_params("Invalid params: `_meta` must be an object")),
    };
    Ok(CallRequest {
        name,
        arguments,
        progress_token,
        input_responses: raw.input_responses.map(ToOwned::to_owned),
        request_state: raw.request_state.map(ToOwned::to_owned),
    })
}
