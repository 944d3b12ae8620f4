//! Define MCP tools as Rust functions whose failures a model can recover from, and serve
//! them over stdio or Streamable HTTP.
//!
//! Write an ordinary fn, add [`#[tool]`](macro@tool) and one [`#[errors(...)]`](macro@errors)
//! per failure mode; the input and output JSON Schemas, a typed reason enum and a contract
//! table of recovery hints are generated at compile time. At run time arguments and
//! structured output are validated, and every failure reaches the model as one envelope:
//! what went wrong, what to do next, whether to retry, and which request it was.
//!
//! ```no_run
//! use mcp_runtime::prelude::*;
//!
//! /// Fetch items by id.
//! #[tool(annotations(read_only_hint = true))]
//! #[errors(
//!     reason = "no_match",
//!     code = NotFound,
//!     when = "None of the requested ids exist.",
//!     recovery = "Call search_items to discover valid ids, then retry."
//! )]
//! async fn fetch_items(ctx: &Ctx<FetchItemsError>, ids: Vec<String>) -> Result<Vec<String>, ToolError> {
//!     if ids.is_empty() {
//!         return Err(ctx.fail(FetchItemsError::NoMatch));
//!     }
//!     Ok(ids)
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), mcp_runtime::Error> {
//!     mcp_runtime::init_stderr_logging();
//!     Server::builder("items", "1.0.0").tool(fetch_items).build()?.serve_stdio().await
//! }
//! ```
//!
//! # The guide
//!
//! The [`guide`] module holds the user's guide, one chapter per module (the same text as
//! `docs/` in the repository, whose code blocks are this crate's doctests):
//! [getting started](guide::getting_started), [tools and schemas](guide::tools),
//! [errors and the envelope](guide::errors), [the context](guide::context),
//! [resources, prompts and completion](guide::resources_prompts),
//! [asking the user](guide::asking), [state and consent](guide::state_and_consent),
//! [long-running tools](guide::tasks),
//! [HTTP and deployment](guide::http), [authorization](guide::auth),
//! [testing](guide::testing), [observability](guide::observability), [skills](guide::skills),
//! [MCP Apps](guide::apps).
//!
//! The most used items: [`Server`] and [`ServerBuilder`], [`Ctx`], [`ToolError`], the
//! [`prelude`]. Features: none by default (stdio); `http` (Streamable HTTP and bearer-token
//! authorization), `jwt` (`JwtValidator`, implies `http`), `redis` (a shared
//! state store; `redis-tls` for `rediss://`, `redis-cluster` for a Redis Cluster), `anyhow`.
//!
//! # Reading the runtime
//!
//! The folders are layers; each imports only the ones below it. Follow a request down:
//!
//! 1. `transport/`: bytes in and out. `stdio` ([`Server::serve_stdio`]: reads, parks what
//!    cannot start yet, runs each call in its own task or, a quick fn without `async`, on the
//!    loop), `http/` (feature `http`: the accept loop, the validation ladder, sessions,
//!    streams), `in_process` ([`Server::connect`], [`Server::call`]: a session like any
//!    other), `args`.
//! 2. `protocol/`: one connection's requests. `session` reads the request's era once,
//!    answers the lifecycle methods and starts each request; `router` names the family that
//!    answers it. Nothing here knows what a tool is.
//! 3. `server/`: the public [`Server`] and its [`ServerBuilder`], which registers every
//!    family once (schemas compiled, list pages serialized) into the `Shared` the families
//!    read.
//! 4. `features/`: the families, each resolve, run and shape on one road. `call` is that
//!    road, written once: request id, an unknown name with a did-you-mean, scopes, hooks,
//!    the run under catch, the ask loop, the failure at the family's site. `tools/` holds
//!    the whole tools family: `call` (a `tools/call` resolved, run and shaped), `run` (one
//!    run of a handler), `task` (a call that goes on as a task), `tool`, `params`, `output`,
//!    `pace`, `checks`, the registry and its `list` pages. Beside it `resources` (with
//!    `uri_template`), `prompts`, `completion`, `skills` (the Skills extension: entries over
//!    files served as resources, `frontmatter`), `apps` (MCP Apps: what a view's resource
//!    and a tool with a view declare in `_meta.ui`; a view is read as any resource), and
//!    `page` (list cursors).
//! 5. `options`, `tasks/`, `observe/`: the server's settings and limits; tasks kept in the
//!    state store (`record`, `book`); what a request leaves behind (its `span`, `metrics`,
//!    their OTLP `export` and its bounded `queue`, feature `otel`).
//! 6. `context/`: what a handler sees (`ctx`, `logging`, `text`), asking the caller (`ask`;
//!    over a 2025 session the `shim` sends real requests), `consent`.
//! 7. `schema/`, `hooks/`: schemas made once (`generate`) and checked per call (`validate`);
//!    the author's code around every call (`Hook`, `policy`, `rate_limit`, `audit`).
//! 8. `rpc/`: the wire: `jsonrpc`, `era` (one per-request client view every layer reads),
//!    `channel` (where a request's messages go, and who sent it), `outbox`, `pending`,
//!    `request_id`, `envelope` (recovery fill, log record, rendering), `catch`, `lines`
//!    (stderr logs and audit lines, written by a thread through a bounded queue).
//! 9. `state/`, `auth/`: what outlives a call (`store`, `redis` with feature `redis`, `seal`,
//!    the `bus` to every replica); who calls (`principal`, `bearer`, `jwt` with feature
//!    `jwt`): `rpc::channel` takes the principal an authorization layer put in the HTTP
//!    request, else the server's local one (`ServerBuilder::local_principal`).
//!
//! Features: `http`, `jwt`, `redis`, `redis-tls`, `redis-cluster`, `otel` (`otel-tls` for
//! `https://` collectors), `anyhow`
//! (`From<anyhow::Error>`); none by default.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs)]

mod auth;
mod context;
mod features;
#[doc(hidden)]
pub mod fuzzing;
mod hooks;
mod observe;
mod options;
mod protocol;
mod rpc;
mod schema;
mod server;
mod state;
mod tasks;
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
pub use features::apps;
pub use features::completion::IntoCompletion;
pub use features::prompts::{IntoPrompt, PromptResult};
pub use features::resources::{IntoListing, IntoResource, Json, Resource, ResourceDir};
pub use features::skills::Skill;
pub use features::tools::output::Structured;
pub use features::tools::tool::TaskSupport;
pub use hooks::policy::{PolicyRequest, Refusal};
pub use hooks::{Audit, AuditRecord, CallerKey, ErrorView, Hook, HookRequest, Outcome, OutcomeKind, RateLimit};
#[cfg(feature = "jwt")]
pub use jsonwebtoken::Algorithm;
pub use mcp_core::{
    Annotations, CallToolResult, Content, Contract, ContractEntry, ErrorCode, Icon, IntoContents, NoReasons,
    PromptMessage, ReasonOf, ResourceContents, Role, Severity, ToolAnnotations, ToolError, classify,
};
pub use mcp_macros::{contract, errors, prompt, resource, tool};
pub use rpc::channel::Transport;
pub use rpc::jsonrpc::RpcError;
pub use rpc::request_id::RequestId;
pub use schemars;
pub use server::{CacheScope, Error, FAILURES_META_KEY, Server, ServerBuilder, store_from_url};
#[cfg(feature = "redis")]
pub use state::redis::RedisStore;
#[cfg(feature = "redis-tls")]
pub use state::redis::RedisTls;
pub use state::store::{MemoryStore, NO_TTL, State, StateStore, StoreError};
pub use transport::args::ServeArgs;
pub use transport::in_process::Connection;

pub mod guide;

/// The README's code blocks, compiled as doctests (`cargo test --doc`), so that the landing
/// page's example keeps building.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The `tracing` layer that exports spans over OTLP (feature `otel`), for a subscriber you
/// install yourself: `None` when the environment configures no export (see
/// [`ServerBuilder::otel`], which reads the same variables and adds the metrics). Add it,
/// then call `.otel()` on the builder as well, for the metrics and the flush at shutdown.
///
/// ```no_run
/// use tracing_subscriber::layer::SubscriberExt as _;
/// use tracing_subscriber::util::SubscriberInitExt as _;
///
/// tracing_subscriber::registry()
///     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
///     .with(mcp_runtime::otel_layer())
///     .init();
/// ```
///
/// Set up here first, the service is named by `OTEL_SERVICE_NAME`, else the program's file
/// name.
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub fn otel_layer<S>() -> Option<impl tracing_subscriber::Layer<S>>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    let program = std::env::current_exe().ok();
    let service = program.as_deref().and_then(std::path::Path::file_stem).and_then(std::ffi::OsStr::to_str);
    let telemetry = observe::export::telemetry(service.unwrap_or("mcp-server"), "")?;
    observe::export::LAYER_GIVEN.store(true, std::sync::atomic::Ordering::Relaxed);
    Some(observe::export::layer(telemetry))
}

