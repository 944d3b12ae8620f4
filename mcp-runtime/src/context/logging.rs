//! Logs: the server's own records go to stderr through `tracing` (stdout belongs to the
//! protocol); `ctx.log` records also go to the client as `notifications/message`, and so do
//! `tracing` events emitted while a handler runs (the [`client_log_layer`]).

use std::cell::RefCell;
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use crate::rpc::channel::Channel;
use crate::rpc::era::{Client, LogLevel};
use crate::rpc::lines::Lines;
use crate::rpc::request_id::RequestId;

/// Installs the default `tracing` subscriber: records to stderr (at `info` and above unless
/// `RUST_LOG` says otherwise), and [`client_log_layer`] so that `tracing` events inside a
/// handler also reach the client. Call it once at the start of `main`; it does nothing if a
/// subscriber is already installed.
///
/// Records are written by a thread of their own through a bounded queue: a client that pipes
/// the server's stderr and never reads it cannot stop the server. While the queue is full,
/// records are dropped, and a line says how many once stderr drains.
pub fn init_stderr_logging() {
    if tracing_subscriber::registry().with(stderr_layer()).with(client_log_layer()).try_init().is_ok() {
        INSTALLED.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The target of the span of each request received (the OpenTelemetry conventions' `SERVER`
/// span): a subscriber enables them by it.
pub(crate) const REQUEST_SPAN_TARGET: &str = "mcp_runtime::request";

/// Set once [`init_stderr_logging`] installed the subscriber.
static INSTALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether [`init_stderr_logging`] installed the process's subscriber.
#[cfg(feature = "otel")]
pub(crate) fn installed_by_init() -> bool {
    INSTALLED.load(std::sync::atomic::Ordering::Relaxed)
}

/// The stderr layer of the default subscriber: records at `info` and above unless
/// `RUST_LOG` says otherwise, in [`CallFormat`]. The request spans of the OpenTelemetry
/// conventions (target `mcp_runtime::request`) are left out unless `RUST_LOG` names that
/// target: the call's scope already prints the request id, and a span per request would
/// cost every call.
pub(crate) fn stderr_layer<S>() -> impl Layer<S> + Send + Sync + 'static
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use tracing_subscriber::EnvFilter;
    let asked = std::env::var("RUST_LOG").ok();
    let mut filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    if !asked.is_some_and(|a| a.contains(REQUEST_SPAN_TARGET))
        && let Ok(off) = format!("{REQUEST_SPAN_TARGET}=off").parse()
    {
        filter = filter.add_directive(off);
    }
    tracing_subscriber::fmt::layer()
        .with_writer(|| Record(Vec::with_capacity(256)))
        .with_ansi(false)
        .event_format(CallFormat)
        .with_filter(filter)
}

/// The request id of the call whose handler is running on this thread, if any: for your own
/// log formatting (the default subscriber already prints it on every record of a call).
pub fn current_request_id() -> Option<RequestId> {
    CURRENT.with(|c| c.borrow().as_ref().map(|scope| scope.request_id))
}

/// `2026-11-29T20:31:03.083Z  INFO call{tool=work request_id=1FIJP-5LHO6}: target: message k=v`:
/// the default format, plus the call a record belongs to, read from the thread-local scope
/// (cheaper than a span per call, which costs on every call whether or not anything logs).
struct CallFormat;

impl<S, N> tracing_subscriber::fmt::FormatEvent<S, N> for CallFormat
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    N: for<'a> tracing_subscriber::fmt::FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &tracing_subscriber::fmt::FmtContext<'_, S, N>,
        mut writer: tracing_subscriber::fmt::format::Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        use tracing_subscriber::fmt::time::FormatTime;
        tracing_subscriber::fmt::time::SystemTime.format_time(&mut writer)?;
        write!(writer, " {:>5} ", event.metadata().level())?;
        CURRENT.with(|c| match c.borrow().as_ref() {
            Some(scope) => write!(writer, "call{{tool={} request_id={}}}: ", scope.tool, scope.request_id),
            None => Ok(()),
        })?;
        if let Some(scope) = ctx.event_scope() {
            for span in scope.from_root() {
                write!(writer, "{}: ", span.name())?;
            }
        }
        write!(writer, "{}: ", event.metadata().target())?;
        ctx.field_format().format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}

/// The stderr thread's queue (`rpc::lines`).
static STDERR: std::sync::OnceLock<Lines> = std::sync::OnceLock::new();

fn stderr_lines() -> &'static Lines {
    STDERR.get_or_init(|| {
        Lines::new("mcp-stderr", Box::new(std::io::stderr()), |dropped| {
            format!("[mcp-runtime] {dropped} log records dropped: stderr was not being read\n").into_bytes()
        })
    })
}

