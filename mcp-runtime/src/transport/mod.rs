//! Bytes in and out, knowing nothing of tools or eras: stdio (`stdio`), Streamable HTTP
//! (`http`, feature `http`), an in-process connection (`in_process`), and the flags that pick
//! one (`args`).

pub(crate) mod args;
#[cfg(feature = "http")]
pub(crate) mod http;
pub(crate) mod in_process;
pub(crate) mod stdio;
pub(crate) mod test_client;

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
