//! Logs: the server's own records go to stderr through `tracing` (stdout belongs to the
//! protocol); `ctx.log` records also go to the client as `notifications/message`.

use serde_json::Value;

use crate::context::LogLevel;

/// Installs a `tracing` subscriber that writes to stderr, at `info` and above unless
/// `RUST_LOG` says otherwise. Call it once at the start of `main`; it does nothing if a
/// subscriber is already installed.
pub fn init_stderr_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).with_ansi(false).try_init();
}

/// The stderr copy of a record a handler sent to the client.
pub(crate) fn stderr_record(level: LogLevel, tool: &str, request_id: &str, data: &Value) {
    macro_rules! record {
        ($level:expr) => {
            tracing::event!(target: "mcp_runtime::client_log", $level, request_id, logger = tool, mcp_level = ?level, "{}", data)
        };
    }
    match level {
        LogLevel::Debug => record!(tracing::Level::DEBUG),
        LogLevel::Info | LogLevel::Notice => record!(tracing::Level::INFO),
        LogLevel::Warning => record!(tracing::Level::WARN),
        LogLevel::Error | LogLevel::Critical | LogLevel::Alert | LogLevel::Emergency => record!(tracing::Level::ERROR),
    }
}
