#![doc = include_str!("../../README.md")]
//!
//! # Reading the runtime
//!
//! One `tools/call` passes through these modules in order: a transport — `transport` for
//! stdio ([`Server::serve_stdio`]: reads, parks what cannot be served yet, starts each call in
//! its own task, writes) or `http` for Streamable HTTP ([`Server::serve_http`]: the validation
//! ladder, where `auth` checks the bearer token right after Host/Origin and `jwt` verifies a
//! JWT against its JWKS; sessions, bound to their principal; one outbox per POST) — then
//! `jsonrpc` (what a message is), `session`
//! (classifies the request's era once, with `client`; lifecycle methods of both eras, ids in
//! use, routing), `dispatch` (resolve, policy, validate, run — blocking handlers on the
//! blocking pool — check output; the tool's scopes are checked against the caller before the
//! policy), `validate` (schema failures as text), `context` (what the
//! handler sees), `output` (return value to result), `envelope` (recovery fill, log record,
//! error envelope), and back through `channel` (where the request's messages go) and
//! `outbox` (answers and notifications waiting for the transport) to the transport.
//!
//! A handler that asks the caller (`ctx.ask`) ends its run with an `ask::Ask` that `dispatch`
//! takes out of the error before anything classifies it. `ask` holds what both eras share
//! (the capability gate and answer filter, reading a retry's `inputResponses`/`requestState`,
//! writing the `input_required` result); a 2026-07-28 call ends there. `ask` opens the
//! retry's `requestState` before the handler runs and seals the state it sends, with `seal`
//! (the key ring and the token format). Over a 2025 session
//! `dispatch` hands the ask to `shim`, which sends the requests to the client on the call's
//! channel and waits in `pending` for the answers (routed there by `session` from the
//! client's responses and progress), then runs the handler again with them.
//!
//! A `resources/read`, `prompts/get` or `completion/complete` takes the same road to
//! `session`, which hands it to `features` (which methods the server's features answer, their
//! capabilities, list pages and era shapes); `resources`, `prompts` and `completion` find the
//! handler (a template's variables matched by `uri_template`, read from text by `text`), run it
//! caught (`catch`), and turn a failure into a JSON-RPC error with `envelope::fail_rpc`.
//!
//! What a handler keeps between calls lives in `state` (the `StateStore` trait, the memory
//! store, the scoped `State` handle that `Ctx::state` gives, the server's app data) and
//! `redis_store` (feature `redis`); `consent` builds on it: a record written when asking,
//! redeemed once with `take` on the retry.
//!
//! Who is calling travels with the request: the `auth` check puts the token's
//! `principal::Principal` in the HTTP request's extensions (where a middleware of the
//! author's may put one too), `channel` takes it from there, and every layer below reads it
//! from the channel: `Ctx::principal`, the scope checks of tools, resources and prompts
//! (`principal::require`), the `tools/list` pages of a server that hides what the caller
//! cannot call. `principal::binding` keeps an HTTP session with the caller that opened it;
//! sealed request state and consent records bind the same three fields (client id, subject,
//! tenant) with the operation (`ask::Operation::binding`), and `Ctx::state` is scoped to the
//! tenant.
//!
//! Three axes stay apart. A transport moves bytes and knows nothing of tools or eras (it
//! reads the era only to give HTTP statuses and cancel-on-close their meaning). The era is
//! one per-request value, `client::Client`, that every layer below the session reads: log
//! thresholds, capabilities, `Ctx::era`. The tools (the registry in `server`, with `schema`
//! making each tool's schemas once, `params` reading plain parameters by their table, and
//! `tool` the generic half of every `#[tool]`: the call wrapper and the spec) and the other
//! features know nothing of transports. Modules import only modules below them: `principal`,
//! `auth`, `jwt`, `pending`, `client`, `channel`, `logging`, `seal`, `state`, `redis_store`,
//! `ask`, `consent`, `context`, `completion`, `shim`, `resources`, `prompts`, `params`,
//! `tool`, `server`, `features`, `dispatch`, `session`, then the transports and `args`
//! (`--http`/`--stateless`).

