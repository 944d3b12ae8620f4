//! One `tools/call`, from a name and arguments to a `CallToolResult`: resolve the tool, ask
//! the policy, validate the arguments, run the handler (caught panics, time limit), check
//! its output. Every failure here is a tool execution error, built by `envelope::fail`.

use std::any::Any;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mcp_core::{CallToolResult, Content, ErrorCode, ToolError};
use serde_json::{Map, Value, json};

use crate::context::ask::{self, CAPABILITY_MISSING, INVALID_STATE, Operation, Reply, Sealing};
use crate::context::ctx::{Call, CallInfo, CancelState, Progress};
use crate::context::logging::{InCall, Scope};
use crate::context::shim::{self, Round};
use crate::hooks::{HookRequest, Refused};
use crate::rpc::catch::{CatchUnwind, panic_text};
use crate::rpc::channel::Channel;
use crate::rpc::envelope::{Origin, Site, display_name, fail, levenshtein};
use crate::rpc::era::{Client, Era};
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;
use crate::server::{BoxFuture, Registered, Shared, Tools};
use crate::tools::output::Output;

/// A `tools/call` whose params have the `CallToolRequest` shape.
pub(crate) struct CallRequest {
    pub(crate) name: String,
    pub(crate) arguments: Option<Value>,
    pub(crate) progress_token: Option<Box<serde_json::value::RawValue>>,
    /// A 2026-07-28 retry's answers (`inputResponses`), as sent.
    pub(crate) input_responses: Option<Box<serde_json::value::RawValue>>,
    /// A 2026-07-28 retry's `requestState`, as sent.
    pub(crate) request_state: Option<Box<serde_json::value::RawValue>>,
}

/// Runs one call. `Err` only for strict resolution (an unknown or disabled tool as a
/// protocol error); everything else is a `CallToolResult`.
pub(crate) async fn call(
    shared: &Shared,
    channel: &Arc<Channel>,
    client: &Client,
    req: CallRequest,
    cancel: Arc<CancelState>,
) -> Result<Reply, RpcError> {
    let started = Instant::now();
    let request_id = RequestId::generate();
    let strict = shared.options.strict_resolution && channel.is_wire();
    let tools = shared.tools();

    let Some(tool) = tools.get(req.name.as_str()) else {
        return unknown_tool(shared, &tools, channel, &req.name, strict, request_id).map(Reply::Complete);
    };
    let name = tool.spec.name;
    let site = tool.site(&shared.options);

    if let Some(reason) = &tool.disabled {
        if strict {
            return Err(RpcError::invalid_params(format!("Tool unavailable: {name}")));
        }
        return Ok(Reply::Complete(unavailable(site, Some(reason.as_str()), None, request_id)));
    }
    // Scopes before the policy and the arguments: a caller without them learns nothing more.
    if let Err(err) = crate::auth::principal::require(channel.principal(), tool.spec.scopes, name) {
        return Ok(Reply::Complete(fail(Site { contract: &[], ..site }, err, request_id, Origin::Refusal, None)));
    }
    if let Some(refused) = refused_by_hooks(shared, site, channel, client, req.arguments.as_ref(), request_id) {
        return Ok(Reply::Complete(refused));
    }

    let mut args = req.arguments.unwrap_or_else(|| Value::Object(Map::new()));
    if client.era() == Era::Modern
        && let Some(http) = channel.http()
    {
        check_header_params(&tool.header_params, &http.headers, &args)?;
    }
    absent_when_null(&mut args, &tool.null_means_absent);
    if !tool.input_validator.is_valid(&args) {
        let (err, issues) =
            crate::schema::validate::invalid_arguments(name, &tool.input_validator, &tool.input_schema, &args);
        return Ok(Reply::Complete(fail(
            Site { contract: &[], ..site },
            err,
            request_id,
            Origin::Refusal,
            Some(issues),
        )));
    }

    // A 2026-07-28 retry's answers and state; a 2025 request's are ignored.
    let operation = Operation::named("tools/call", tool.spec.name);
    let sealing =
        Sealing { sealer: &shared.stores.sealer, principal: channel.principal(), operation: &operation, request_id };
    let mut inputs = ask::incoming(client, &sealing, req.input_responses.as_deref(), req.request_state.as_deref())?;
    let progress = req.progress_token.map(|token| Arc::new(Progress::new(token)));
    // Over a 2025 session an ask is fulfilled here and the handler runs again, with the same
    // (shared) arguments.
    let args = Arc::new(args);
    let mut asked = 0;
    loop {
        let info = CallInfo {
            tool: name,
            request_id,
            started,
            channel: Arc::clone(channel),
            client: client.clone(),
            stores: Arc::clone(&shared.stores),
            operation: operation.clone(),
            notices: Arc::clone(&shared.notices),
            progress: progress.clone(),
            inputs: std::mem::take(&mut inputs),
            cancel: Arc::clone(&cancel),
        };
        let outcome = match run(shared, tool, channel, client, Call { args: Arc::clone(&args), info }, request_id).await
        {
            Ran::Done(outcome) => outcome,
            Ran::Stopped(result) => return Ok(Reply::Complete(result)),
        };
        if cancel.is_cancelled() {
            // Nothing is sent for a cancelled call, and how its handler ended is no failure.
            tracing::debug!(target: "mcp_runtime::call", %request_id, tool = name, "the call ended after the client cancelled it; nothing sent");
            return Ok(Reply::Complete(CallToolResult::default()));
        }
        let result = match outcome {
            Ok(Ok(output)) => finished(tool, site, output, request_id),
            Ok(Err(mut err)) => {
                // Asking is not failing: it is recognised before anything classifies the error.
                let Some(question) = ask::take(&mut err) else {
                    return handler_failed(site, err, client, request_id).map(Reply::Complete);
                };
                if client.era() == Era::Modern {
                    tracing::debug!(target: "mcp_runtime::call", %request_id, tool = name, "the handler asks the caller: input_required");
                    return ask::modern(question, client, name, &sealing).map(Reply::InputRequired);
                }
                tracing::debug!(target: "mcp_runtime::call", %request_id, tool = name, round = asked + 1, "the handler asks the caller: the shim asks the client");
                asked += 1;
                let timeout = shared.options.ask_timeout;
                // Boxed: a round trip is rare, and its future would make every call's larger.
                match Box::pin(shim::round("tools/call", question, asked, channel, client, &cancel, timeout)).await {
                    Round::Again(next) => {
                        inputs = next;
                        continue;
                    }
                    Round::Broken(e) => return Err(e),
                    ended => shim_ended(site, ended, request_id),
                }
            }
            Err(payload) => panicked(site, &*payload, request_id),
        };
        return Ok(Reply::Complete(result));
    }
}

