#![doc = include_str!("../../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
//!
//! # Reading the runtime
//!
//! The folders are the layers a call passes through, top to bottom; a folder imports only
//! folders below it.
//!
//! | folder | what it holds |
//! |---|---|
//! | `transport/` | bytes in and out: `stdio`, `http/` (feature `http`), `in_process`, `args` |
//! | `protocol/` | one connection's requests: `session`, `dispatch` (`tools/call`), `router` (the other features) |
//! | `server/` | the registry built once: `builder`, `options` (every limit), `list` (`tools/list` pages) |
//! | `tools/`, `features/` | what a tool is at run time (`tool`, `params`, `output`, `checks`); resources, prompts, completion |
//! | `context/` | what a handler sees: `ctx`, `logging`, `ask`, `shim`, `consent`, `text` |
//! | `schema/` | JSON Schema made once (`generate`) and checked per call (`validate`) |
//! | `rpc/` | the wire: `jsonrpc`, `era`, `channel`, `outbox`, `pending`, `request_id`, `envelope`, `catch` |
//! | `state/`, `auth/` | what outlives a call (`store`, `redis`, `seal`); who calls (`principal`, `bearer`, `jwt`) |
//!
//! One `tools/call`, in order: a transport reads a message — `transport::stdio`
//! ([`Server::serve_stdio`]: reads, parks what cannot be served yet, starts each call in its
//! own task, writes) or `transport::http` ([`Server::serve_http`]: the accept loop with its
//! timeouts, the validation ladder, where `auth::bearer` checks the token right after
//! Host/Origin and `auth::jwt` verifies a JWT against its JWKS; sessions bound to their
//! principal; one outbox per POST). `rpc::jsonrpc` says what the message is;
//! `protocol::session` classifies the request's era once (`rpc::era`), answers the lifecycle
//! methods of both eras and routes; `protocol::dispatch` resolves the tool in the `server`
//! registry, checks its scopes and the policy, validates the arguments
//! (`schema::validate`: failures as text), runs the handler (`context::ctx` is what it sees;
//! blocking handlers on the blocking pool), checks its output (`tools::output`), and renders a
//! failure with `rpc::envelope` (recovery fill, log record, envelope). The answer goes back
//! through `rpc::channel` (where the request's messages go) and `rpc::outbox` (waiting for
//! the transport) to the transport.
//!
//! A handler that asks the caller (`ctx.ask`) ends its run with an `Ask` that `dispatch` takes
//! out of the error before anything classifies it. `context::ask` holds what both eras share
//! (the capability gate and answer filter, reading a retry's `inputResponses`/`requestState`,
//! writing the `input_required` result); a 2026-07-28 call ends there. It opens the retry's
//! `requestState` before the handler runs and seals the state it sends, with `state::seal`.
//! Over a 2025 session `dispatch` hands the ask to `context::shim`, which sends the requests
//! to the client on the call's channel and waits in `rpc::pending` for the answers (routed
//! there by the session from the client's responses and progress), then runs the handler
//! again with them.
//!
//! A `resources/read`, `prompts/get` or `completion/complete` takes the same road to the
//! session, which hands it to `protocol::router` (which methods the server's features answer,
//! their capabilities, list pages and era shapes); `features::resources`, `features::prompts`
//! and `features::completion` find the handler (a template's variables matched by
//! `features::uri_template`, read from text by `context::text`), run it caught
//! (`rpc::catch`), and turn a failure into a JSON-RPC error with `rpc::envelope::fail_rpc`.
//!
//! What a handler keeps between calls lives in `state::store` (the `StateStore` trait, the
//! memory store, the scoped `State` handle that `Ctx::state` gives, the server's app data) and
//! `state::redis` (feature `redis`); `context::consent` builds on it: a record written when
//! asking, redeemed once with `take` on the retry, at most a capped number per caller.
//!
//! Who is calling travels with the request: the bearer check puts the token's
//! `auth::principal::Principal` in the HTTP request's extensions (where a middleware of the
//! author's may put one too), `rpc::channel` takes it from there, and every layer below reads
//! it from the channel: `Ctx::principal`, the scope checks of tools, resources and prompts
//! (`principal::require`; lists and completions leave out what it does not grant), the
//! `tools/list` pages of a server that hides what the caller cannot call. HTTP sessions,
//! sealed request state and consent records are bound to the caller's client id, subject and
//! tenant; `Ctx::state` is scoped to the tenant.
//!
//! Three axes stay apart. A transport moves bytes and knows nothing of tools or eras (it
//! reads the era only to give HTTP statuses and cancel-on-close their meaning). The era is one
//! per-request value, `rpc::era::Client`, that every layer below the session reads: log
//! thresholds, capabilities, `Ctx::era`. The tools and the other features know nothing of
//! transports.