mod args;
mod ask;
mod auth;
mod catch;
mod channel;
mod checks;
mod client;
mod completion;
mod connection;
mod consent;
mod context;
mod dispatch;
mod envelope;
mod features;
#[doc(hidden)]
pub mod fuzzing;
mod http;
mod jsonrpc;
#[cfg(feature = "jwt")]
mod jwt;
mod logging;
mod outbox;
mod output;
mod params;
mod pending;
mod principal;
mod prompts;
#[cfg(feature = "redis")]
mod redis_store;
mod request_id;
mod resources;
mod schema;
mod seal;
mod server;
mod session;
mod shim;
mod state;
mod text;
mod tool;
mod transport;
mod uri_template;
mod validate;

pub use args::ServeArgs;
pub use ask::{Ask, Elicitation, Elicited, Inputs, Sampling};
pub use auth::{Authorization, InvalidToken, TokenProblem, TokenValidator};
pub use completion::IntoCompletion;
pub use connection::Connection;
pub use consent::Consent;
pub use context::{Ctx, Era, LogLevel};
pub use jsonrpc::RpcError;
#[cfg(feature = "jwt")]
pub use jsonwebtoken::Algorithm;
#[cfg(feature = "jwt")]
pub use jwt::JwtValidator;
pub use logging::{client_log_layer, current_request_id, init_stderr_logging};
pub use mcp_core::{
    Annotations, CallToolResult, Content, Contract, ContractEntry, ErrorCode, Icon, IntoContents, NoReasons,
    PromptMessage, ResourceContents, Role, Severity, ToolAnnotations, ToolError, classify,
};
pub use mcp_macros::{contract, errors, prompt, resource, tool};
pub use output::Structured;
pub use principal::Principal;
pub use prompts::{IntoPrompt, PromptResult};
#[cfg(feature = "redis")]
pub use redis_store::RedisStore;
pub use request_id::RequestId;
pub use resources::{IntoListing, IntoResource, Resource, ResourceDir};
pub use schemars;
pub use server::{CacheScope, Error, PolicyRequest, Refusal, Server, ServerBuilder, store_from_url};
pub use state::{MemoryStore, State, StateStore, StoreError};
pub use text::TextValue;

/// Everything a tool author needs: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Ask, CallToolResult, Content, Ctx, Elicitation, Elicited, LogLevel, Principal, PromptMessage, Resource,
        Sampling, Server, Structured, ToolError, contract, errors, prompt, resource, tool,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Used by the code `#[tool]` generates. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::checks::{
        ArgKind, ArgOf, ArgsKind, ArgsOf, ContextByValue, ContextByValueKind, ContextOf, DefaultOf, ErrorOf,
        IntoToolErrorKind, JsonDefaultKind, NoJsonDefaultKind, NotAToolErrorKind, NotAnArgKind, ToolArgument,
        ToolFailure, UndeserializableKind, context_of,
    };
    pub use crate::completion::{AwaitCompletion, Completer, CompletionOf, ReadyCompletion};
    pub use crate::context::CallInfo;
    pub use crate::context::{Call, ContextContract, ContractOf, FromCall, NoArgs, NotAContext};
    pub use crate::output::{
        ContentKind, IntoStructured, Kind, Output, StructuredKind, ToolOutput, Unsupported, UnsupportedKind,
    };
    pub use crate::params::{Param, ParamType, Reader};
    pub use crate::prompts::{PromptArgument, PromptDef, PromptSpec};
    pub use crate::resources::{Lister, ResourceBody, ResourceDef, ResourceSpec};
    pub use crate::schema::root_schema;
    pub use crate::server::{BoxFuture, InputSpec, ToolSpec};
    pub use crate::tool::{
        Args, Finished, Hints, IconInfo, OutputSchema, Running, Started, ToolDef, ToolInfo, params_schema,
    };
    pub use schemars::{Schema, SchemaGenerator};
    pub use serde;
    pub use serde_json::Value;
    pub use std::result::Result::{Err, Ok};

    /// What the derives of an arguments struct (schemars', serde's) name as if the prelude
    /// were there: `use __private::derive_prelude::*;` gives it to them in a module with
    /// `#![no_implicit_prelude]`. The traits come anonymously, so no name is taken.
    pub mod derive_prelude {
        pub use core::option::Option::{None, Some};
        pub use core::result::Result::{Err, Ok};
        pub use std::borrow::ToOwned as _;
        pub use std::clone::Clone as _;
        pub use std::convert::{AsRef as _, From as _, Into as _, TryFrom as _, TryInto as _};
        pub use std::default::Default as _;
        pub use std::iter::{
            DoubleEndedIterator as _, ExactSizeIterator as _, Extend as _, FromIterator as _, IntoIterator as _,
            Iterator as _,
        };
        pub use std::string::ToString as _;
    }

    /// Every probe trait, anonymously: one `use __private::probes::*;` puts them all in
    /// scope. Each probes its own wrapper type (`ArgOf`, `DefaultOf`, `Kind`, ..), so no two
    /// ever offer a method for the same receiver.
    pub mod probes {
        pub use crate::checks::{
            ArgKind as _, ArgsKind as _, ContextByValueKind as _, IntoToolErrorKind as _, JsonDefaultKind as _,
            NoJsonDefaultKind as _, NotAToolErrorKind as _, NotAnArgKind as _, UndeserializableKind as _,
        };
        pub use crate::completion::{AwaitCompletion as _, ReadyCompletion as _};
        pub use crate::context::{ContextContract as _, NotAContext as _};
        pub use crate::output::{ContentKind as _, StructuredKind as _, UnsupportedKind as _};
    }
}

