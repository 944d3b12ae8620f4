//! One `tools/call`, from a name and arguments to a `CallToolResult`: resolve the tool, ask
//! the policy, validate the arguments, run the handler (caught panics, time limit), check
//! its output. Every failure here is a tool execution error, built by `envelope::fail`.

use std::sync::Arc;

use mcp_core::{CallToolResult, ErrorCode, ToolError};
use serde_json::{Map, Value};

use crate::context::ask::{self, Operation, Reply, Sealing};
use crate::context::ctx::{Call, CancelState, Progress};
use crate::features::Shared;
use crate::features::call::{Handler, Road, Served, Tool, unknown};
use crate::features::tools::run::{Ran, finished, handler_failed, run};
use crate::features::tools::task;
use crate::features::tools::{Registered, Tools};
use crate::rpc::channel::Channel;
use crate::rpc::envelope::{Origin, Site, display_name, fail};
use crate::rpc::era::{Client, Era};
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;
use crate::schema::validate::Repair;

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
/// protocol error); everything else is a `CallToolResult`. The road (`features::call`) is
/// every family's; what is a tool's is here: resolve (strict resolution, a disabled tool,
/// the headers and arguments), run (`run::run`, or a task's) and shape.
pub(crate) async fn call(
    shared: &Arc<Shared>,
    channel: &Arc<Channel>,
    client: &Client,
    req: CallRequest,
    cancel: Arc<CancelState>,
) -> Result<Reply, RpcError> {
    let caller = shared.caller(channel, client, &cancel);
    let road = Road::<Tool>::new(&caller);
    let request_id = road.request_id;
    let strict = shared.options.strict_resolution && channel.is_wire();
    let tools = shared.tools();

    let Some(tool) = tools.get(req.name.as_str()) else {
        return unknown_tool(shared, &tools, &road, &req.name, strict).map(Reply::Complete);
    };
    let name = tool.spec.name;
    let site = tool.site(&shared.options);

    if let Some(reason) = &tool.disabled {
        if strict {
            return Err(RpcError::invalid_params(format!("Tool unavailable: {name}")));
        }
        let err = crate::hooks::policy::unavailable(name, Some(reason.as_str()), None);
        return Ok(Reply::Complete(road.refuse(site, err)));
    }
    if let Err(refused) = road.admit(site, tool.spec.scopes, name, req.arguments.as_ref()).await {
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
        if let Some(repaired) = repaired(tool, &args) {
            args = repaired.0;
            log_repairs(&shared.observer, name, request_id, &repaired.1);
        } else {
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
    }

    // A 2026-07-28 retry's answers and state; a 2025 request's are ignored.
    let operation = Operation::named("tools/call", tool.spec.name);
    let sealing =
        Sealing { sealer: &shared.stores.sealer, principal: channel.principal(), operation: &operation, request_id };
    let inputs = ask::incoming(client, &sealing, req.input_responses.as_deref(), req.request_state.as_deref())?;
    // A `#[tool(task = ..)]` tool's call that may become a task, or that is refused for not
    // being able to, goes its own way (`features::tools::task`); others go on here.
    if let Some(diverted) = task::divert(tool, shared, channel, client, request_id, road.started) {
        return diverted.serve(args, inputs, operation, cancel).await;
    }
    let progress = req.progress_token.map(|token| Arc::new(Progress::new(token)));
    // Every round of the handler (over a 2025 session, one per ask) gets the same (shared)
    // arguments.
    let args = Arc::new(args);
    let handler = Handler { name, operation: &operation, sealing: &sealing, progress };
    let served = road
        .serve(&handler, inputs, |info| {
            let call = Call { args: Arc::clone(&args), info };
            async move {
                match run(shared, tool, channel, client, call, request_id).await {
                    Ran::Done(caught) => caught.map(|ran| ran.map(Step::Output)),
                    Ran::Stopped(result) => Ok(Ok(Step::Stopped(result))),
                }
            }
        })
        .await;
    let result = match served {
        Served::Done(Step::Output(output)) => finished(tool, site, output, request_id),
        Served::Done(Step::Stopped(result)) => result,
        Served::Asked(asked) => return Ok(Reply::InputRequired(asked)),
        Served::Failed(err) => return handler_failed(site, err, client, request_id).map(Reply::Complete),
        Served::Refused(err) => fail(site, err, request_id, Origin::Refusal, None),
        Served::Unfulfilled(err) => fail(site, err, request_id, Origin::Fault, None),
        Served::Rpc(e) => return Err(e),
        Served::Panicked(payload) => road.panicked(site, &*payload),
        Served::Cancelled => CallToolResult::default(),
    };
    Ok(Reply::Complete(result))
}

/// How one run of a tool's handler ended when it did not fail: its value, or the result the
/// runtime stopped it with (its time limit).
enum Step {
    Output(crate::features::tools::output::Output),
    Stopped(CallToolResult),
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

/// A call of a tool that is not served: a tool execution error with a did-you-mean among
/// the tools listed to this caller, or a protocol error under strict resolution.
fn unknown_tool(
    shared: &Shared,
    tools: &Tools,
    road: &Road<'_, Tool>,
    name: &str,
    strict: bool,
) -> Result<CallToolResult, RpcError> {
    let shown = display_name(name);
    if strict {
        return Err(RpcError::invalid_params(format!("Unknown tool: {shown}")));
    }
    let principal = road.caller.channel.principal();
    let listed = tools.all.iter().filter(|t| t.disabled.is_none() && shared.lists_to(t, principal));
    let err = unknown(
        ToolError::invalid_params(format!("Unknown tool: {shown}.")).reason("unknown_tool"),
        "Re-run tools/list and retry.",
        &shown,
        listed.map(|t| t.spec.name),
    );
    let site = Site::bare("tool", &shown, shared.options.drafts);
    Ok(road.refuse(site, err))
}

/// Refuses a call that cannot start (every slot taken and, on stdio, the queue full): retryable.
pub(crate) fn busy(shared: &Shared, name: &str) -> CallToolResult {
    let shown = display_name(name);
    let tools = shared.tools();
    let site = match tools.get(name) {
        Some(tool) => tool.site(&shared.options),
        None => Site::bare("tool", &shown, shared.options.drafts),
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

/// The arguments repaired (docs/errors.md#repairs), when the tool allows repairs and the
/// repaired arguments validate; with what was repaired. Only called for arguments that
/// failed validation.
fn repaired(tool: &Registered, args: &Value) -> Option<(Value, Vec<Repair>)> {
    if !tool.repair {
        return None;
    }
    crate::schema::validate::repair(&tool.input_schema, args).filter(|(value, _)| tool.input_validator.is_valid(value))
}

/// The call's record of its repairs: a log event, `mcp_runtime.input.repairs` on the
/// request's span (`number_from_string at a, list_of_one at tags`), and a count of each on
/// the `mcp_runtime.server.input_repairs` metric when the server exports metrics.
fn log_repairs(observer: &crate::observe::Observer, tool: &'static str, request_id: RequestId, repairs: &[Repair]) {
    #[cfg(feature = "otel")]
    if let Some(metrics) = &observer.metrics {
        for repair in repairs {
            metrics.repaired(tool, repair.kind.as_str());
        }
    }
    #[cfg(not(feature = "otel"))]
    let _ = observer;
    let list = repairs.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ");
    tracing::Span::current().record("mcp_runtime.input.repairs", list.as_str());
    tracing::info!(target: "mcp_runtime::call", %request_id, tool, repairs = list.as_str(), "arguments repaired");
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
