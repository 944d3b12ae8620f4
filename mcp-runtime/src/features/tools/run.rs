//! One run of a tool's handler (in its call's scope, where it runs, within its time limit)
//! and what its outcome makes of the call: a result, an envelope, or a protocol error. Used by
//! `dispatch` for every call and by `tasked` for each run of a task's handler.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mcp_core::{CallToolResult, Content, ErrorCode, ToolError};
use serde_json::{Map, Value, json};

use crate::context::ask::{CAPABILITY_MISSING, INVALID_STATE};
use crate::context::ctx::BoxFuture;
use crate::context::ctx::Call;
use crate::context::logging::{InCall, Scope};
use crate::features::Shared;
use crate::features::tools::Registered;
use crate::features::tools::output::Output;
use crate::features::tools::pace::Moved;
use crate::rpc::catch::CatchUnwind;
use crate::rpc::channel::Channel;
use crate::rpc::envelope::{Origin, Site, fail};
use crate::rpc::era::{Client, Era};
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;

/// The result of a handler's value, or the failure of output that breaks its schema.
pub(crate) fn finished(tool: &Registered, site: Site<'_>, output: Output, request_id: RequestId) -> CallToolResult {
    finish(tool, output).unwrap_or_else(|detail| {
        let name = tool.spec.name;
        let err = ToolError::internal(format!("Tool produced invalid structured output for {name}: {detail}."))
            .reason("invalid_output");
        fail(site, err, request_id, Origin::Fault, None)
    })
}

/// How one run of a handler ended: with its outcome, or stopped by the runtime (its time
/// limit) with this result.
pub(crate) enum Ran {
    Done(Caught),
    Stopped(CallToolResult),
}

/// Runs the handler once, in its call's scope, where it runs (see `blocking`), within its
/// time limit.
pub(crate) async fn run(
    shared: &Shared,
    tool: &Registered,
    channel: &Arc<Channel>,
    client: &Client,
    call: Call,
    request_id: RequestId,
) -> Ran {
    let name = tool.spec.name;
    // The handler runs with its call marked current, so that its `tracing` events reach the
    // client and every record of the call carries the request id.
    let scope = Scope {
        channel: Arc::clone(channel),
        client: client.clone(),
        tool: name,
        module: tool.spec.module,
        request_id,
    };
    let handler = CatchUnwind(InCall { scope, inner: (tool.spec.call)(call) });
    // Where the handler runs (see `tools::pace`): a fn without `async` that has a time limit, or
    // has been seen to block, goes to the blocking pool; the rest run right here, in the
    // call's own task. Either way a fn without `async` is timed where it runs (on the pool,
    // without the hop), so that a pooled tool that turns quick comes back.
    let blocking = tool.spec.blocking;
    let pooled = blocking && (tool.timeout.is_some() || tool.pace.pooled());
    let handler: BoxFuture<'static, (Caught, Option<Duration>)> = if pooled {
        on_blocking_thread(handler, Arc::clone(&shared.blocking))
    } else {
        Box::pin(async move {
            let since = blocking.then(Instant::now);
            (handler.await, since.map(|since| since.elapsed()))
        })
    };
    let (outcome, held) = match tool.timeout {
        Some(limit) => {
            let Ok(ran) = tokio::time::timeout(limit, handler).await else {
                let err = ToolError::timeout(format!("Tool {name} did not finish within {} s.", seconds(limit)))
                    .reason("timeout")
                    .retryable(true)
                    .hint("Retry the call; if it keeps timing out, narrow its input.");
                return Ran::Stopped(fail(tool.site(&shared.options), err, request_id, Origin::Fault, None));
            };
            // A tool with a time limit runs on the pool whatever its pace.
            (ran.0, None)
        }
        None => handler.await,
    };
    if let Some(took) = held {
        match tool.pace.ran(took) {
            Moved::No => {}
            Moved::ToPool => tracing::debug!(
                tool = name,
                ?took,
                "calls keep blocking their thread; this tool runs on the blocking pool until its runs are quick again"
            ),
            Moved::OffPool => {
                tracing::debug!(tool = name, "calls are quick again; this tool runs off the blocking pool");
            }
        }
    }
    Ran::Done(outcome)
}

