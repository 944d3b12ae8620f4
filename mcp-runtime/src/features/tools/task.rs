//! A call of a `#[tool(task = ..)]` tool, which `dispatch` hands over once the call is
//! resolved, allowed and its arguments are valid.
//!
//! A client that declared the tasks extension on this request gets the call run inline until
//! it goes on as a task: when the handler asks (`ctx.run_as_task()`), when the server's
//! `task_after` passes, or, for a `required` tool, when the handler first waits. What the
//! handler decides before that is served as usual: an ask is an MRTR round of the
//! `tools/call`, a protocol error its answer, a result inline (a `required` tool's as a task
//! that is already complete). Then the task is written to the state store, `CreateTaskResult`
//! answers the call, and this replica drives the rest in the background:
//!
//! - the handler runs on; its outcome ends the task with the exact result a synchronous call
//!   would have had (`completed`, an `isError` envelope included, with the call's request
//!   id), or `failed` with the JSON-RPC error it would have been answered with;
//! - an ask makes the task `input_required`; when `tasks/update` (on any replica) has
//!   answered every request, the handler runs again with the answers, as the legacy shim
//!   runs it again;
//! - a `tasks/cancel` (on any replica) fires `ctx.cancelled()`; after the cancellation grace
//!   the task is `cancelled`;
//! - the lease is renewed while it runs; the TTL ends it `failed`. A store that stalls past
//!   the lease does not end it: its runner never reads its own task lost, renews the lease
//!   when the store answers again and writes the outcome then (retrying until the TTL); only
//!   another replica, reading a lapsed lease, ends it `task_lost`;
//! - once it ends, the hooks' `after` of the call runs (deferred from the `CreateTaskResult`,
//!   which they do not see) with how it ended, read from its record: one record per call
//!   for `Audit`, saying how the work ended.
//!
//! Changes made on other replicas reach this one through the bus (at once) and by reading the
//! record every second (the backstop). A call that can become a task sends no log or progress
//! notifications: the extension has none for tasks. Its `ctx.progress` is the task's
//! `statusMessage` instead, written at most every [`STATUS_EVERY`].

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_core::{CallToolResult, ErrorCode, ToolError};
use serde::Deserialize as _;
use serde_json::Value;

use tracing::{Instrument as _, Span};

use crate::auth::principal;
use crate::context::ask::{self, Ask, Inputs, Operation, Reply, Sealing};
use crate::context::ctx::{Call, CancelState, TaskHook};
use crate::features::Shared;
use crate::features::call::{Ended, Family as _, Tool, ended, panicked};
use crate::features::tools::Registered;
use crate::features::tools::run::{self, Ran};
use crate::features::tools::tool::TaskSupport;
use crate::hooks::{self, Answer, HookRequest};
use crate::observe::{self, span};
use crate::rpc::channel::Channel;
use crate::rpc::envelope::{Origin, Site, fail};
use crate::rpc::era::{Client, Complete, Era, SERVER_INFO_KEY};
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;
use crate::tasks::record::{Record, Seed, Status, error_value};
use crate::tasks::{self, millis, now_ms};

/// A task tool's call that does not go on in `dispatch`: it may become a task, or it is
/// refused.
pub(crate) enum Diverted {
    /// It may become a task.
    Task(Start),
    /// A `required` tool for a client that cannot have a task.
    Refused(Result<CallToolResult, RpcError>),
}

/// A call that may become a task, as `dispatch` hands it over (its arguments, answers,
/// operation and cancellation come with [`Diverted::serve`]).
pub(crate) struct Start {
    shared: Arc<Shared>,
    channel: Arc<Channel>,
    client: Client,
    tool: Arc<Registered>,
    request_id: RequestId,
    started: Instant,
}

