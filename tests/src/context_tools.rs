//! Fixture tools that talk back through `Ctx`: client logging, `tracing` forwarding,
//! progress, cancellation and the client's declared identity. Served by `fixture-server`.

use mcp_runtime::prelude::*;

/// Works through `steps` steps, logging at every level and reporting progress.
#[tool]
pub(crate) fn work(
    ctx: &Ctx,
    /// How many steps (at least 1).
    #[schemars(range(min = 1))]
    steps: u32,
) -> String {
    ctx.debug("debug from work");
    ctx.info("info from work");
    ctx.notice("notice from work");
    ctx.warning("warning from work");
    ctx.error("error from work");
    tracing::info!(steps, "tracing event from work");
    let total = f64::from(steps);
    for step in 1..=steps {
        ctx.progress(f64::from(step), Some(total), Some(&format!("step {step} of {steps}")));
    }
    // Not increasing: must be dropped.
    ctx.progress(total, Some(total), Some("again"));
    format!("done {steps}")
}

/// What the client declared about itself, and who its access token says is calling.
#[derive(Serialize, JsonSchema)]
pub(crate) struct WhoAmI {
    /// The client's name.
    name: Option<String>,
    /// The client's version.
    version: Option<String>,
    /// The sorted top-level keys of the client's declared capabilities.
    capabilities: Vec<String>,
    /// The token's subject (`null` without authorization).
    subject: Option<String>,
    /// The OAuth client the token was issued to (`null` without authorization).
    client_id: Option<String>,
    /// The scopes the token grants (`null` without authorization).
    scopes: Option<Vec<String>>,
    /// The token's tenant (`null` without authorization or without a tenant claim).
    tenant: Option<String>,
}

/// Returns the client's declared name, version and capability keys, and the subject, client
/// id, scopes and tenant of its access token.
#[tool]
pub(crate) fn whoami(ctx: &Ctx) -> WhoAmI {
    let info = ctx.client_info();
    let text = |key: &str| info.and_then(|i| i.get(key)).and_then(|v| v.as_str()).map(str::to_owned);
    let mut capabilities: Vec<String> =
        ctx.client_capabilities().and_then(|c| c.as_object()).map(|c| c.keys().cloned().collect()).unwrap_or_default();
    capabilities.sort();
    let principal = ctx.principal();
    WhoAmI {
        name: text("name"),
        version: text("version"),
        capabilities,
        subject: principal.and_then(|p| p.subject()).map(str::to_owned),
        client_id: principal.and_then(|p| p.client_id()).map(str::to_owned),
        scopes: principal.map(|p| p.scopes().to_vec()),
        tenant: principal.and_then(|p| p.tenant()).map(str::to_owned),
    }
}

/// What `purge_cache` did.
#[derive(Serialize, JsonSchema)]
pub(crate) struct Purged {
    /// Always `true`: the cache was purged.
    purged: bool,
}

/// Purges the server's cache; needs the `cache:purge` scope.
#[tool(scopes("cache:purge"))]
pub(crate) fn purge_cache() -> Purged {
    Purged { purged: true }
}

/// Waits until the client cancels the call, then cleans up.
#[tool]
pub(crate) async fn wait_cancel(ctx: &Ctx) -> String {
    // Tests wait for this line before they cancel, so that the call has surely started.
    eprintln!("waiting for a cancel: {}", ctx.request_id());
    ctx.cancelled().await;
    // Not sent: nothing more goes out for a cancelled request.
    ctx.progress(1.0, None, Some("cleaning up"));
    eprintln!("cleanup ran for {}", ctx.request_id());
    "cancelled".into()
}

/// Logs three ways while it runs: through `ctx`, through `tracing` in this crate (with a
/// `ToolError` whose source must not show), and through `tracing` under another crate's target
/// (as a dependency would). Only the first two reach the client.
#[tool]
pub(crate) fn log_sources(ctx: &Ctx) -> &'static str {
    ctx.info("ctx event");
    tracing::info!(target: "some_dependency::pool", "dependency event");
    // The source's `Debug` and `Display` both show the secret: neither may reach the client.
    let err = ToolError::internal("lookup failed").with_source(std::io::Error::other("secret source detail"));
    tracing::warn!(error = ?err, "author event");
    "logged"
}

/// Ends the HTTP response it rides on (over Streamable HTTP with sessions), then answers
/// 100 ms later: the client gets the answer by resuming the stream.
#[tool]
pub(crate) async fn pause_stream(ctx: &Ctx) -> &'static str {
    ctx.close_sse_stream();
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    "resumed"
}
