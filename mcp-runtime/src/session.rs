//! One client connection: the lifecycle methods (`initialize`, `ping`, `tools/list`,
//! `logging/setLevel`), notifications (`notifications/cancelled`), and the routing of
//! `tools/call` to its own task.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;

use crate::context::{CancelState, LogLevel};
use crate::dispatch::{self, CallRequest};
use crate::jsonrpc::{self, Incoming, RpcError};
use crate::server::Shared;

/// Protocol revisions served, newest first.
pub(crate) const SUPPORTED_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The state of one connection.
pub(crate) struct Session {
    pub(crate) shared: Arc<Shared>,
    /// Outgoing lines; `None` for in-process calls.
    out: Option<UnboundedSender<Vec<u8>>>,
    client_info: OnceLock<Value>,
    client_capabilities: OnceLock<Value>,
    log_level: AtomicU8,
    in_flight: Mutex<HashMap<String, Arc<CancelState>>>,
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
        id: Value,
        req: CallRequest,
        cancel: Arc<CancelState>,
    },
}

impl Session {
    pub(crate) fn new(shared: Arc<Shared>, out: Option<UnboundedSender<Vec<u8>>>) -> Self {
        Session {
            shared,
            out,
            client_info: OnceLock::new(),
            client_capabilities: OnceLock::new(),
            log_level: AtomicU8::new(LogLevel::Info as u8),
            in_flight: Mutex::new(HashMap::new()),
        }
    }

    /// `true` when the session speaks JSON-RPC (not an in-process call).
    pub(crate) fn is_wire(&self) -> bool {
        self.out.is_some()
    }

    pub(crate) fn client_info(&self) -> Option<&Value> {
        self.client_info.get()
    }

    pub(crate) fn client_capabilities(&self) -> Option<&Value> {
        self.client_capabilities.get()
    }

    pub(crate) fn state<T: 'static>(&self) -> Option<&T> {
        self.shared.state.get(&TypeId::of::<T>()).and_then(|b| b.downcast_ref::<T>())
    }

    pub(crate) fn send(&self, line: Vec<u8>) {
        if let Some(out) = &self.out {
            // The writer is gone only when stdout failed; the failure was logged there.
            let _ = out.send(line);
        }
    }

    /// `true` when a record at `level` would reach the client.
    pub(crate) fn wants(&self, level: LogLevel) -> bool {
        self.out.is_some() && (level as u8) >= self.log_level.load(Ordering::Relaxed)
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
        self.send(jsonrpc::notification("notifications/message", &Message { level, logger, data }));
    }

    pub(crate) fn progress(&self, token: &Value, progress: f64, total: Option<f64>, message: Option<&str>) {
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Params<'a> {
            progress_token: &'a Value,
            progress: f64,
            #[serde(skip_serializing_if = "Option::is_none")]
            total: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            message: Option<&'a str>,
        }
        self.send(jsonrpc::notification(
            "notifications/progress",
            &Params { progress_token: token, progress, total, message },
        ));
    }

    /// Handles one line. Everything but `tools/call` is answered here, at once; a
    /// `tools/call` is parsed here and handed back to run in its own task.
    pub(crate) fn handle(&self, line: &[u8]) -> Next {
        match jsonrpc::parse(line) {
            Incoming::ParseError => self.send(jsonrpc::failure(&Value::Null, -32700, "Parse error")),
            Incoming::Invalid { id, message } => self.send(jsonrpc::failure(&id, -32600, message)),
            Incoming::Response => tracing::debug!("ignoring a response that matches no request of this server"),
            Incoming::Notification { method, params } => self.notification(&method, value(params)),
            Incoming::Request { id, method, params } => {
                let answer = match &*method {
                    "tools/call" => match call_request(params) {
                        Ok(req) => {
                            let cancel = Arc::new(CancelState::default());
                            self.in_flight
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .insert(id.to_string(), Arc::clone(&cancel));
                            return Next::Call { id, req, cancel };
                        }
                        Err(e) => Err(e),
                    },
                    "initialize" => self.initialize(value(params)).map(|r| jsonrpc::success(&id, &r)),
                    "ping" => Ok(jsonrpc::success(&id, &json!({}))),
                    "tools/list" => self.list(value(params).as_ref()).map(|page| jsonrpc::success(&id, &page)),
                    "logging/setLevel" => {
                        self.set_level(value(params).as_ref()).map(|()| jsonrpc::success(&id, &json!({})))
                    }
                    other => Err(RpcError {
                        code: -32601,
                        message: format!("Method not found: {}", dispatch::display_name(other)),
                    }),
                };
                self.send(answer.unwrap_or_else(|e| jsonrpc::failure(&id, e.code, &e.message)));
            }
        }
        Next::Done
    }

    fn notification(&self, method: &str, params: Option<Value>) {
        match method {
            "notifications/cancelled" => {
                let Some(id) = params.as_ref().and_then(|p| p.get("requestId")) else {
                    tracing::debug!("notifications/cancelled without a requestId");
                    return;
                };
                let key = id.to_string();
                let found = self.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&key).cloned();
                if let Some(cancel) = found {
                    cancel.cancel();
                } else {
                    tracing::debug!(request = %key, "cancel for an unknown or finished request; ignored");
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
        let version = SUPPORTED_VERSIONS.iter().find(|v| **v == requested).copied().unwrap_or(SUPPORTED_VERSIONS[0]);
        if let Some(info) = params.get("clientInfo") {
            let _ = self.client_info.set(info.clone());
        }
        if let Some(caps) = params.get("capabilities") {
            let _ = self.client_capabilities.set(caps.clone());
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
        self.log_level.store(level as u8, Ordering::Relaxed);
        Ok(())
    }

    /// Runs one `tools/call` to its answer (in its own task), unless the client cancels it.
    pub(crate) async fn run_call(self: Arc<Self>, id: Value, req: CallRequest, cancel: Arc<CancelState>) {
        let key = id.to_string();
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
        self.in_flight.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&key);
        // A cancel that arrived while the result was being built still wins: once the client
        // cancelled, nothing more is sent for this id.
        match outcome.filter(|_| !cancel.is_cancelled()) {
            Some(Ok(result)) => self.send(jsonrpc::success(&id, &result)),
            Some(Err(e)) => self.send(jsonrpc::failure(&id, e.code, &e.message)),
            None => tracing::debug!(request = %key, "call cancelled by the client; no response sent"),
        }
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
    let progress_token = match raw.meta.map(|m| serde_json::from_str::<Value>(m.get())) {
        None => None,
        Some(Ok(Value::Object(meta))) => match meta.get("progressToken") {
            None => None,
            Some(t @ Value::String(_)) => Some(t.clone()),
            Some(t @ Value::Number(n)) if n.is_i64() || n.is_u64() => Some(t.clone()),
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "Invalid params: `_meta.progressToken` must be a string or an integer",
                ));
            }
        },
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