impl Server {
    /// Reads a resource as a 2025-11-25 client would (`resources/read`), without a
    /// transport: for tests. The result is `{contents: [...]}`; a failure is the JSON-RPC
    /// error a client would get (`data` carries the reason, hint and request id).
    pub async fn read_resource(&self, uri: &str) -> Result<serde_json::Value, RpcError> {
        self.in_process("resources/read", serde_json::json!({"uri": uri})).await
    }

    /// Gets a prompt as a 2025-11-25 client would (`prompts/get`), without a transport: for
    /// tests. The result is `{messages: [...]}` (and `description` when the prompt sets one).
    pub async fn get_prompt(&self, name: &str, arguments: serde_json::Value) -> Result<serde_json::Value, RpcError> {
        self.in_process("prompts/get", serde_json::json!({"name": name, "arguments": arguments})).await
    }

    async fn in_process(&self, method: &str, params: serde_json::Value) -> Result<serde_json::Value, RpcError> {
        let channel = std::sync::Arc::new(channel::Channel::new(None, None));
        let client = client::Client::Legacy(std::sync::Arc::default());
        let cancel = std::sync::Arc::default();
        let shared = &self.shared;
        let caller = context::Caller {
            channel: &channel,
            client: &client,
            cancel: &cancel,
            stores: &shared.stores,
            notices: &shared.notices,
            causes: shared.options.error_causes,
            ask_timeout: shared.options.ask_timeout,
        };
        let feature = features::request(shared, method, Some(params))?;
        features::run(shared, &caller, feature).await
    }

    /// Runs one call through the production pipeline (resolution, policy, argument
    /// validation, handler, output validation, envelope) without a transport: for tests.
    /// Failures come back as error envelopes, exactly as a client would see them.
    pub async fn call(&self, name: &str, arguments: serde_json::Value) -> CallToolResult {
        let channel = std::sync::Arc::new(channel::Channel::new(None, None));
        let client = client::Client::Legacy(std::sync::Arc::default());
        let req = dispatch::CallRequest {
            name: name.to_owned(),
            arguments: Some(arguments),
            progress_token: None,
            input_responses: None,
            request_state: None,
        };
        match dispatch::call(&self.shared, &channel, &client, req, std::sync::Arc::default()).await {
            Ok(ask::Reply::Complete(result)) => result,
            // A 2025 call never returns `input_required`: its asks are fulfilled or refused.
            Ok(ask::Reply::InputRequired(_)) => unreachable!("in-process calls are 2025 calls"),
            // Strict resolution applies on the wire only; in-process calls never take it.
            // A handler's ask that breaks the protocol's rules (asking nothing): its author's bug.
            Err(e) => CallToolResult {
                content: vec![Content::text(format!("Error: {} ({})", e.message, e.code))],
                is_error: Some(true),
                ..CallToolResult::default()
            },
        }
    }
}