/// Where a call of `tool` goes, for `client`: `None` (on in `dispatch`) for a tool without
/// `task`, and for an `optional` one called by a client that cannot have a task. A
/// 2026-07-28 client that declared the extension may get a task; a `required` tool is
/// refused to any other (`-32021` naming the extension for a 2026-07-28 client; the
/// `client_capability_missing` envelope for a 2025 session, which cannot declare it).
pub(crate) fn divert(
    tool: &Arc<Registered>,
    shared: &Arc<Shared>,
    channel: &Arc<Channel>,
    client: &Client,
    request_id: RequestId,
    started: Instant,
) -> Option<Diverted> {
    let support = tool.spec.task?;
    if tasks::declared(client) {
        return Some(Diverted::Task(Start {
            shared: Arc::clone(shared),
            channel: Arc::clone(channel),
            client: client.clone(),
            tool: Arc::clone(tool),
            request_id,
            started,
        }));
    }
    if support == TaskSupport::Optional {
        return None;
    }
    Some(Diverted::Refused(refusal(tool.site(&shared.options), client, request_id)))
}

impl Diverted {
    /// Serves the call: this round's `inputs` (a retry of an MRTR round before the task),
    /// and the request's `cancel` (the client went away before the task began).
    pub(crate) async fn serve(
        self,
        args: Value,
        inputs: Inputs,
        operation: Operation,
        cancel: Arc<CancelState>,
    ) -> Result<Reply, RpcError> {
        match self {
            Diverted::Refused(answer) => answer.map(Reply::Complete),
            Diverted::Task(start) => call(start, args, inputs, operation, cancel).await,
        }
    }
}

/// The refusal of a `required` tool's call by a client that cannot have a task.
fn refusal(site: Site<'_>, client: &Client, request_id: RequestId) -> Result<CallToolResult, RpcError> {
    let name = site.tool;
    if client.era() == Era::Modern {
        tracing::info!(target: "mcp_runtime::call", %request_id, tool = name, "a task-only tool called without the tasks extension: -32021");
        return Err(tasks::missing_capability(&format!("tool {name}")));
    }
    let err = ToolError::new(
        ErrorCode::InvalidRequest,
        format!(
            "Cannot call tool {name}: it runs only as a task (the `{}` extension), which a 2025-era connection cannot use",
            tasks::EXTENSION
        ),
    )
    .reason(ask::CAPABILITY_MISSING)
    .retryable(false)
    .hint(format!(
        "Call it from a 2026-07-28 client that declares the `{}` extension in `_meta` clientCapabilities.",
        tasks::EXTENSION
    ));
    Ok(fail(Site { contract: &[], ..site }, err, request_id, Origin::Refusal, None))
}

/// The handler's run: its future, and what it ended with.
type Running = Pin<Box<dyn Future<Output = Ran> + Send>>;

/// One call of a task tool, inline and then as a task: what its runs share.
struct Job {
    shared: Arc<Shared>,
    channel: Arc<Channel>,
    /// The client as the request showed it, without its log level: nothing is logged to it.
    client: Client,
    tool: Arc<Registered>,
    args: Arc<Value>,
    operation: Operation,
    /// `ctx.run_as_task()`.
    hook: Arc<TaskHook>,
    /// The handler's `ctx.cancelled()`: the request's until the task begins, the task's after.
    stop: Arc<CancelState>,
    request_id: RequestId,
    started: Instant,
}

/// How a run of the handler ended, in the protocol's terms.
enum Outcome {
    /// The call's result, as a synchronous call would have been answered (an envelope too).
    Result(CallToolResult),
    /// It asks the caller.
    Asked(Ask),
    /// A JSON-RPC error, as a synchronous call would have been answered.
    Error(RpcError),
}

impl Outcome {
    /// As the answer a synchronous call would have had (`None` for an ask).
    fn answer(&self) -> Option<Answer<'_>> {
        match self {
            Outcome::Result(result) => Some(Answer::Tool(result)),
            Outcome::Error(e) => Some(Answer::Error(e)),
            Outcome::Asked(_) => None,
        }
    }
}

/// What an outcome does to the task's record; made once, applied on every try of a write.
#[derive(Clone)]
enum Ending {
    Complete(Value),
    Fail(Value),
    Ask { requests: Vec<(String, Value)>, state: Option<String> },
}

/// The first of what can happen to a call that may become a task.
enum First {
    Ended(Ran),
    Task,
    Cancelled,
}