/// Testing a server in-process: [`TestClient`](testing::TestClient) drives a [`Server`]
/// through the real pipeline in either [`Era`]; [`TestCtx`](testing::TestCtx) builds the
/// context of a handler called directly in a unit test.
pub mod testing {
    pub use crate::context::test_ctx::TestCtx;
    pub use crate::transport::test_client::{Era, TestClient};
}

/// Everything a tool author needs: `use mcp_runtime::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Ask, CallToolResult, Content, Contract, Ctx, Elicitation, Elicited, LogLevel, Principal, PromptMessage,
        ReasonOf, Resource, Sampling, Server, Structured, ToolError, contract, errors, prompt, resource, tool,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}

/// Used by the code `#[tool]` generates. Not public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::context::ctx::BoxFuture;
    pub use crate::context::ctx::CallInfo;
    pub use crate::context::ctx::{Call, ContextContract, ContractOf, FromCall, NoArgs, NotAContext};
    pub use crate::features::completion::{AwaitCompletion, Completer, CompletionOf, ReadyCompletion};
    pub use crate::features::prompts::{PromptArgument, PromptDef, PromptSpec};
    pub use crate::features::resources::{Lister, ResourceBody, ResourceDef, ResourceSpec};
    pub use crate::features::tools::checks::{
        ArgKind, ArgOf, ArgsKind, ArgsOf, ContextByValue, ContextByValueKind, ContextOf, DefaultOf, ErrorOf,
        IntoToolErrorKind, JsonDefaultKind, NoJsonDefaultKind, NotAToolErrorKind, NotAnArgKind, ToolArgument,
        ToolFailure, UndeserializableKind, context_of,
    };
    pub use crate::features::tools::output::{
        ContentKind, IntoStructured, Kind, Output, StructuredKind, ToolOutput, Unsupported, UnsupportedKind,
    };
    pub use crate::features::tools::params::{Param, ParamType, Reader};
    pub use crate::features::tools::tool::ToolSpec;
    pub use crate::features::tools::tool::{
        AppDataOf, Args, Finished, Hints, IconInfo, OutputSchema, Running, Started, TaskSupport, ToolDef, ToolInfo,
        app_data_of, params_schema,
    };
    pub use crate::schema::generate::InputSpec;
    pub use crate::schema::generate::root_schema;
    pub use mcp_core::{
        __Message as Message, __concat_entries as concat_entries, __declares as declares,
        __shared_reason as shared_reason,
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
        pub use crate::context::ctx::{ContextContract as _, NotAContext as _};
        pub use crate::features::completion::{AwaitCompletion as _, ReadyCompletion as _};
        pub use crate::features::tools::checks::{
            ArgKind as _, ArgsKind as _, ContextByValueKind as _, IntoToolErrorKind as _, JsonDefaultKind as _,
            NoJsonDefaultKind as _, NotAToolErrorKind as _, NotAnArgKind as _, UndeserializableKind as _,
        };
        pub use crate::features::tools::output::{ContentKind as _, StructuredKind as _, UnsupportedKind as _};
    }
}