/// The result of a handler's value, or the failure of output that breaks its schema.
fn finished(tool: &Registered, site: Site<'_>, output: Output, request_id: RequestId) -> CallToolResult {
    finish(tool, output).unwrap_or_else(|detail| {
        let name = tool.spec.name;
        let err = ToolError::internal(format!("Tool produced invalid structured output for {name}: {detail}."))
            .reason("invalid_output");
        fail(site, err, request_id, Origin::Fault, None)
    })
}

/// The server's hooks (its policy among them) on this call: `None` to go on, or the
/// refusal (or a hook's panic).
fn refused_by_hooks(
    shared: &Shared,
    site: Site<'_>,
    channel: &Channel,
    client: &Client,
    arguments: Option<&Value>,
    request_id: RequestId,
) -> Option<CallToolResult> {
    let request = HookRequest::new("tools/call", site.tool, arguments, channel, client);
    // Hooks are the author's code: a panic in one fails this call, like one in a handler.
    match shared.observer.hooks.before(&request) {
        Ok(()) => None,
        Err(Refused::By(err)) => Some(fail(Site { contract: &[], ..site }, err, request_id, Origin::Refusal, None)),
        Err(Refused::Panicked(payload)) => Some(panicked(site, &*payload, request_id)),
    }
}

/// The result of a call whose legacy shim round ended it: the capability refusal, a failed
/// round, or nothing (cancelled).
fn shim_ended(site: Site<'_>, round: Round, request_id: RequestId) -> CallToolResult {
    match round {
        Round::Refused(err) => fail(site, err, request_id, Origin::Refusal, None),
        Round::Failed(err) => fail(site, err, request_id, Origin::Fault, None),
        Round::Again(_) | Round::Broken(_) | Round::Cancelled => {
            tracing::debug!(target: "mcp_runtime::call", %request_id, tool = site.tool, "the call was cancelled while the client was asked; nothing sent");
            CallToolResult::default()
        }
    }
}

/// How one run of a handler ended: with its outcome, or stopped by the runtime (its time
/// limit) with this result.
enum Ran {
    Done(Caught),
    Stopped(CallToolResult),
}