/// Serves a call that may become a task (see the module's documentation).
async fn call(
    start: Start,
    args: Value,
    inputs: Inputs,
    operation: Operation,
    cancel: Arc<CancelState>,
) -> Result<Reply, RpcError> {
    let support = start.tool.spec.task.unwrap_or(TaskSupport::Optional);
    let job = Arc::new(Job {
        shared: start.shared,
        channel: start.channel,
        client: muted(&start.client),
        tool: start.tool,
        args: Arc::new(args),
        operation,
        hook: Arc::default(),
        stop: Arc::default(),
        request_id: start.request_id,
        started: start.started,
    });
    let mut running = job.run(inputs);
    let begin = begin_after(support, job.shared.tasks.settings.after);
    tokio::pin!(begin);
    let first = tokio::select! {
        biased;
        ran = &mut running => First::Ended(ran),
        () = job.hook.notified() => First::Task,
        () = &mut begin => First::Task,
        () = cancel.cancelled() => First::Cancelled,
    };
    match first {
        First::Cancelled => {
            // The client went away before the task began: as any call, nothing is sent.
            job.stop.cancel();
            let _ = running.await;
            Ok(Reply::Complete(CallToolResult::default()))
        }
        First::Task => job.begin(None, Some(running)).await,
        First::Ended(ran) => {
            let asked_for_task = job.hook.asked();
            match job.outcome(ran) {
                Outcome::Asked(ask) if !asked_for_task => {
                    // Before the task: a multi round-trip round of the `tools/call` itself.
                    tracing::debug!(target: "mcp_runtime::call", request_id = %job.request_id, tool = job.tool.spec.name, "the handler asks before any task: input_required");
                    let sealing = Sealing {
                        sealer: &job.shared.stores.sealer,
                        principal: job.channel.principal(),
                        operation: &job.operation,
                        request_id: job.request_id,
                    };
                    ask::modern(ask, &start.client, job.tool.spec.name, &sealing).map(Reply::InputRequired)
                }
                Outcome::Error(e) if !asked_for_task => Err(e),
                Outcome::Result(result) if !asked_for_task && support == TaskSupport::Optional => {
                    Ok(Reply::Complete(result))
                }
                outcome => job.begin(Some(outcome), None).await,
            }
        }
    }
}

/// Resolves when a call of a tool with `support` begins as a task by the server's decision:
/// a `required` one at once (after its first poll: `call` polls the handler first), an
/// `optional` one after `after`, when set.
async fn begin_after(support: TaskSupport, after: Option<Duration>) {
    match (support, after) {
        (TaskSupport::Required, _) => {}
        (TaskSupport::Optional, Some(after)) => tokio::time::sleep(after).await,
        (TaskSupport::Optional, None) => std::future::pending().await,
    }
}

/// The client without a log level: no `notifications/message` goes to a task's client.
fn muted(client: &Client) -> Client {
    match client {
        Client::Modern(envelope) if envelope.log_level.is_some() => {
            Client::Modern(Arc::new(crate::rpc::era::Envelope {
                version: envelope.version,
                capabilities: envelope.capabilities.clone(),
                info: envelope.info.clone(),
                log_level: None,
            }))
        }
        other => other.clone(),
    }
}

/// Rounds of asking a task may go through before it ends with `input_rounds_exceeded`.
const MAX_ROUNDS: u32 = 16;
/// The pause before running a handler again whose ask carried only state.
const STATE_ONLY_PACING: Duration = Duration::from_millis(250);
/// The shortest time between two writes of a task's status message (`ctx.progress`).
const STATUS_EVERY: Duration = Duration::from_millis(250);
/// How often a writer retries an outcome the store did not take.
const STORE_RETRY: Duration = Duration::from_secs(1);

impl Job {
    /// A run of the handler with this round's `inputs`.
    fn run(self: &Arc<Self>, inputs: Inputs) -> Running {
        let job = Arc::clone(self);
        Box::pin(async move {
            let caller = job.shared.caller(&job.channel, &job.client, &job.stop);
            let info = caller
                .info(job.tool.spec.name, job.request_id, job.started, &job.operation, inputs)
                .with_task(Arc::clone(&job.hook));
            let call = Call { args: Arc::clone(&job.args), info };
            run::run(&job.shared, &job.tool, &job.channel, &job.client, call, job.request_id).await
        })
    }

