//! One client connection: the lifecycle methods (`initialize`, `ping`, `tools/list`,
//! `logging/setLevel`), notifications (`notifications/cancelled`), and the routing of
//! `tools/call` to its own task.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::context::{CancelState, LogLevel};
use crate::dispatch::{self, CallRequest};
use crate::jsonrpc::{self, Incoming, RpcError};
use crate::outbox::Outbox;
use crate::server::Shared;
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// Protocol revisions served, newest first.
pub(crate) const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// One client's session, as the requests of one channel see it: the session's state, and
/// where answers and notifications go. On stdio that is the connection's one outbox; over
/// HTTP each POST has its own (its response), and shares the session's state with the
/// others.
pub(crate) struct Session {
    pub(crate) shared: Arc<Shared>,
    pub(crate) state: Arc<State>,
    /// Outgoing lines; `None` for in-process calls.
    out: Option<Arc<Outbox>>,
    /// The HTTP request this view answers (its headers and extensions), over HTTP.
    pub(crate) http: Option<Arc<http::request::Parts>>,
}

/// What a session remembers between requests.
#[derive(Default)]
pub(crate) struct State {
    /// Set by the first `initialize`; a second one is refused.
    initialized: std::sync::atomic::AtomicBool,
    client_info: OnceLock<Value>,
    client_capabilities: OnceLock<Value>,
    /// The client's `logging/setLevel`, as a `LogLevel`; `info` until it sets one.
    log_level: AtomicU8,
    /// Calls queued or running, by their id as sent: how a cancellation finds them, and how
    /// a second call with the same id is refused.
    in_flight: Mutex<HashMap<Box<str>, Arc<CancelState>>>,
}

impl State {
    pub(crate) fn new() -> Self {
        State { log_level: AtomicU8::new(LogLevel::Info as u8), ..State::default() }
    }

    /// Whether an `initialize` succeeded.
    pub(crate) fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }
}

