//! `fixture-server [--http <addr> [--stateless]]`: the fixture tools over stdio, or over
//! Streamable HTTP at `http://<addr>/mcp` (with sessions, or without: `--stateless`).
//!
//! Environment variables:
//! - `FIXTURE_STRICT_RESOLUTION=1`: strict resolution (unknown and disabled tools become
//!   JSON-RPC errors);
//! - `FIXTURE_STRUCTURED_ERRORS=always`: `structuredContent.error` on every error result,
//!   also for tools with an output schema (any other value, or unset: the default);
//! - `FIXTURE_LIST_FAILURES=off`: `tools/list` without the declared failure modes in each
//!   tool's `_meta` (`list_failures(false)`);
//! - `FIXTURE_TOOL_FAILURE_META=1`: every `isError` result also carries
//!   `_meta["io.modelcontextprotocol/toolFailure"]` (`tool_failure_meta`, the draft SEP-3313);
//!   `FIXTURE_RATE_LIMITED_CODE=1`: a rate-limit refusal that is a protocol error has code
//!   `-32023` (`rate_limited_code`, the draft SEP-3304);
//! - `FIXTURE_MAX_IN_FLIGHT=<calls>`, `FIXTURE_MAX_QUEUED_BYTES=<bytes>`,
//!   `FIXTURE_DEFAULT_TIMEOUT_MS=<ms>`, `FIXTURE_ASK_TIMEOUT_MS=<ms>`: the server limits of
//!   the same names;
//! - `FIXTURE_SESSION_IDLE_MS=<ms>`, `FIXTURE_MAX_SESSIONS=<n>` (`http_sessions`),
//!   `FIXTURE_MAX_SESSIONS_PER_CLIENT=<n>`, `FIXTURE_HTTP_HEADER_TIMEOUT_MS=<ms>`,
//!   `FIXTURE_HTTP_BODY_TIMEOUT_MS=<ms>`: the HTTP limits of those names;
//! - `FIXTURE_DRAIN_DELAY_MS=<ms>` (`drain_delay`: after SIGTERM, readiness 503 and
//!   `Connection: close` for that long before the server stops accepting; **0 when unset**
//!   here, so that tests that stop the fixture do not wait, where the runtime's default is
//!   5 s) and `FIXTURE_SHUTDOWN_GRACE_MS=<ms>` (`shutdown_grace`: then how long accepted
//!   requests and running tasks may finish before the tasks still running are released as
//!   `failed`). The probes are at `/healthz` and `/readyz`.
//! - `FIXTURE_STATE_STORE=<url>`: the state store (`memory:`, the default, `redis://host:port`,
//!   `rediss://host:port`, or the `redis://` URLs of a Redis Cluster's nodes separated by
//!   commas), shared by every replica given the same URL; with Redis, tasks live there too
//!   and events (list changes, task changes) reach every replica. `FIXTURE_REDIS_CA=<PEM
//!   file>`: a `rediss://` server's certificate is checked against that CA instead of the
//!   system's roots;
//! - `FIXTURE_TASK_LEASE_MS=<ms>`, `FIXTURE_TASK_TTL_MS=<ms>`: how long a replica vouches
//!   for a task it runs between renewals, and how long a task lives;
//! - `FIXTURE_REQUEST_STATE_KEY=<key>`: the key that seals `requestState` (at least 32
//!   bytes; the same on every replica). Without it, a random key of this process.
//! - `FIXTURE_AUTH_JWKS_URL`, `FIXTURE_AUTH_ISSUER`, `FIXTURE_AUTH_AUDIENCE` (all three):
//!   over HTTP, every request needs a bearer JWT signed by a key of that JWKS, issued by that
//!   issuer for that audience (the resource's URL, `http://<addr>/mcp`);
//!   `FIXTURE_AUTH_SCOPES=a,b` lists the `scopes_supported` of the protected resource
//!   metadata.
//! - `FIXTURE_PRINCIPAL_HEADER=1` (HTTP, without the `FIXTURE_AUTH_*` variables): the
//!   caller's subject and scopes are taken from `X-Test-Subject` and `X-Test-Scopes`
//!   (space-separated) by a middleware of this binary, which sets the request's `Principal`
//!   the way an application's own authentication does; a request without `X-Test-Subject`
//!   is from the local principal. For checks that act as several principals without minting
//!   tokens; it exists in this fixture only.
//! - `FIXTURE_LOCAL_SCOPES="a b"` (space-separated): the local principal, the caller of
//!   every request where no authorization is configured (stdio, HTTP without the
//!   `FIXTURE_AUTH_*` variables), holds those scopes only (`local_principal`); unset, it
//!   holds every scope.
//! - `OTEL_EXPORTER_OTLP_ENDPOINT` and the other standard `OTEL_*` variables: spans and
//!   metrics exported over OTLP/HTTP (`ServerBuilder::otel`), over TLS to an `https://` one
//!   (feature `otel-tls`, `OTEL_EXPORTER_OTLP_CERTIFICATE`); without an endpoint, nothing.
//! - `FIXTURE_RATE_LIMIT=<n>/s` (or `/min`, `/h`): the rate-limit hook, per principal, else
//!   per client address, else per connection; shared by the replicas through the store when
//!   `FIXTURE_STATE_STORE` is set; a 2025 `initialize` over HTTP (a new session) spends a call of it.
//! - `FIXTURE_AUDIT=stderr`: the audit hook, one JSON line per call on stderr.
//! - `FIXTURE_REPAIR=0`: no input repairs (`repair_inputs(false)`): arguments that fail a
//!   tool's input schema are refused as sent.