    fn site(&self) -> Site<'_> {
        self.tool.site(&self.shared.options)
    }

    /// A run's end in the protocol's terms, with the envelope a synchronous call would have.
    fn outcome(&self, ran: Ran) -> Outcome {
        match ran {
            Ran::Stopped(result) => Outcome::Result(result),
            Ran::Done(caught) => match ended(caught) {
                Ended::Done(output) => Outcome::Result(run::finished(&self.tool, self.site(), output, self.request_id)),
                Ended::Asked(ask) => Outcome::Asked(ask),
                Ended::Failed(err) => match run::handler_failed(self.site(), err, &self.client, self.request_id) {
                    Ok(result) => Outcome::Result(result),
                    Err(e) => Outcome::Error(e),
                },
                Ended::Panicked(payload) => Outcome::Result(panicked::<Tool>(self.site(), &*payload, self.request_id)),
            },
        }
    }

    /// What an outcome does to the record. A result is kept as a 2026-07-28 call would
    /// have been answered with it; an ask that breaks the rules (asks nothing, needs a
    /// capability the client did not declare) is the protocol error it would have been.
    fn ending(&self, outcome: Outcome) -> Ending {
        match outcome {
            Outcome::Result(mut result) => {
                let meta = result.meta.take();
                let rendered = serde_json::to_value(Complete::new(&result, &self.shared.server_info, meta.as_ref()))
                    .unwrap_or_else(|_| unreachable!("a CallToolResult serializes"));
                Ending::Complete(rendered)
            }
            Outcome::Error(e) => Ending::Fail(error_value(&e)),
            Outcome::Asked(question) => match ask::for_task(question, &self.client, self.tool.spec.name) {
                Ok((requests, state)) => Ending::Ask { requests, state },
                Err(e) => Ending::Fail(error_value(&e)),
            },
        }
    }

    /// Applies an ending to the record: whether it changed. An ask past [`MAX_ROUNDS`]
    /// completes the task with the `input_rounds_exceeded` envelope instead.
    fn apply(&self, record: &mut Record, ending: &Ending, now: u64) -> bool {
        match ending {
            Ending::Complete(result) => record.complete(result.clone(), now),
            Ending::Fail(error) => record.fail(error.clone(), now),
            Ending::Ask { .. } if record.rounds >= MAX_ROUNDS && !record.is_terminal() => {
                let err = ToolError::internal(format!(
                    "Task of tool {} still required input after {MAX_ROUNDS} rounds.",
                    self.tool.spec.name
                ))
                .reason("input_rounds_exceeded")
                .retryable(false)
                .hint("Do not retry; the tool keeps asking for input it does not accept. Report the request id to the server operator.");
                let Ending::Complete(capped) =
                    self.ending(Outcome::Result(fail(self.site(), err, self.request_id, Origin::Fault, None)))
                else {
                    return false;
                };
                record.complete(capped, now)
            }
            Ending::Ask { requests, state } => record.ask(requests.clone(), state.clone(), now),
        }
    }

    /// The call goes on as a task: the record is written (with the outcome, when the
    /// handler has ended), then `CreateTaskResult` answers the call and the rest runs here in
    /// the background.
    async fn begin(self: Arc<Self>, ended: Option<Outcome>, running: Option<Running>) -> Result<Reply, RpcError> {
        let settings = &self.shared.tasks.settings;
        let now = now_ms();
        let mut record = Record::new(Seed {
            id: tasks::new_id(),
            owner: principal::binding(self.channel.principal()),
            tool: self.tool.spec.name,
            request_id: self.request_id,
            runner: &self.shared.tasks.replica,
            now,
            ttl_ms: millis(settings.ttl),
            poll_ms: millis(settings.poll),
            lease_ms: millis(settings.lease),
        });
        if let Some(message) = self.hook.take_status() {
            record.progress(message, now);
        }
        // The envelope of the handler's outcome, read in this poll, for the hooks' `after`.
        let mut envelope = None;
        if let Some(outcome) = ended {
            envelope = outcome.answer().and_then(observe::task_envelope);
            let ending = self.ending(outcome);
            self.apply(&mut record, &ending, now);
        }
        // A slot for as long as it runs here; past the caps the call is refused, never queued.
        let slot = if record.is_terminal() {
            None
        } else {
            match self.shared.tasks.reserve(&record.owner) {
                Ok(slot) => Some(slot),
                Err(full) => {
                    self.stop.cancel();
                    drop(running);
                    return Ok(Reply::Complete(self.busy(&full)));
                }
            }
        };
        // Durable before the answer: a `tasks/get` on any replica finds it once the client
        // has the id. (Ids are 128 random bits: a taken one is only ever a broken source.)
        let mut written = Ok(false);
        for _ in 0..3 {
            written = self.shared.tasks.book.create(&record, now).await;
            if !matches!(written, Ok(false)) {
                break;
            }
            record.id = tasks::new_id();
        }
        if !matches!(written, Ok(true)) {
            self.stop.cancel();
            drop(running);
            let err = ToolError::service_unavailable(
                "The server could not start this call as a task: its state store is unavailable.",
            )
            .reason("state_store_unavailable")
            .retryable(true)
            .hint(
                "Retry the call in a few seconds; if it keeps failing, report the request id to the server operator.",
            );
            let err = match written {
                Err(e) => err.with_source(e),
                Ok(_) => err,
            };
            return Ok(Reply::Complete(fail(self.site(), err, self.request_id, Origin::Fault, None)));
        }
        tracing::info!(target: "mcp_runtime::call", request_id = %self.request_id, tool = self.tool.spec.name, task = %record.id, status = ?record.status, "the call goes on as a task");
        let created = record.task();
        if record.is_terminal() {
            self.ended(&record, envelope);
        } else {
            // The work goes on in a span of its own, linked to this call's.
            let span = span::task(self.tool.spec.name, &record.id, &Span::current());
            tokio::spawn(Arc::clone(&self).drive(record, running, slot).instrument(span));
        }
        Ok(Reply::Task(created))
    }

    /// The refusal of a call that would go on as a task past the caps: retryable.
    fn busy(&self, full: &tasks::Full) -> CallToolResult {
        let message = match full {
            tasks::Full::Replica(n) => {
                format!("Server busy: {n} tasks are running here, the most this server runs at once.")
            }
            tasks::Full::Caller(n) => {
                format!("Server busy: you have {n} tasks running, the most one caller may run at once.")
            }
        };
        let err = ToolError::new(ErrorCode::RateLimited, message)
            .reason("server_busy")
            .retryable(true)
            .hint("Wait for a running task to finish (poll it with tasks/get), then call this tool again.");
        fail(self.site(), err, self.request_id, Origin::Refusal, None)
    }

    /// Drives task `created` on this replica until it ends (see the module's documentation),
    /// then runs the hooks' `after` of its call with how it ended.
    async fn drive(self: Arc<Self>, created: Record, running: Option<Running>, slot: Option<tasks::Slot>) {
        // Held until the task ends here.
        let _slot = slot;
        let (last, envelope) = self.run_to_end(&created.id, running).await;
        // Gone, or never written past its TTL: it reads as expired.
        let last = last.filter(Record::is_terminal).unwrap_or_else(|| {
            let mut expired = created.clone();
            expired.fail(created.expired(), now_ms());
            expired
        });
        self.ended(&last, envelope);
    }

    /// Task `id` until it ends here: its last record (`None` when it was gone or could not be
    /// written), and the envelope of the handler's last outcome.
    async fn run_to_end(self: &Arc<Self>, id: &str, mut running: Option<Running>) -> (Option<Record>, Option<Value>) {
        let mut last: Option<Record> = None;
        let mut envelope = None;
        let tasks = &self.shared.tasks;
        let registration = tasks.register(id);
        let lease = millis(tasks.settings.lease);
        let mut tick = tokio::time::interval((tasks.settings.lease / 3).min(Duration::from_secs(1)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        // Set when the handler must stop (a cancel, or the task ended elsewhere): by then it
        // is dropped; `cancelled` when a client's cancel stopped it.
        let mut stopping: Option<tokio::time::Instant> = None;
        let mut cancelled = false;
        let mut status = StatusPace::default();
        loop {
            let grace = stopping.unwrap_or_else(tokio::time::Instant::now);
            tokio::select! {
                biased;
                ran = next(running.as_mut()) => {
                    running = None;
                    if stopping.is_some() {
                        break;
                    }
                    let outcome = self.outcome(ran);
                    envelope = outcome.answer().and_then(|answer| observe::task_answered(&self.shared.observer, &Span::current(), answer));
                    let ending = self.ending(outcome);
                    match self.write(id, |r, at| self.apply(r, &ending, at)).await {
                        Some(record) if !record.is_terminal() => {}
                        written => {
                            last = written;
                            break;
                        }
                    }
                }
                () = tokio::time::sleep_until(grace), if stopping.is_some() && running.is_some() => {
                    tracing::debug!(target: "mcp_runtime::tasks", task = %id, "the handler did not stop within the cancellation grace; dropped");
                    drop(running.take());
                    break;
                }
                () = registration.wake.notified() => {}
                () = self.hook.progressed(), if status.due.is_none() && running.is_some() => {
                    status.reported();
                    continue;
                }
                () = sleep_until(status.due), if status.due.is_some() => {}
                _ = tick.tick() => {}
            }
            let message = status.take(&self.hook);
            let mut progressed = false;
            // What the record says now: renew the lease when a third of it is left (or it
            // lapsed while the store did not answer: this runner is alive, so it never reads
            // its own task lost), end the task past its TTL, stop for a cancel, run the
            // handler again when every request was answered.
            let read = tasks
                .book
                .change(id, now_ms, |r, at| {
                    let settled = r.expire(at);
                    let renewed = r.lease_until.saturating_sub(at) < lease / 3 * 2 && r.renew(at + lease);
                    progressed = message.clone().is_some_and(|message| r.progress(message, at));
                    settled || renewed || progressed
                })
                .await;
            if progressed {
                tasks.changed(id);
            }
            let record = match read {
                Ok(Some(record)) => record,
                Ok(None) => {
                    tracing::warn!(target: "mcp_runtime::tasks", task = %id, "the task's record is gone (purged); its handler stops");
                    break;
                }
                Err(e) => {
                    tracing::warn!(target: "mcp_runtime::tasks", task = %id, error = %e, "cannot read the task's record; trying again");
                    continue;
                }
            };
            if record.is_terminal() {
                span::task_status(&Span::current(), record.status.as_str());
                let stop = running.is_none() || cancelled;
                if !stop && stopping.is_none() {
                    // Ended elsewhere (its TTL, a lapsed lease): the handler stops.
                    tasks.changed(id);
                    self.stop.cancel();
                    stopping = Some(tokio::time::Instant::now() + self.shared.options.cancel_grace);
                }
                last = Some(record);
                if stop {
                    break;
                }
                continue;
            }
            if record.cancel && running.is_some() && stopping.is_none() {
                tracing::debug!(target: "mcp_runtime::tasks", task = %id, "cancelled by the client: the handler is told");
                self.stop.cancel();
                cancelled = true;
                stopping = Some(tokio::time::Instant::now() + self.shared.options.cancel_grace);
                continue;
            }
            if running.is_none() && record.ready {
                running = self.resume(id).await;
            }
        }
        if cancelled && let Some(record) = self.write(id, Record::cancelled).await {
            last = Some(record);
        }
        (last, envelope)
    }

    /// The task ended as `record` says: the hooks' `after` of its call, with that outcome (the
    /// result as a synchronous call would have been answered, `envelope` the handler's
    /// outcome's; the failure; or cancelled), timed from the request.
    fn ended(&self, record: &Record, envelope: Option<Value>) {
        let hooks = &self.shared.observer.hooks;
        if hooks.is_empty() {
            return;
        }
        let (result, error);
        let answer = match record.status {
            Status::Completed => {
                result = record.result.as_ref().map(tool_result).unwrap_or_default();
                Answer::Tool(&result)
            }
            Status::Failed => {
                error = rpc_error(record.error.as_ref().unwrap_or(&Value::Null));
                Answer::Error(&error)
            }
            _ => Answer::Cancelled,
        };
        let envelope = match answer {
            Answer::Tool(result) if result.is_error == Some(true) => {
                envelope.or_else(|| result.structured_content.as_ref()?.get("error").cloned())
            }
            _ => None,
        };
        let arguments = hooks.wants_arguments().then_some(&*self.args);
        let request = HookRequest::new(
            Tool::METHOD,
            self.tool.spec.name,
            arguments,
            &self.channel,
            &self.client,
            &self.shared.observer.stores,
        );
        hooks.after(&request, &hooks::Outcome::new(answer, envelope.as_ref(), self.started.elapsed()));
    }

    /// Task `id`'s handler run again with the answers to every request it asked, once its
    /// record has them.
    async fn resume(self: &Arc<Self>, id: &str) -> Option<Running> {
        let mut taken = None;
        let resumed = self
            .shared
            .tasks
            .book
            .change(id, now_ms, |r, _| {
                taken = r.resume();
                taken.is_some()
            })
            .await;
        let (Ok(Some(_)), Some((answers, state))) = (resumed, taken) else { return None };
        if answers.is_empty() {
            tokio::time::sleep(STATE_ONLY_PACING).await;
        }
        tracing::debug!(target: "mcp_runtime::tasks", task = %id, answers = answers.len(), "every request answered: the handler runs again");
        Some(self.run(ask::collected(&self.client, answers, state)))
    }

    /// Writes a change to task `id` (retrying while the store does not answer, until the
    /// task's TTL), and tells every replica when it changed: the record as written, `None`
    /// when it is gone or the store never answered. A status it leaves terminal is the task
    /// span's last.
    async fn write(&self, id: &str, mut change: impl FnMut(&mut Record, u64) -> bool) -> Option<Record> {
        let tasks = &self.shared.tasks;
        let give_up = tokio::time::Instant::now() + tasks.settings.ttl;
        loop {
            let mut changed = false;
            match tasks
                .book
                .change(id, now_ms, |r, at| {
                    changed = change(r, at);
                    changed
                })
                .await
            {
                Ok(Some(record)) => {
                    if changed {
                        tasks.changed(id);
                    }
                    if record.is_terminal() {
                        span::task_status(&Span::current(), record.status.as_str());
                    }
                    return Some(record);
                }
                Ok(None) => return None,
                Err(e) if tokio::time::Instant::now() < give_up => {
                    tracing::warn!(target: "mcp_runtime::tasks", task = id, error = %e, "cannot write the task's outcome; trying again");
                    tokio::time::sleep(STORE_RETRY).await;
                }
                Err(e) => {
                    tracing::error!(target: "mcp_runtime::tasks", task = id, error = %e, "gave up writing the task's outcome: the store did not answer until its TTL");
                    return None;
                }
            }
        }
    }
}

/// When a task's latest progress is written as its status message: at once for the first
/// report, then at most every [`STATUS_EVERY`].
#[derive(Default)]
struct StatusPace {
    /// When the pending report is to be written.
    due: Option<tokio::time::Instant>,
    written: Option<tokio::time::Instant>,
}

impl StatusPace {
    /// The handler reported progress.
    fn reported(&mut self) {
        let now = tokio::time::Instant::now();
        self.due = Some(self.written.map_or(now, |at| (at + STATUS_EVERY).max(now)));
    }

    /// The message to write now, if one is due.
    fn take(&mut self, hook: &TaskHook) -> Option<String> {
        let now = tokio::time::Instant::now();
        if self.due.is_none_or(|due| due > now) {
            return None;
        }
        self.due = None;
        self.written = Some(now);
        hook.take_status()
    }
}

/// Sleeps until `due`; never resolves without one.
async fn sleep_until(due: Option<tokio::time::Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due).await,
        None => std::future::pending().await,
    }
}

/// The handler's run, when there is one; never resolves otherwise.
async fn next(running: Option<&mut Running>) -> Ran {
    match running {
        Some(running) => running.await,
        None => std::future::pending().await,
    }
}

/// A completed task's result as the hooks see it: the `CallToolResult` a synchronous call
/// would have been answered with (its `_meta` without the server's name, which the record
/// keeps as the wire shows it).
fn tool_result(rendered: &Value) -> CallToolResult {
    let mut result = CallToolResult::deserialize(rendered).unwrap_or_default();
    if let Some(meta) = &mut result.meta {
        meta.remove(SERVER_INFO_KEY);
        if meta.is_empty() {
            result.meta = None;
        }
    }
    result
}

/// A failed task's JSON-RPC error, from the record's `{code, message, data}`.
fn rpc_error(error: &Value) -> RpcError {
    RpcError {
        code: error.get("code").and_then(Value::as_i64).and_then(|c| i32::try_from(c).ok()).unwrap_or(-32603),
        message: error.get("message").and_then(Value::as_str).unwrap_or("Task failed.").to_owned(),
        data: error.get("data").cloned(),
    }
}
