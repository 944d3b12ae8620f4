//! Test support: a client that spawns a fixture binary and speaks JSON-RPC to it over real
//! pipes.

pub mod client;
