//! One `tools/call`, from a name and arguments to a `CallToolResult`: resolve the tool, ask
//! the policy, validate the arguments, run the handler (caught panics, time limit), check
//! its output. Every failure here is a tool execution error, built by `envelope::fail`.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use mcp_core::{CallToolResult, ErrorCode, ToolError};
use serde_json::{Map, Value};

use crate::context::ask::{self, Operation, Reply, Sealing};
use crate::context::ctx::{Call, CallInfo, CancelState, Progress};
use crate::context::shim::{self, Round};
use crate::hooks::{HookRequest, Refused};
use crate::protocol::handler::{Ran, finished, handler_failed, panicked, run};
use crate::protocol::tasked;
use crate::rpc::channel::Channel;
use crate::rpc::envelope::{Origin, Site, display_name, fail, levenshtein};
use crate::rpc::era::{Client, Era};
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;
use crate::server::{Registered, Shared, Tools};

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
// One call's whole pipeline, read top to bottom; the task branch took it past 100 lines.
#[allow(clippy::too_many_lines)]
pub(crate) async fn call(
    shared: &Arc<Shared>,
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
    // A `#[tool(task = ..)]` tool's call that may become a task, or that is refused for not
    // being able to, goes its own way (`protocol::tasked`); others go on here.
    if let Some(diverted) = tasked::divert(tool, shared, channel, client, request_id, started) {
        return diverted.serve(args, inputs, operation, cancel).await;
    }
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
            task: None,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_rendered_safely() {
        assert_eq!(display_name("ec\u{0}ho\n"), "echo");
        let long = "x".repeat(200);
        assert_eq!(display_name(&long), format!("{}…", "x".repeat(128)));
        assert_eq!(levenshtein("ehco", "echo"), 2);
        assert_eq!(levenshtein("echo", "echo"), 0);
    }
}
