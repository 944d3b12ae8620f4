//! Requests this server sends to a 2025-era client (the legs of the legacy shim): their ids,
//! and the client's answers routed back to the call that waits for them. One per session:
//! on stdio the connection's, over HTTP the session's (answers arrive on POSTs of their own).

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{Notify, oneshot};

use crate::rpc::jsonrpc::RpcError;

/// What the client answered: its `result`, or its `error`.
pub(crate) type Answer = Result<Value, RpcError>;

/// The requests in flight to the client, by id.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, Waiter>>,
}

#[derive(Debug)]
struct Waiter {
    answer: oneshot::Sender<Answer>,
    progress: std::sync::Arc<Notify>,
}

/// One request in flight: its id, where its answer arrives, and a signal for each progress
/// notification the client sends about it (its token is the id).
pub(crate) struct Leg {
    pub(crate) id: u64,
    pub(crate) answer: oneshot::Receiver<Answer>,
    pub(crate) progress: std::sync::Arc<Notify>,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Waiter>> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new request id, registered before the request is written.
    pub(crate) fn open(&self) -> Leg {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let (tx, rx) = oneshot::channel();
        let progress = std::sync::Arc::new(Notify::new());
        self.lock().insert(id, Waiter { answer: tx, progress: std::sync::Arc::clone(&progress) });
        Leg { id, answer: rx, progress }
    }

    /// Forgets a request (answered, timed out or cancelled): a late answer is ignored.
    /// `true` when it was still waiting for its answer.
    pub(crate) fn close(&self, id: u64) -> bool {
        self.lock().remove(&id).is_some()
    }

    /// A response from the client. One that matches no request in flight is ignored.
    pub(crate) fn answer(&self, id: Option<&RawValue>, result: Option<&RawValue>, error: Option<&RawValue>) {
        let Some(id) = id.and_then(|id| serde_json::from_str::<u64>(id.get()).ok()) else {
            tracing::debug!("ignoring a response that matches no request of this server");
            return;
        };
        let Some(waiter) = self.lock().remove(&id) else {
            tracing::debug!(id, "ignoring a response to a request that is no longer waited for");
            return;
        };
        let answer = match (result, error) {
            (Some(result), _) => serde_json::from_str(result.get()).map_err(|_| RpcError {
                code: -32603,
                message: "the client's result is not JSON".into(),
                data: None,
            }),
            (None, Some(error)) => Err(client_error(error)),
            (None, None) => Err(RpcError { code: -32603, message: "empty response".into(), data: None }),
        };
        let _ = waiter.answer.send(answer);
    }

    /// A `notifications/progress` from the client: wakes the request whose token it names.
    pub(crate) fn progress(&self, token: &RawValue) {
        let Ok(id) = serde_json::from_str::<u64>(token.get()) else { return };
        if let Some(waiter) = self.lock().get(&id) {
            waiter.progress.notify_one();
        }
    }
}

/// The client's `error` object as an error value.
fn client_error(error: &RawValue) -> RpcError {
    #[derive(serde::Deserialize)]
    struct Shape {
        code: Option<i64>,
        message: Option<String>,
        data: Option<Value>,
    }
    let shape = serde_json::from_str::<Shape>(error.get()).unwrap_or(Shape { code: None, message: None, data: None });
    RpcError {
        code: shape.code.and_then(|c| i32::try_from(c).ok()).unwrap_or(-32603),
        message: shape.message.unwrap_or_else(|| "the client answered with an error".into()),
        data: shape.data,
    }
}
