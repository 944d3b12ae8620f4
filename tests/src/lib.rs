//! Test support for the SDK: the fixture tools (served by `fixture-server`, callable
//! in-process), a client that spawns a server binary and speaks JSON-RPC to it over real
//! pipes, and [`spec_schema`], which checks what a server writes against the official MCP
//! JSON Schema of the revision in use.

mod app_tools;
mod ask_tools;
pub mod client;
mod context_tools;
pub mod fixture;
pub mod http;
pub mod nginx;
pub mod oauth;
pub mod otlp;
pub mod props;
pub mod redis;
mod secret_tools;
pub mod spec_schema;
mod state_tools;
mod task_tools;
pub mod toolchain;
