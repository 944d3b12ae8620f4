//! A [`Job`] run to its end in its own task, unless the client cancels it (then nothing is
//! sent): a `tools/call` through `features::tools::call`, a task method answered from the state
//! store, a feature's request through `protocol::router`, a listen stream (`listen`); and
//! the answer, in the request's era, watched until it is sent.

use std::sync::Arc;

use serde_json::value::RawValue;
use tracing::Instrument as _;

use super::{Job, Session, Work};
use crate::context::ask::Reply;
use crate::context::ctx::BoxFuture;
use crate::context::ctx::CancelState;
use crate::features::tools::call::{self, CallRequest};
use crate::hooks::Answer;
use crate::observe::Watch;
use crate::protocol::router::{self, Feature};
use crate::rpc::era::{Client, Complete};
use crate::rpc::jsonrpc;

impl Session {
    /// The answer carrying a `tools/call` result, in the request's era.
    pub(super) fn result(&self, id: &RawValue, client: &Client, mut result: mcp_core::CallToolResult) -> Vec<u8> {
        match client {
            Client::Modern(_) => {
                let meta = result.meta.take();
                jsonrpc::success(id, &Complete::new(&result, &self.shared.server_info, meta.as_ref()))
            }
            Client::Legacy(_) => jsonrpc::success(id, &result),
        }
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
        let call = call::call(&self.shared, &self.channel, &client, req, Arc::clone(&cancel));
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
                self.end(watch, Some(&client), Answer::Task);
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
        let caller = self.shared.caller(&self.channel, &client, &cancel);
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
