//! One client connection as its requests see it: the era of each request, the lifecycle
//! methods of both eras (`initialize`, `ping`, `logging/setLevel`; `server/discover`),
//! `tools/list`, `subscriptions/listen`, notifications (`notifications/cancelled`), and the
//! routing of `tools/call` to its own task. Each request is classified here, once: a
//! modern `_meta` claim makes it a 2026-07-28 request served with its own envelope; any
//! other request belongs to the `initialize` session (2025).
//!
//! This file holds the session ([`Session`], and the [`State`] it keeps between requests),
//! the classification of each request, and `handle`, which routes each line the transport
//! reads. From there a request goes to `lifecycle` (what is answered at once: `initialize`,
//! `ping`, `logging/setLevel`, `server/discover`, `tools/list`, a feature's list), or to
//! `start` (a request that runs in a task of its own, parsed and admitted), which hands the
//! transport a [`Job`] that `run` runs to its end (`listen`: a listen stream). `forward`
//! sends a 2025 session what it cannot ask for: list changes and resource updates.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::ctx::CancelState;
use crate::features::Shared;
use crate::features::tools::call::CallRequest;
use crate::hooks::Answer;
use crate::observe::Watch;
use crate::protocol::router::{self, Feature, Listening};
use crate::rpc::channel::Channel;
use crate::rpc::era::{self, Claim, Client, Era, LEGACY_VERSIONS, Legacy, MODERN_VERSIONS};
use crate::rpc::jsonrpc::{self, Incoming, RpcError};

mod forward;
mod lifecycle;
mod listen;
mod run;
mod start;

#[cfg(feature = "http")]
pub(crate) use lifecycle::admit_opening;

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
    #[cfg(feature = "http")]
    pub(crate) fn with_standalone(standalone: Arc<crate::rpc::outbox::Outbox>) -> Self {
        State { standalone: Some(standalone), ..State::new() }
    }

    /// The state of one request served without a session (stateless HTTP).
    #[cfg(feature = "http")]
    pub(crate) fn per_request() -> Self {
        State { per_request: true, legacy: Arc::new(Legacy::per_request()), ..State::new() }
    }

    /// The session of one in-process request (`Server::call`, `read_resource`,
    /// `get_prompt`): served without `initialize`, its client a 2025 one that declared
    /// nothing.
    pub(crate) fn in_process() -> Self {
        State { per_request: true, ..State::new() }
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
    #[cfg(feature = "http")]
    pub(crate) fn running(&self) -> bool {
        !self.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_empty()
    }

    /// Cancels every request of the session that runs or waits (the session ended).
    #[cfg(feature = "http")]
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

    /// Whether this is a `tools/call` that may run where the transport read it, in one poll:
    /// on the stdio reader itself, in the HTTP request's own task (see
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
        let local = shared.options.local_principal(channel.http().is_some());
        Session { shared, state, channel: Arc::new(channel.with_local(local)), closing }
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

/// Methods that run in a task of their own.
fn runs_alone(method: &str) -> bool {
    method == "tools/call" || modern_only(method) || router::runs_alone(method)
}

/// Methods served to 2026-07-28 requests only (a 2025 session gets `-32601` for the tasks
/// methods and its own listen answer); they run in a task of their own.
fn modern_only(method: &str) -> bool {
    matches!(method, "subscriptions/listen" | "tasks/get" | "tasks/update" | "tasks/cancel")
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
