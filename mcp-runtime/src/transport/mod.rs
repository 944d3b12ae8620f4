//! Bytes in and out, knowing nothing of tools or eras: stdio (`stdio`), Streamable HTTP
//! (`http`, feature `http`), an in-process connection (`in_process`), and the flags that pick
//! one (`args`).

pub(crate) mod args;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod in_process;
pub(crate) mod stdio;
pub(crate) mod test_client;

/// Exports what the telemetry pipeline holds (feature `otel`; nothing without a pipeline),
/// then writes what the line writers hold (the stderr logs, `Audit`'s lines: `rpc::lines`,
/// within 500 ms), when a server stops serving: a stdio server at EOF loses no span and no
/// record. The export waits at most `grace` (`ServerBuilder::otel_flush_grace`): a collector
/// that does not answer cannot hold the exit.
pub(crate) async fn flush_telemetry(grace: std::time::Duration) {
    #[cfg(feature = "otel")]
    if crate::observe::export::current().is_some() {
        // The SDK's threads export; a thread of ours waits for them. Not the blocking pool:
        // a runtime waits for its blocking tasks when it is dropped, so a flush stuck on a
        // stalled collector would hold the process past the grace.
        let (done, flushed) = tokio::sync::oneshot::channel();
        let waiting = std::thread::Builder::new().name("mcp-otel-flush".into()).spawn(move || {
            crate::observe::export::flush();
            let _ = done.send(());
        });
        if waiting.is_ok() && tokio::time::timeout(grace, flushed).await.is_err() {
            tracing::warn!(target: "mcp_runtime::otel", ?grace, "the collector did not take the last spans and metrics within the flush grace; they are lost (ServerBuilder::otel_flush_grace)");
        }
    }
    if crate::rpc::lines::waiting() {
        let _ = tokio::task::spawn_blocking(|| crate::rpc::lines::flush_all(LINES_FLUSH)).await;
    }
    #[cfg(not(feature = "otel"))]
    let _ = grace;
}

/// How long a server that stops waits for its line writers (a stderr nobody reads is not
/// waited for longer).
const LINES_FLUSH: std::time::Duration = std::time::Duration::from_millis(500);

/// How a server stops: after the HTTP drain delay (SIGTERM, or the caller's shutdown
/// future), or at once (SIGINT: a person at a terminal). Over stdio both end it as EOF would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    Drain,
    Now,
}

/// SIGTERM (drain first) or SIGINT (stop now): what ends `serve_stdio` and `serve_http`.
/// The handlers are installed when this is called, not when the future is first polled: a
/// server that has said it serves drains on a SIGTERM sent the moment after, instead of
/// dying of it (the signal's default) or missing it.
pub(crate) fn stop_signal() -> impl std::future::Future<Output = Stop> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (interrupt, terminate) = (signal(SignalKind::interrupt()), signal(SignalKind::terminate()));
        // A signal whose handler could not be installed never comes.
        let arrives = |signal: std::io::Result<tokio::signal::unix::Signal>| async move {
            match signal {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(_) => std::future::pending().await,
            }
        };
        async move {
            tokio::select! {
                () = arrives(interrupt) => Stop::Now,
                () = arrives(terminate) => Stop::Drain,
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
        Stop::Now
    }
}
