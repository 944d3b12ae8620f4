//! Handlers are the author's code: a panic in one becomes a value here, and the call fails
//! instead of the server.

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_core::ToolError;

use crate::rpc::request_id::RequestId;

pub(crate) fn panic_text(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&'static str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("<non-string panic payload>")
}

/// A panic in a resource or prompt handler (`kind` `Resource`, `Prompt`), as the failure
/// sent for it. The payload is logged here and never sent.
pub(crate) fn panic_failure(kind: &str, name: &str, payload: &(dyn Any + Send), request_id: RequestId) -> ToolError {
    tracing::error!(target: "mcp_runtime::call", %request_id, handler = name, payload = panic_text(payload), "{kind} handler panicked");
    ToolError::internal(format!("{kind} {name} failed unexpectedly."))
        .reason("internal_error")
        .hint("Retry once; if it fails again, report the request id to the server operator.")
}

/// Polls the handler inside `catch_unwind`, so a panic in a sync or async handler becomes
/// a value instead of unwinding through the server.
pub(crate) struct CatchUnwind<F>(pub(crate) F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let fut = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(&mut *fut).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(v)) => Poll::Ready(Ok(v)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}
