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
/// when a server stops serving: a stdio server at EOF loses no span.
#[cfg_attr(not(feature = "otel"), allow(clippy::unused_async))]
pub(crate) async fn flush_telemetry() {
    #[cfg(feature = "otel")]
    if crate::observe::export::current().is_some() {
        // The SDK's threads export; this one waits for them, off the runtime's threads.
        let _ = tokio::task::spawn_blocking(crate::observe::export::flush).await;
    }
}

/// SIGINT or SIGTERM: what ends `serve_stdio` and `serve_http` as EOF would.
pub(crate) async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}