mod auth;
mod context;
mod features;
#[doc(hidden)]
pub mod fuzzing;
mod protocol;
mod rpc;
mod schema;
mod server;
mod state;
mod tasks;
mod tools;
mod transport;

#[cfg(feature = "http")]
pub use auth::bearer::{Authorization, InvalidToken, TokenProblem, TokenValidator};
#[cfg(feature = "jwt")]
pub use auth::jwt::JwtValidator;
pub use auth::principal::Principal;
pub use context::ask::{Ask, Elicitation, Elicited, Inputs, Sampling};
pub use context::consent::Consent;
pub use context::ctx::{Ctx, Era, LogLevel};
pub use context::logging::{client_log_layer, current_request_id, init_stderr_logging};
pub use context::text::TextValue;
pub use features::completion::IntoCompletion;
pub use features::prompts::{IntoPrompt, PromptResult};
pub use features::resources::{IntoListing, IntoResource, Resource, ResourceDir};
#[cfg(feature = "jwt")]
pub use jsonwebtoken::Algorithm;
pub use mcp_core::{
    Annotations, CallToolResult, Content, Contract, ContractEntry, ErrorCode, Icon, IntoContents, NoReasons,
    PromptMessage, ResourceContents, Role, Severity, ToolAnnotations, ToolError, classify,
};
pub use mcp_macros::{contract, errors, prompt, resource, tool};
pub use rpc::jsonrpc::RpcError;
pub use rpc::request_id::RequestId;
pub use schemars;
pub use server::{CacheScope, Error, PolicyRequest, Refusal, Server, ServerBuilder, store_from_url};
#[cfg(feature = "redis")]
pub use state::redis::RedisStore;
pub use state::store::{MemoryStore, State, StateStore, StoreError};
pub use tools::output::Structured;
pub use tools::tool::TaskSupport;
pub use transport::args::ServeArgs;
pub use transport::in_process::Connection;

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
    pub use crate::context::ctx::CallInfo;
    pub use crate::context::ctx::{Call, ContextContract, ContractOf, FromCall, NoArgs, NotAContext};
    pub use crate::features::completion::{AwaitCompletion, Completer, CompletionOf, ReadyCompletion};
    pub use crate::features::prompts::{PromptArgument, PromptDef, PromptSpec};
    pub use crate::features::resources::{Lister, ResourceBody, ResourceDef, ResourceSpec};
    pub use crate::schema::generate::root_schema;
    pub use crate::server::{BoxFuture, InputSpec, ToolSpec};
    pub use crate::tools::checks::{
        ArgKind, ArgOf, ArgsKind, ArgsOf, ContextOf, DefaultOf, ErrorOf, IntoToolErrorKind, JsonDefaultKind,
        NoJsonDefaultKind, NotAToolErrorKind, NotAnArgKind, ToolArgument, ToolFailure, UndeserializableKind,
        context_of,
    };
    pub use crate::tools::output::{
        ContentKind, IntoStructured, Kind, Output, StructuredKind, ToolOutput, Unsupported, UnsupportedKind,
    };
    pub use crate::tools::params::{Param, ParamType, Reader};
    pub use crate::tools::tool::{
        Args, Finished, Hints, IconInfo, OutputSchema, Running, Started, TaskSupport, ToolDef, ToolInfo, params_schema,
    };
    pub use schemars::{Schema, SchemaGenerator};
    pub use serde;
    pub use serde_json::Value;
    pub use std::result::Result::{Err, Ok};

    /// Every probe trait, anonymously: one `use __private::probes::*;` puts them all in
    /// scope. Each probes its own wrapper type (`ArgOf`, `DefaultOf`, `Kind`, ..), so no two
    /// ever offer a method for the same receiver.
    pub mod probes {
        pub use crate::context::ctx::{ContextContract as _, NotAContext as _};
        pub use crate::features::completion::{AwaitCompletion as _, ReadyCompletion as _};
        pub use crate::tools::checks::{
            ArgKind as _, ArgsKind as _, IntoToolErrorKind as _, JsonDefaultKind as _, NoJsonDefaultKind as _,
            NotAToolErrorKind as _, NotAnArgKind as _, UndeserializableKind as _,
        };
        pub use crate::tools::output::{ContentKind as _, StructuredKind as _, UnsupportedKind as _};
    }
}