/// Runs the handler once, in its call's scope, where it runs (see `blocking`), within its
/// time limit.
async fn run(
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
    // Where the handler runs (see `blocking`): a fn without `async` that has a time limit,
    // or has been seen to block, goes to the blocking pool; the rest run right here, in the
    // call's own task.
    let pooled = tool.spec.blocking && (tool.timeout.is_some() || tool.seen_blocking.load(Ordering::Relaxed));
    let inline_since = (tool.spec.blocking && !pooled).then(Instant::now);
    let handler = if pooled { on_blocking_thread(handler, Arc::clone(&shared.blocking)) } else { Box::pin(handler) };
    let outcome = match tool.timeout {
        Some(limit) => {
            let Ok(caught) = tokio::time::timeout(limit, handler).await else {
                let err = ToolError::timeout(format!("Tool {name} did not finish within {} s.", seconds(limit)))
                    .reason("timeout")
                    .retryable(true)
                    .hint("Retry the call; if it keeps timing out, narrow its input.");
                return Ran::Stopped(fail(tool.site(&shared.options), err, request_id, Origin::Fault, None));
            };
            caught
        }
        None => handler.await,
    };
    if let Some(since) = inline_since {
        if since.elapsed() > BLOCKING {
            tool.seen_blocking.store(true, Ordering::Relaxed);
            tracing::debug!(tool = name, took = ?since.elapsed(), "a call blocked its thread; this tool runs on the blocking pool from now on");
        } else if tool.quick_runs.load(Ordering::Relaxed) < crate::server::INLINE_AFTER {
            tool.quick_runs.fetch_add(1, Ordering::Relaxed);
        }
    }
    Ran::Done(outcome)
}

/// A handler's own failure: the envelope, except a missing capability on a 2026-07-28
/// request, which is the protocol error `-32021`.
fn handler_failed(
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

/// On a 2026-07-28 HTTP call, every `Mcp-Param-*` header must carry its argument's value
/// (decoded from `=?base64?…?=`; integers compared as numbers), and be absent when the
/// argument is: `-32020` otherwise.
fn check_header_params(
    params: &[crate::schema::generate::HeaderParam],
    headers: &http::HeaderMap,
    args: &Value,
) -> Result<(), RpcError> {
    for param in params {
        let name = format!("mcp-param-{}", param.header);
        let sent = crate::rpc::channel::mirror(headers, &name);
        let value = param.path.iter().try_fold(args, |at, key| at.get(key)).filter(|v| !v.is_null());
        let matches = match (&sent, value) {
            (None, None) => true,
            (Some(Ok(sent)), Some(Value::String(s))) => sent == s,
            (Some(Ok(sent)), Some(Value::Bool(b))) => sent == if *b { "true" } else { "false" },
            (Some(Ok(sent)), Some(Value::Number(n))) => {
                sent.parse::<i64>().ok().is_some_and(|h| n.as_i64() == Some(h))
                    || sent.parse::<f64>().ok().is_some_and(|h| n.as_f64() == Some(h))
            }
            _ => false,
        };
        if !matches {
            let shown = match &sent {
                None => "missing".to_owned(),
                Some(Err(())) => "not readable (bad =?base64?…?= form or not UTF-8)".to_owned(),
                Some(Ok(v)) => format!("{v:?}"),
            };
            return Err(RpcError::header_mismatch(format!(
                "Mcp-Param-{} is {shown}, but argument `{}` is {}; send the argument's value in the header",
                param.header,
                param.path.join("."),
                value.map_or_else(|| "absent".to_owned(), ToString::to_string)
            )));
        }
    }
    Ok(())
}

/// A call of a tool that is not served: a tool execution error with a did-you-mean, or a
/// protocol error under strict resolution.
fn unknown_tool(
    shared: &Shared,
    tools: &Tools,
    channel: &Channel,
    name: &str,
    strict: bool,
    request_id: RequestId,
) -> Result<CallToolResult, RpcError> {
    let shown = display_name(name);
    if strict {
        return Err(RpcError::invalid_params(format!("Unknown tool: {shown}")));
    }
    let mut hint = String::from("Re-run tools/list and retry.");
    // Only a tool listed to this caller is suggested.
    let listed = |tool: &Registered| tool.disabled.is_none() && shared.lists_to(tool, channel.principal());
    if let Some(near) = did_you_mean(tools, &shown, listed) {
        let _ = write!(hint, " Did you mean {near}?");
    }
    let err =
        ToolError::invalid_params(format!("Unknown tool: {shown}.")).reason("unknown_tool").retryable(false).hint(hint);
    let site = Site { family: "tool", tool: &shown, contract: &[], structured: true, causes: 0 };
    Ok(fail(site, err, request_id, Origin::Refusal, None))
}

/// How long a fn without `async` may hold a runtime thread before its tool is moved to the
/// blocking pool.
const BLOCKING: Duration = Duration::from_millis(1);

type Caught = Result<Result<Output, ToolError>, Box<dyn Any + Send>>;

/// A handler that blocks runs on tokio's blocking pool: the runtime's threads stay free, and
/// the time limit and cancellation take effect here while it runs. A cancelled or timed-out
/// one runs on to its end (a thread cannot be stopped), sees `ctx.is_cancelled()`, and its
/// result is dropped. The hand-off costs a thread wake-up per call, about three times a fast
/// handler's whole cost, which is why a fast one stays inline.
fn on_blocking_thread(
    handler: CatchUnwind<InCall<BoxFuture<'static, Result<Output, ToolError>>>>,
    threads: Arc<tokio::sync::Semaphore>,
) -> BoxFuture<'static, Caught> {
    let runtime = tokio::runtime::Handle::current();
    Box::pin(async move {
        // Handlers that ran past their limit or were cancelled still hold a thread: at most
        // `max_in_flight` blocking handlers run at once, whatever was answered meanwhile.
        let Ok(thread) = threads.acquire_owned().await else {
            return Err(Box::new("the server is shutting down") as Box<dyn Any + Send>);
        };
        let task = tokio::task::spawn_blocking(move || {
            let _thread = thread;
            // A fn without `async` is done in one poll; `block_on` is for one that is not.
            let mut handler = handler;
            match Pin::new(&mut handler).poll(&mut Context::from_waker(std::task::Waker::noop())) {
                Poll::Ready(caught) => caught,
                Poll::Pending => runtime.block_on(handler),
            }
        });
        match task.await {
            Ok(caught) => caught,
            // Panics are caught inside; a join error is the runtime shutting down.
            Err(e) => Err(Box::new(format!("blocking task ended: {e}")) as Box<dyn Any + Send>),
        }
    })
}

