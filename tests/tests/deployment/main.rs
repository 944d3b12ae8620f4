//! Deployed: replicas behind one state store (real Redis), tasks across replicas, the drain
//! and probes, hooks and rate limits, authorization (bearer tokens, JWT, bring-your-own) and
//! the OpenTelemetry export. One test binary, one module per concern.

mod auth;
mod byo_auth;
mod deploy;
mod hooks;
mod observability;
mod state;
mod tasks;
