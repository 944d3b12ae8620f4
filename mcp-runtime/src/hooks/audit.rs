//! `Audit`: one structured record per call (who, what, how it ended, why, how long) to a
//! sink of the author's. Arguments are left out unless asked for.

use std::fmt;
use std::io::Write;
use std::time::{Duration, SystemTime};

use serde::Serialize;
use serde_json::Value;

use crate::auth::principal::Principal;
use crate::hooks::{CallerKey, Hook, HookRequest, Outcome, OutcomeKind};
use crate::rpc::channel::Transport;
use crate::rpc::era::Era;
use crate::rpc::lines::Lines;

type Sink = dyn Fn(&AuditRecord<'_>) + Send + Sync;

/// A hook that hands one [`AuditRecord`] per call (tools, resources, prompts; also the calls
/// refused before their handler ran) to a sink of yours, once the call is answered.
///
/// Add it first, so that it sees what the hooks added after it refuse. Arguments are left
/// out of the records unless you ask for them ([`Audit::with_arguments`]): they may carry
/// what an audit log must not keep.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::{Audit, RateLimit};
///
/// # fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::builder("search", "1.0.0")
///     .hook(Audit::json_lines(std::io::stderr()))
///     .hook(RateLimit::per_second(5))
///     .build()?;
/// // Or any sink: a channel, a database writer, your logger.
/// let audit = Audit::new(|record: &mcp_runtime::AuditRecord<'_>| {
///     if record.outcome != "success" {
///         eprintln!("{} {} failed: {:?}", record.who, record.name, record.reason);
///     }
/// });
/// # let _ = (server, audit); Ok(()) }
/// ```
pub struct Audit {
    sink: Box<Sink>,
    arguments: bool,
}

impl fmt::Debug for Audit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Audit").field("arguments", &self.arguments).finish_non_exhaustive()
    }
}

impl Audit {
    /// Hands every record to `sink`, on the task that answered the call: keep it quick
    /// (send the record on a channel if writing it may wait).
    pub fn new(sink: impl Fn(&AuditRecord<'_>) + Send + Sync + 'static) -> Self {
        Audit { sink: Box::new(sink), arguments: false }
    }

    /// Writes every record as one line of JSON to `writer` (`std::io::stderr()`, a file).
    ///
    /// A thread of its own writes them, through a bounded queue (4096 records), as the
    /// server's logs are: a writer that blocks (a stderr pipe nobody reads, a stalled disk)
    /// never holds up a call. While the queue is full, records are dropped and counted; once
    /// the writer takes records again, a line `{"atMs":…,"droppedRecords":N}` says how many
    /// were lost. A failed write is dropped. What is queued is written when the server stops
    /// serving (within 500 ms).
    pub fn json_lines(writer: impl Write + Send + 'static) -> Self {
        let lines = Lines::new("mcp-audit", Box::new(writer), |dropped| {
            format!("{{\"atMs\":{},\"droppedRecords\":{dropped}}}\n", now_ms()).into_bytes()
        });
        Audit::new(move |record| {
            let mut line = serde_json::to_vec(record).unwrap_or_default();
            line.push(b'\n');
            lines.send(line);
        })
    }

    /// Puts each call's arguments in its record (default off).
    #[must_use]
    pub fn with_arguments(mut self, arguments: bool) -> Self {
        self.arguments = arguments;
        self
    }
}

impl Hook for Audit {
    fn after(&self, request: &HookRequest<'_>, outcome: &Outcome<'_>) {
        let principal = request.principal();
        let record = AuditRecord {
            at_ms: now_ms(),
            who: request.caller(),
            subject: principal.and_then(Principal::subject),
            client_id: principal.and_then(Principal::client_id),
            tenant: principal.and_then(Principal::tenant),
            method: request.method(),
            name: request.name(),
            era: match request.era() {
                Era::Modern => "2026-07-28",
                _ => "2025",
            },
            transport: request.transport(),
            outcome: match outcome.kind() {
                OutcomeKind::Success => "success",
                OutcomeKind::ToolError => "tool_error",
                OutcomeKind::RpcError => "rpc_error",
                OutcomeKind::InputRequired => "input_required",
                _ => "cancelled",
            },
            code: outcome.error_code(),
            reason: outcome.reason(),
            request_id: outcome.request_id(),
            duration: outcome.duration(),
            arguments: if self.arguments { request.arguments() } else { None },
        };
        (self.sink)(&record);
    }

    fn wants_arguments(&self) -> bool {
        self.arguments
    }
}

/// One call, as [`Audit`] records it. Serializes as one JSON object:
/// `{"atMs":…,"who":"principal …","subject":…,"method":"tools/call","name":"add",
/// "era":"2025","transport":"stdio","outcome":"tool_error","code":-32003,
/// "reason":"rate_limited","requestId":"…","durationMs":0.42}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AuditRecord<'a> {
    /// When the call was answered (a call that went on as a task: when the task ended), in
    /// milliseconds since the Unix epoch.
    pub at_ms: u64,
    /// Who called, as per-caller limits count ([`HookRequest::caller`]).
    #[serde(serialize_with = "display")]
    pub who: CallerKey,
    /// The principal's subject, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subject: Option<&'a str>,
    /// The principal's client id, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_id: Option<&'a str>,
    /// The principal's tenant, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tenant: Option<&'a str>,
    /// `tools/call`, `resources/read` or `prompts/get`.
    pub method: &'a str,
    /// The tool or prompt name, or the resource URI.
    pub name: &'a str,
    /// `2025` or `2026-07-28`.
    pub era: &'static str,
    /// How the request arrived.
    pub transport: Transport,
    /// `success`, `tool_error`, `rpc_error`, `input_required` or `cancelled`.
    pub outcome: &'static str,
    /// The failure's code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// The failure's declared reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// The envelope's request id (what the caller can quote).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<&'a str>,
    /// From the request to the answer (a call that went on as a task: to the task's end).
    #[serde(rename = "durationMs", serialize_with = "millis")]
    pub duration: Duration,
    /// The arguments, when [`Audit::with_arguments`] asked for them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<&'a Value>,
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn display<S: serde::Serializer>(value: &CallerKey, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

fn millis<S: serde::Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(value.as_secs_f64() * 1000.0)
}

impl fmt::Display for CallerKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallerKey::Principal(binding) => write!(f, "principal {binding}"),
            CallerKey::Address(ip) => write!(f, "address {ip}"),
            CallerKey::Connection(n) => write!(f, "connection {n}"),
            CallerKey::Unknown => f.write_str("unknown"),
        }
    }
}