/// `FIXTURE_STATE_STORE`, with `FIXTURE_REDIS_CA` for a `rediss://` Redis behind a private CA.
fn state_store(builder: mcp_runtime::ServerBuilder) -> mcp_runtime::ServerBuilder {
    let Ok(url) = std::env::var("FIXTURE_STATE_STORE") else { return builder };
    match std::env::var_os("FIXTURE_REDIS_CA") {
        Some(ca) => match mcp_tests::redis::store(&url, Some(std::path::Path::new(&ca))) {
            Ok(store) => builder.state_store(store),
            Err(e) => {
                eprintln!("fixture-server: FIXTURE_STATE_STORE with FIXTURE_REDIS_CA: {e}");
                std::process::exit(1);
            }
        },
        None => builder.state_store_url(&url),
    }
}

fn number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    let parsed = value.parse().ok();
    if parsed.is_none() {
        eprintln!("fixture-server: {name}={value:?} is not a whole number; ignored");
    }
    parsed
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let args = match mcp_runtime::ServeArgs::parse(std::env::args_os().skip(1)) {
        Ok(args) if args.rest.is_empty() => args,
        Ok(args) => {
            eprintln!(
                "fixture-server: unexpected argument {:?}; usage: fixture-server [--http <addr> [--stateless]]",
                args.rest[0]
            );
            std::process::exit(2);
        }
        Err(e) => {
            eprintln!("fixture-server: {e}");
            std::process::exit(2);
        }
    };
    let strict = std::env::var("FIXTURE_STRICT_RESOLUTION").is_ok_and(|v| v == "1");
    // `.otel()` installs the stderr logging too (and exports when OTEL_* says where).
    let mut builder = args
        .configure(mcp_tests::fixture::builder(strict))
        .otel()
        .structured_errors_always(std::env::var("FIXTURE_STRUCTURED_ERRORS").is_ok_and(|v| v == "always"))
        .list_failures(!std::env::var("FIXTURE_LIST_FAILURES").is_ok_and(|v| v == "off"))
        .tool_failure_meta(std::env::var("FIXTURE_TOOL_FAILURE_META").is_ok_and(|v| v == "1"))
        .rate_limited_code(std::env::var("FIXTURE_RATE_LIMITED_CODE").is_ok_and(|v| v == "1"))
        .repair_inputs(!std::env::var("FIXTURE_REPAIR").is_ok_and(|v| v == "0"));
    if let Some(n) = number("FIXTURE_MAX_IN_FLIGHT") {
        builder = builder.max_in_flight(usize::try_from(n).unwrap_or(usize::MAX));
    }
    if let Some(n) = number("FIXTURE_MAX_QUEUED_BYTES") {
        builder = builder.max_queued_bytes(usize::try_from(n).unwrap_or(usize::MAX));
    }
    if let Some(ms) = number("FIXTURE_DEFAULT_TIMEOUT_MS") {
        builder = builder.default_timeout(std::time::Duration::from_millis(ms));
    }
    if let Some(ms) = number("FIXTURE_TASK_LEASE_MS") {
        builder = builder.task_lease(std::time::Duration::from_millis(ms));
    }
    if let Some(ms) = number("FIXTURE_TASK_TTL_MS") {
        builder = builder.task_ttl(std::time::Duration::from_millis(ms));
    }
    if let Some(ms) = number("FIXTURE_ASK_TIMEOUT_MS") {
        builder = builder.ask_timeout(std::time::Duration::from_millis(ms));
    }
    let (idle, max) = (number("FIXTURE_SESSION_IDLE_MS"), number("FIXTURE_MAX_SESSIONS"));
    if idle.is_some() || max.is_some() {
        builder = builder.http_sessions(
            std::time::Duration::from_millis(idle.unwrap_or(30 * 60 * 1000)),
            max.map_or(10_000, |n| usize::try_from(n).unwrap_or(usize::MAX)),
        );
    }
    if let Some(n) = number("FIXTURE_MAX_SESSIONS_PER_CLIENT") {
        builder = builder.max_sessions_per_client(usize::try_from(n).unwrap_or(usize::MAX));
    }
    if let Some(ms) = number("FIXTURE_HTTP_HEADER_TIMEOUT_MS") {
        builder = builder.http_header_timeout(std::time::Duration::from_millis(ms));
    }
    if let Some(ms) = number("FIXTURE_HTTP_BODY_TIMEOUT_MS") {
        builder = builder.http_body_timeout(std::time::Duration::from_millis(ms));
    }
    if let Ok(scopes) = std::env::var("FIXTURE_LOCAL_SCOPES") {
        builder = builder.local_principal(mcp_runtime::Principal::default().with_scopes(scopes.split_whitespace()));
    }
    builder = builder.drain_delay(std::time::Duration::from_millis(number("FIXTURE_DRAIN_DELAY_MS").unwrap_or(0)));
    if let Some(ms) = number("FIXTURE_SHUTDOWN_GRACE_MS") {
        builder = builder.shutdown_grace(std::time::Duration::from_millis(ms));
    }
    if let Some(auth) = authorization() {
        builder = builder.authorization(auth);
    }
    builder = state_store(builder);
    if let Ok(key) = std::env::var("FIXTURE_REQUEST_STATE_KEY") {
        builder = builder.request_state_key("FIXTURE_REQUEST_STATE_KEY", key);
    }
    // The audit first: its record of each call is written once every other hook is done.
    match std::env::var("FIXTURE_AUDIT").as_deref() {
        Ok("stderr") => builder = builder.hook(mcp_runtime::Audit::json_lines(std::io::stderr())),
        Ok(other) => eprintln!("fixture-server: FIXTURE_AUDIT={other:?}: only `stderr` is known; no audit"),
        Err(_) => {}
    }
    if let Ok(limit) = std::env::var("FIXTURE_RATE_LIMIT") {
        match limit.parse::<mcp_runtime::RateLimit>() {
            Ok(limit) => builder = builder.hook(limit),
            Err(e) => eprintln!("fixture-server: FIXTURE_RATE_LIMIT: {e}; no rate limit"),
        }
    }
    // An invalid skills directory stops the server here, the file and the reason on stderr.
    builder = builder.skills_dir(skills_dir());
    let server = match builder.build() {
        Ok(server) => server,
        Err(e) => {
            eprintln!("fixture-server: {e}");
            std::process::exit(1);
        }
    };
    match &args.http {
        Some(addr) if std::env::var("FIXTURE_PRINCIPAL_HEADER").is_ok_and(|v| v == "1") => {
            server
                .serve_http_with(addr.as_str(), |mcp| mcp.layer(axum::middleware::from_fn(principal_from_headers)))
                .await
        }
        _ => args.serve(server).await,
    }
}

