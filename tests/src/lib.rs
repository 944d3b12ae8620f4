//! Test support for the SDK: the fixture tools (served by `fixture-server`, callable
//! in-process) and a client that spawns a server binary and speaks JSON-RPC to it over real
//! pipes.

pub mod client;
mod context_tools;
pub mod fixture;
pub mod http;
pub mod toolchain;
