//! `add-server [--http <addr> [--stateless]]`: one tool, `add {a, b} → {sum}`, the tool the
//! reference servers of `compare.sh` (rmcp and a hand-written floor) serve, so that the
//! comparison is between servers doing the same work. Built with the default features (stdio
//! only); `--features http` for the HTTP comparison.

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
    let server = args.configure(Server::builder("add-server", env!("CARGO_PKG_VERSION")).tool(add)).build()?;
    args.serve(server).await
}
