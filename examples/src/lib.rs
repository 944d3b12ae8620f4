//! Example MCP servers built with `mcp-runtime`.
//!
//! - [`notes`]: a server over a directory of plain-text notes (`notes-server` binary). It
//!   shows parameter docs, annotations, structured output, error contracts with recovery
//!   hints, shared state, progress, cancellation and client logging.
//! - `demo` (binary): drives the notes server over real stdio with a short scripted session
//!   and prints the exchange.
//! - `conformance-server` (binary): the tools the official MCP conformance suite calls.
//!
//! See `examples/README.md` for how to run them and plug `notes-server` into a client.

pub mod notes;