/// What the reader should do with a line after the session looked at it.
// `Next` only lives between reading a line and spawning its call; boxing the request would
// cost an allocation per call for nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Next {
    Done,
    /// A `tools/call` to run in its own task. Its cancellation handle is registered
    /// already, so a `notifications/cancelled` on the next line finds it.
    Call {
        id: Box<RawValue>,
        req: CallRequest,
        cancel: Arc<CancelState>,
    },
    /// A request that cannot be served now: the transport keeps its line and hands it back
    /// with [`Seen::Parked`] when it can.
    Park(Parked),
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
    pub(crate) fn new(shared: Arc<Shared>, out: Option<Arc<Outbox>>) -> Self {
        Session { shared, state: Arc::new(State::new()), out, http: None }
    }

    /// A view of an existing session whose answers go to `out`.
    pub(crate) fn view(
        shared: Arc<Shared>,
        state: Arc<State>,
        out: Arc<Outbox>,
        http: Option<Arc<http::request::Parts>>,
    ) -> Self {
        Session { shared, state, out: Some(out), http }
    }

    /// `true` when the session speaks JSON-RPC (not an in-process call).
    pub(crate) fn is_wire(&self) -> bool {
        self.out.is_some()
    }

    pub(crate) fn client_info(&self) -> Option<&Value> {
        self.state.client_info.get()
    }

    pub(crate) fn client_capabilities(&self) -> Option<&Value> {
        self.state.client_capabilities.get()
    }

    pub(crate) fn state<T: 'static>(&self) -> Option<&T> {
        self.shared.state.get(&TypeId::of::<T>()).and_then(|b| b.downcast_ref::<T>())
    }

    /// Queues an answer.
    pub(crate) fn send(&self, line: Vec<u8>) {
        if let Some(out) = &self.out {
            out.response(line);
        }
    }

    /// Ends the HTTP response this call's messages ride on, if any; the client resumes the
    /// stream with `Last-Event-ID` and gets what was sent meanwhile.
    pub(crate) fn pause_stream(&self) {
        if let Some(out) = &self.out {
            out.mark(crate::outbox::Kind::Pause);
        }
    }

    /// Queues a notification; it is dropped while the client does not read its output.
    fn notify(&self, line: Vec<u8>) {
        if let Some(out) = &self.out {
            out.notification(line);
        }
    }

    /// `true` when a record at `level` would reach the client.
    pub(crate) fn wants(&self, level: LogLevel) -> bool {
        self.out.is_some() && (level as u8) >= self.state.log_level.load(Ordering::Relaxed)
    }

    pub(crate) fn log_to_client(&self, level: LogLevel, logger: &str, data: Value) {
        #[derive(Serialize)]
        struct Message<'a> {
            level: LogLevel,
            logger: &'a str,
            data: Value,
        }
        if !self.wants(level) {
            return;
        }
        self.notify(jsonrpc::notification("notifications/message", &Message { level, logger, data }));
    }

    pub(crate) fn progress(&self, token: &RawValue, progress: f64, total: Option<f64>, message: Option<&str>) {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params<'a> {
            progress_token: &'a RawValue,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
        }
        self.notify(jsonrpc::notification(
            "notifications/progress",
            &Params { progress_token: token, progress, total, message },
        ));
    }

    /// Handles one line. Notifications take effect at once; requests are answered here when
    /// `admit` allows, except `tools/call`, which is parsed here and handed back to run in its
    /// own task; what cannot be served now is handed back to be parked.
    pub(crate) fn handle(&self, line: &[u8], admit: Admit, seen: Seen) -> Next {
        let incoming = jsonrpc::parse(line);
        let is_request = !matches!(incoming, Incoming::Notification { .. } | Incoming::Response);
        if is_request && !admit.answer {
            // Parked as it is; a call's id is registered so that a cancellation finds it.
            let registered = match (&incoming, seen) {
                (_, Seen::Parked(p)) => p.registered,
                (Incoming::Request { id, method, .. }, Seen::Fresh) if method == "tools/call" => {
                    self.register(id).is_some()
                }
                _ => false,
            };
            let call = matches!(&incoming, Incoming::Request { method, .. } if method == "tools/call");
            return Next::Park(Parked { call, registered });
        }
        match incoming {
            Incoming::ParseError => self.send(jsonrpc::failure(None, -32700, "Parse error")),
            Incoming::Invalid { id, message } => self.send(jsonrpc::failure(id.as_deref(), -32600, &message)),
            Incoming::Response => tracing::debug!("ignoring a response that matches no request of this server"),
            Incoming::Notification { method, params } => self.notification(&method, params),
            Incoming::Request { id, method, params } if method == "tools/call" => {
                return self.call(id, params, admit, seen);
            }
            Incoming::Request { id, method, params } => {
                let answer = match &*method {
                    "initialize" => self.initialize(value(params)).map(|r| jsonrpc::success(id, &r)),
                    "ping" => Ok(jsonrpc::success(id, &json!({}))),
                    "tools/list" => self.list(value(params).as_ref()).map(|page| jsonrpc::success(id, &page)),
                    "logging/setLevel" => {
                        self.set_level(value(params).as_ref()).map(|()| jsonrpc::success(id, &json!({})))
                    }
                    other => Err(RpcError {
                        code: -32601,
                        message: format!("Method not found: {}", dispatch::display_name(other)),
                    }),
                };
                self.send(answer.unwrap_or_else(|e| jsonrpc::failure(Some(id), e.code, &e.message)));
            }
        }
        Next::Done
    }

    /// A `tools/call`: registered under its id (a second call with an id in use is refused),
    /// then run, parked or refused as `admit` says.
    fn call(&self, id: &RawValue, params: Option<&RawValue>, admit: Admit, seen: Seen) -> Next {
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
                self.send(jsonrpc::failure(Some(id), -32600, &message));
                return Next::Done;
            };
            if !admit.run {
                if admit.refuse {
                    self.in_flight_map().remove(id.get());
                    let answer = match call_request(params) {
                        Ok(req) => jsonrpc::success(id, &dispatch::busy(self, &req.name)),
                        Err(e) => jsonrpc::failure(Some(id), e.code, &e.message),
                    };
                    self.send(answer);
                    return Next::Done;
                }
                return Next::Park(Parked { call: true, registered: true });
            }
            cancel
        };
        match call_request(params) {
            Ok(req) => Next::Call { id: id.to_owned(), req, cancel },
            Err(e) => {
                self.in_flight_map().remove(id.get());
                self.send(jsonrpc::failure(Some(id), e.code, &e.message));
                Next::Done
            }
        }
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
            return Err(RpcError {
                code: -32600,
                message: "Invalid request: the session is already initialized; initialize is sent once".into(),
            });
        }
        let version = SUPPORTED_VERSIONS.iter().find(|v| **v == requested).copied().unwrap_or(SUPPORTED_VERSIONS[0]);
        if let Some(info) = params.get("clientInfo") {
            let _ = self.state.client_info.set(info.clone());
        }
        if let Some(caps) = params.get("capabilities") {
            let _ = self.state.client_capabilities.set(caps.clone());
        }
        let shared = &self.shared;
        let mut result = json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}, "logging": {}},
            "serverInfo": {"name": shared.name, "version": shared.version},
        });
        if let Some(text) = &shared.instructions {
            result["instructions"] = Value::from(text.as_str());
        }
        Ok(result)
    }

    fn list(&self, params: Option<&Value>) -> Result<&serde_json::value::RawValue, RpcError> {
        let page = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(cursor)) => {
                page_of(cursor).filter(|&p| p > 0 && p < self.shared.list_pages.len()).ok_or_else(|| {
                    RpcError::invalid_params(
                        "Invalid params: unknown cursor; call tools/list without a cursor to start over",
                    )
                })?
            }
            Some(_) => return Err(RpcError::invalid_params("Invalid params: `cursor` must be a string")),
        };
        Ok(&self.shared.list_pages[page])
    }

    fn set_level(&self, params: Option<&Value>) -> Result<(), RpcError> {
        let level = params
            .and_then(|p| p.get("level"))
            .and_then(|l| serde_json::from_value::<LogLevel>(l.clone()).ok())
            .ok_or_else(|| {
                RpcError::invalid_params(
                    "Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency",
                )
            })?;
        self.state.log_level.store(level as u8, Ordering::Relaxed);
        Ok(())
    }

    /// Runs one `tools/call` to its answer (in its own task), unless the client cancels it.
    pub(crate) async fn run_call(self: Arc<Self>, id: Box<RawValue>, req: CallRequest, cancel: Arc<CancelState>) {
        let fut = dispatch::call(&self, req, Arc::clone(&cancel));
        tokio::pin!(fut);
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            outcome = &mut fut => Some(outcome),
        };
        if outcome.is_none() {
            // The handler sees `ctx.cancelled()` and gets the grace to clean up; whatever it
            // returns is dropped.
            let _ = tokio::time::timeout(self.shared.options.cancel_grace, &mut fut).await;
        }
        self.in_flight_map().remove(id.get());
        // A cancel that arrived while the result was being built still wins: once the client
        // cancelled, nothing more is sent for this id.
        match outcome.filter(|_| !cancel.is_cancelled()) {
            Some(Ok(result)) => self.send(jsonrpc::success(&id, &result)),
            Some(Err(e)) => self.send(jsonrpc::failure(Some(&id), e.code, &e.message)),
            None => {
                tracing::debug!(request = id.get(), "call cancelled by the client; no response sent");
                if let Some(out) = &self.out {
                    out.mark(crate::outbox::Kind::Unanswered);
                }
            }
        }
    }
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
    Ok(CallRequest { name, arguments, progress_token })
}

/// Cursors are opaque to clients: `page-<n>`.
pub(crate) fn cursor_for(page: usize) -> String {
    format!("page-{page}")
}

fn page_of(cursor: &str) -> Option<usize> {
    cursor.strip_prefix("page-")?.parse().ok()
}
