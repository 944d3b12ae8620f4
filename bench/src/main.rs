//! `add-server [--http <addr> [--stateless]]`: one tool, `add {a, b} → {sum}`, the tool the
//! reference servers of `compare.sh` (rmcp and a hand-written floor) serve, so that the
//! comparison is between servers doing the same work. Built with the default features (stdio
//! only); `--features http` for the HTTP comparison, `--features otel` to measure what the
//! OpenTelemetry export costs (with and without `OTEL_EXPORTER_OTLP_ENDPOINT`).

use mcp_runtime::prelude::*;

/// The sum.
#[derive(Serialize, JsonSchema)]
struct Sum {
    /// `a + b`.
    sum: i64,
}

/// Adds two integers.
#[tool(annotations(read_only_hint = true, idempotent_hint = true, open_world_hint = false))]
fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Sum {
    Sum { sum: a.wrapping_add(b) }
}

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    let args = match mcp_runtime::ServeArgs::parse(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("add-server: {e}");
            std::process::exit(2);
        }
    };
    let builder = args.configure(Server::builder("add-server", env!("CARGO_PKG_VERSION")).tool(add));
    // With `--features otel`: the OTEL_* variables say whether (and where) to export.
    #[cfg(feature = "otel")]
    let builder = builder.otel();
    let server = builder.build()?;
    args.serve(server).await
}
