//! `fixture-server`: the fixture tools over stdio. `FIXTURE_STRICT_RESOLUTION=1` turns on
//! strict resolution (unknown and disabled tools become JSON-RPC errors).

#[tokio::main]
async fn main() -> Result<(), mcp_runtime::Error> {
    mcp_runtime::init_stderr_logging();
    let strict = std::env::var("FIXTURE_STRICT_RESOLUTION").is_ok_and(|v| v == "1");
    mcp_tests::fixture::builder(strict).build()?.serve_stdio().await
}