/// One formatted record, sent to the stderr thread when dropped.
struct Record(Vec<u8>);

impl std::io::Write for Record {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for Record {
    fn drop(&mut self) {
        stderr_lines().send(std::mem::take(&mut self.0));
    }
}

/// A `tracing` layer that forwards to a call's client, as `notifications/message` (`logger` =
/// the event's target), at or above the session's level, the events that the tool's own
/// crate raises while its handler runs: `tracing::info!(…)` in the tool and in the modules
/// of its crate it calls. Events of other crates (your dependencies, the runtime) never
/// reach the client; they go to stderr only. Add the layer to your own subscriber if you do
/// not use [`init_stderr_logging`]. Outside a handler it is disabled and costs one
/// thread-local read.
pub fn client_log_layer<S>() -> impl Layer<S> + Send + Sync + 'static
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    ClientLog.with_filter(tracing_subscriber::filter::filter_fn(|meta| {
        CURRENT.with(|c| c.borrow().as_ref().is_some_and(|scope| same_crate(meta.target(), scope.module)))
    }))
}

/// Whether a target (`crate::module`) is in the crate of `module`.
fn same_crate(target: &str, module: &str) -> bool {
    let krate = |path: &str| path.split("::").next().unwrap_or(path).to_owned();
    krate(target) == krate(module)
}

struct ClientLog;

impl<S: tracing::Subscriber> Layer<S> for ClientLog {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: tracing_subscriber::layer::Context<'_, S>) {
        let Some((channel, client)) =
            CURRENT.with(|c| c.borrow().as_ref().map(|scope| (Arc::clone(&scope.channel), scope.client.clone())))
        else {
            return;
        };
        let level = match *event.metadata().level() {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warning,
            tracing::Level::INFO => LogLevel::Info,
            tracing::Level::DEBUG | tracing::Level::TRACE => LogLevel::Debug,
        };
        if !channel.wants(&client, level) {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let data = if fields.rest.is_empty() {
            Value::String(fields.message)
        } else {
            let mut map = Map::new();
            map.insert("message".into(), Value::String(fields.message));
            map.extend(fields.rest);
            Value::Object(map)
        };
        channel.log(&client, level, event.metadata().target(), data);
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    rest: Map<String, Value>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            self.rest.insert(field.name().into(), Value::from(value));
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.rest.insert(field.name().into(), Value::from(value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            self.rest.insert(field.name().into(), Value::from(format!("{value:?}")));
        }
    }
}

/// The call a handler being polled belongs to.
#[derive(Clone)]
pub(crate) struct Scope {
    pub(crate) channel: Arc<Channel>,
    pub(crate) client: Client,
    pub(crate) tool: &'static str,
    /// Where the tool is defined (`module_path!()`).
    pub(crate) module: &'static str,
    pub(crate) request_id: RequestId,
}

thread_local! {
    /// The call whose handler is being polled on this thread, if any.
    static CURRENT: RefCell<Option<Scope>> = const { RefCell::new(None) };
}

/// Marks the call as current while the handler future is polled, so that a `tracing` event
/// inside the handler reaches its client and carries its request id.
pub(crate) struct InCall<F> {
    pub(crate) scope: Scope,
    pub(crate) inner: F,
}

impl<F: Future + Unpin> Future for InCall<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let previous = CURRENT.with(|c| c.replace(Some(this.scope.clone())));
        let _restore = Restore(previous);
        Pin::new(&mut this.inner).poll(cx)
    }
}

struct Restore(Option<Scope>);

impl Drop for Restore {
    fn drop(&mut self) {
        let previous = self.0.take();
        CURRENT.with(|c| *c.borrow_mut() = previous);
    }
}

/// The stderr copy of a record a handler sent to the client (the call's scope adds the
/// request id).
pub(crate) fn stderr_record(level: LogLevel, tool: &str, data: &Value) {
    macro_rules! record {
        ($level:expr) => {
            tracing::event!(target: "mcp_runtime::client_log", $level, logger = tool, mcp_level = ?level, "{}", data)
        };
    }
    match level {
        LogLevel::Debug => record!(tracing::Level::DEBUG),
        LogLevel::Info | LogLevel::Notice => record!(tracing::Level::INFO),
        LogLevel::Warning => record!(tracing::Level::WARN),
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => record!(tracing::Level::ERROR),
    }
}
