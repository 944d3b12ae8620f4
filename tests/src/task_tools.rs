//! Fixture tools that run as tasks (the `io.modelcontextprotocol/tasks` extension) for a
//! 2026-07-28 client that declared it, and inline for any other: `slow_job` (optional: it
//! asks to go on as a task) and `report` (required). Their names, arguments and texts are a
//! contract the task and replica tests rely on.

use std::time::Duration;

use mcp_runtime::prelude::*;

/// How long one of `slow_job`'s steps takes.
const STEP_MS: u64 = 100;

/// What `slow_job` did.
#[derive(Serialize, JsonSchema)]
pub(crate) struct JobDone {
    /// How long it worked, in milliseconds.
    done: u64,
    /// The user's answer to "Go on with the job?" (`outcome: "ask"` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    answer: Option<bool>,
}

/// How `slow_job` ends.
#[derive(Deserialize, JsonSchema, Clone, Copy, Default)]
#[serde(rename_all = "lowercase")]
pub(crate) enum JobOutcome {
    /// With `{"done": ms}`.
    #[default]
    Ok,
    /// With its declared failure `job_failed`.
    Declared,
    /// With a panic.
    Panic,
    /// It asks "Go on with the job?" (yes/no), then answers `{"done": ms, "answer": …}`.
    Ask,
}

/// The yes/no question `slow_job` asks.
#[derive(Deserialize, JsonSchema)]
pub(crate) struct GoOn {
    /// Go on with the job?
    go_on: bool,
}

/// Works for `ms` milliseconds (as a task, for a client that declared the tasks extension),
/// reporting `ctx.progress(step, total, "step N of M")` every 100 ms, then ends as `outcome`
/// says: `ok` (`{"done": ms}`), `declared` (the failure `job_failed`),
/// `panic`, or `ask` (asks a yes/no question, then `{"done": ms, "answer": …}`). Stops when
/// cancelled.
#[tool(task = "optional")]
#[errors(
    reason = "job_failed",
    code = ServiceUnavailable,
    retryable = true,
    when = "The job's worker failed before it finished.",
    recovery = "Call slow_job again with the same arguments; the job is safe to repeat."
)]
pub(crate) async fn slow_job(
    ctx: &Ctx<SlowJobError>,
    /// How long to work, in milliseconds.
    #[schemars(range(max = 600_000))]
    ms: u64,
    /// How to end (default `ok`).
    outcome: Option<JobOutcome>,
) -> Result<JobDone, ToolError> {
    // The round after the question: the answer is in.
    match ctx.inputs().form::<GoOn>("go_on") {
        Elicited::Accepted(GoOn { go_on }) => return Ok(JobDone { done: ms, answer: Some(go_on) }),
        Elicited::Declined | Elicited::Cancelled => return Ok(JobDone { done: ms, answer: Some(false) }),
        Elicited::Missing => {}
    }
    ctx.run_as_task();
    // Tests wait for this line to know the job runs on this replica.
    eprintln!("slow_job working: {}", ctx.request_id());
    // One step per 100 ms, each reported: `ctx.progress(step, total, "step N of M")`.
    // At most 6000 steps: `ms` is at most 600 000.
    let total = u32::try_from(ms.div_ceil(STEP_MS).max(1)).unwrap_or(u32::MAX);
    for step in 1..=total {
        let this = Duration::from_millis(ms.saturating_sub(u64::from(step - 1) * STEP_MS).min(STEP_MS));
        tokio::select! {
            () = tokio::time::sleep(this) => {}
            () = ctx.cancelled() => {
                eprintln!("slow_job cancelled: {}", ctx.request_id());
                return Err(ToolError::internal("slow_job was cancelled before it finished."));
            }
        }
        ctx.progress(f64::from(step), Some(f64::from(total)), Some(&format!("step {step} of {total}")));
    }
    // A span of its own, made once the call went on as a task: a child of the task's span.
    tracing::info_span!("slow_job.wrap_up", ms).in_scope(|| match outcome.unwrap_or_default() {
        JobOutcome::Ok => Ok(JobDone { done: ms, answer: None }),
        JobOutcome::Declared => Err(ctx.fail(SlowJobError::JobFailed)),
        JobOutcome::Panic => panic!("slow_job panicked on purpose"),
        JobOutcome::Ask => {
            Err(ctx.ask(Ask::new().elicit("go_on", Elicitation::form_for::<GoOn>("Go on with the job?"))))
        }
    })
}

/// The monthly report's size.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ReportDone {
    /// Pages written.
    pages: u32,
}

/// Builds the monthly report (about 200 ms). Always a task: a client must declare the
/// tasks extension to call it.
#[tool(task = "required")]
pub(crate) async fn report() -> ReportDone {
    tokio::time::sleep(Duration::from_millis(200)).await;
    ReportDone { pages: 3 }
}