/// Refuses a call that cannot start (every slot taken and, on stdio, the queue full): retryable.
pub(crate) fn busy(shared: &Shared, name: &str) -> CallToolResult {
    let shown = display_name(name);
    let tools = shared.tools();
    let site = match tools.get(name) {
        Some(tool) => tool.site(&shared.options),
        None => Site { family: "tool", tool: &shown, contract: &[], structured: true, causes: 0 },
    };
    let err = ToolError::new(
        ErrorCode::RateLimited,
        format!("Server busy: {} calls are already running.", shared.options.max_in_flight),
    )
    .reason("server_busy")
    .retryable(true)
    .hint("Wait for a running call to finish, then retry.");
    fail(site, err, RequestId::generate(), Origin::Refusal, None)
}

fn unavailable(site: Site<'_>, reason: Option<&str>, hint: Option<&str>, request_id: RequestId) -> CallToolResult {
    let err = crate::hooks::policy::unavailable(site.tool, reason, hint);
    fail(Site { contract: &[], ..site }, err, request_id, Origin::Refusal, None)
}

/// `null` sent for an optional parameter means absent: the listed schema leaves `null` out
/// (function-calling dialects reject type unions) but the Rust type reads it as `None`.
fn absent_when_null(args: &mut Value, optional: &[String]) {
    if let Value::Object(map) = args
        && !optional.is_empty()
        && map.values().any(Value::is_null)
    {
        map.retain(|key, value| !(value.is_null() && optional.iter().any(|o| o == key)));
    }
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

/// The closest listed tool within edit distance 2; ties go to `tools/list` order.
fn did_you_mean(tools: &Tools, name: &str, listed: impl Fn(&Registered) -> bool) -> Option<&'static str> {
    if name.chars().count() > 130 {
        return None;
    }
    let mut best: Option<(usize, &'static str)> = None;
    for tool in tools.all.iter().filter(|t| listed(t)) {
        let d = levenshtein(name, tool.spec.name);
        if d <= 2 && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, tool.spec.name));
        }
    }
    best.map(|(_, n)| n)
}

/// A panic in the author's code (handler or policy), as the failure of the call.
fn panicked(site: Site<'_>, payload: &(dyn Any + Send), request_id: RequestId) -> CallToolResult {
    let name = site.tool;
    tracing::error!(target: "mcp_runtime::call", %request_id, tool = name, payload = panic_text(payload), "handler panicked");
    let err = ToolError::internal(format!("Tool {name} failed unexpectedly."))
        .reason("internal_error")
        .hint("Retry the call once; if it fails again, report the request id to the server operator.");
    fail(site, err, request_id, Origin::Fault, None)
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

    #[test]
    fn names_are_rendered_safely() {
        assert_eq!(display_name("ec\u{0}ho\n"), "echo");
        let long = "x".repeat(200);
        assert_eq!(display_name(&long), format!("{}…", "x".repeat(128)));
        assert_eq!(levenshtein("ehco", "echo"), 2);
        assert_eq!(levenshtein("echo", "echo"), 0);
    }
}