/// A handler's own failure: the envelope, except a missing capability on a 2026-07-28
/// request, which is the protocol error `-32021`.
pub(crate) fn handler_failed(
    site: Site<'_>,
    err: ToolError,
    client: &Client,
    request_id: RequestId,
) -> Result<CallToolResult, RpcError> {
    let reason = err.reason_str();
    if reason == Some(CAPABILITY_MISSING) && client.era() == Era::Modern {
        // A 2026-07-28 client learns what to declare from the protocol error itself.
        tracing::info!(target: "mcp_runtime::call", %request_id, tool = site.tool, "{}", err.message_str());
        let data = err.data_map().get("requiredCapabilities").cloned().map(|c| json!({"requiredCapabilities": c}));
        return Err(RpcError { code: -32021, message: err.message_str().to_owned(), data });
    }
    if reason == Some(INVALID_STATE) && client.era() == Era::Modern {
        // A `requestState` the handler did not write: a protocol error of the retry.
        tracing::info!(target: "mcp_runtime::call", %request_id, tool = site.tool, "{}", err.message_str());
        return Err(RpcError::invalid_params(err.message_str()));
    }
    // Arguments that passed the schema but not serde are refused like schema failures.
    let refused = (reason == Some("invalid_arguments") && err.code() == ErrorCode::InvalidParams)
        || reason == Some(CAPABILITY_MISSING);
    Ok(fail(site, err, request_id, if refused { Origin::Refusal } else { Origin::Handler }, None))
}

pub(crate) type Caught = Result<Result<Output, ToolError>, Box<dyn Any + Send>>;

/// A handler that blocks runs on tokio's blocking pool: the runtime's threads stay free, and
/// the time limit and cancellation take effect here while it runs. A cancelled or timed-out
/// one runs on to its end (a thread cannot be stopped), sees `ctx.is_cancelled()`, and its
/// result is dropped. The hand-off costs a thread wake-up per call, about three times a fast
/// handler's whole cost, which is why a fast one stays inline. With the outcome, how long the
/// handler held its thread (none if it did not run).
fn on_blocking_thread(
    handler: CatchUnwind<InCall<BoxFuture<'static, Result<Output, ToolError>>>>,
    threads: Arc<tokio::sync::Semaphore>,
) -> BoxFuture<'static, (Caught, Option<Duration>)> {
    let runtime = tokio::runtime::Handle::current();
    Box::pin(async move {
        // Handlers that ran past their limit or were cancelled still hold a thread: at most
        // `max_in_flight` blocking handlers run at once, whatever was answered meanwhile.
        let Ok(thread) = threads.acquire_owned().await else {
            return (Err(Box::new("the server is shutting down") as Box<dyn Any + Send>), None);
        };
        let task = tokio::task::spawn_blocking(move || {
            let _thread = thread;
            // A fn without `async` is done in one poll; `block_on` is for one that is not.
            let mut handler = handler;
            let since = Instant::now();
            let caught = match Pin::new(&mut handler).poll(&mut Context::from_waker(std::task::Waker::noop())) {
                Poll::Ready(caught) => caught,
                Poll::Pending => runtime.block_on(handler),
            };
            (caught, Some(since.elapsed()))
        });
        match task.await {
            Ok(ran) => ran,
            // Panics are caught inside; a join error is the runtime shutting down.
            Err(e) => (Err(Box::new(format!("blocking task ended: {e}")) as Box<dyn Any + Send>), None),
        }
    })
}

/// The handler's value as a result, or why it breaks the tool's output schema.
fn finish(tool: &Registered, output: Output) -> Result<CallToolResult, String> {
    match output {
        Output::Structured { value, extra } => {
            let value = if tool.wrap_result {
                let mut m = Map::with_capacity(1);
                m.insert("result".into(), value);
                Value::Object(m)
            } else {
                value
            };
            if let Some(validator) = &tool.output_validator {
                if !value.is_object() {
                    return Err("structuredContent must be an object".into());
                }
                if let Some(detail) = crate::schema::validate::output_detail(validator, &value) {
                    return Err(detail);
                }
            }
            let mut content = Vec::with_capacity(1 + extra.len());
            content.push(Content::text(value.to_string()));
            content.extend(extra);
            Ok(CallToolResult { content, structured_content: Some(value), is_error: None, meta: None })
        }
        Output::Contents(result) => {
            let Some(validator) = &tool.output_validator else { return Ok(result) };
            if result.is_error == Some(true) {
                return Ok(result);
            }
            match &result.structured_content {
                None => Err("structuredContent is missing".into()),
                Some(v) if !v.is_object() => Err("structuredContent must be an object".into()),
                Some(v) => match crate::schema::validate::output_detail(validator, v) {
                    Some(detail) => Err(detail),
                    None => Ok(result),
                },
            }
        }
    }
}

/// `1 s`, `30 s`, `0.25 s`: whole seconds when whole, else up to three decimals.
fn seconds(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        return (ms / 1000).to_string();
    }
    let s = format!("{:.3}", d.as_secs_f64());
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_render_in_seconds() {
        assert_eq!(seconds(Duration::from_secs(1)), "1");
        assert_eq!(seconds(Duration::from_secs(30)), "30");
        assert_eq!(seconds(Duration::from_millis(250)), "0.25");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5");
        assert_eq!(seconds(Duration::from_millis(1)), "0.001");
    }
}