/// The skills served: the fixture's own directory (tests/skills: two skills, one with a file
/// in a subfolder), or the one `FIXTURE_SKILLS_DIR` names.
fn skills_dir() -> std::path::PathBuf {
    std::env::var_os("FIXTURE_SKILLS_DIR")
        .map_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("skills"), std::path::PathBuf::from)
}

/// `FIXTURE_PRINCIPAL_HEADER=1`: the caller named by `X-Test-Subject`, with the scopes of
/// `X-Test-Scopes`, as the request's `Principal`.
async fn principal_from_headers(
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let principal = {
        let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        header("x-test-subject").map(|subject| {
            let scopes = header("x-test-scopes").unwrap_or_default();
            mcp_runtime::Principal::new(subject).with_scopes(scopes.split_whitespace())
        })
    };
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    next.run(request).await
}

/// The token check the `FIXTURE_AUTH_*` variables ask for, when all three required ones are set.
fn authorization() -> Option<mcp_runtime::Authorization> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let (jwks, issuer, audience) =
        (var("FIXTURE_AUTH_JWKS_URL"), var("FIXTURE_AUTH_ISSUER"), var("FIXTURE_AUTH_AUDIENCE"));
    let (Some(jwks), Some(issuer), Some(audience)) = (jwks, issuer, audience) else {
        if var("FIXTURE_AUTH_JWKS_URL").is_some()
            || var("FIXTURE_AUTH_ISSUER").is_some()
            || var("FIXTURE_AUTH_AUDIENCE").is_some()
        {
            eprintln!(
                "fixture-server: authorization needs FIXTURE_AUTH_JWKS_URL, FIXTURE_AUTH_ISSUER and FIXTURE_AUTH_AUDIENCE; serving without it"
            );
        }
        return None;
    };
    let scopes: Vec<String> = var("FIXTURE_AUTH_SCOPES")
        .map(|s| s.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
        .unwrap_or_default();
    let jwt = mcp_runtime::JwtValidator::new(jwks, issuer, audience);
    Some(mcp_runtime::Authorization::jwt(jwt).scopes_supported(scopes))
}
