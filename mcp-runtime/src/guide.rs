//! The user's guide: one chapter per module, in the order a server is usually written.
//!
//! These are the chapters of `docs/` in the repository; each chapter's Rust code blocks
//! compile as doctests of this crate. The links between chapters are relative links to those
//! Markdown files, which work in the repository; here, use the table below.
//! Chapters whose examples need a feature are included when it is on (docs.rs builds with
//! every feature); without it, the module says which feature to enable.
//!
//! | chapter | what it covers |
//! |---|---|
//! | [`getting_started`] | dependencies and features, a first server, `ServeArgs`, the server's settings, the two protocol eras, MCP clients |
//! | [`tools`] | `#[tool]`, parameters and the input schema, return types and the output schema |
//! | [`errors`] | `#[errors]`, `#[contract]`, `ctx.fail`, `.data(..)`, the envelope, the failures in `tools/list`, classification, the log record |
//! | [`context`] | `Ctx`: progress, cancellation, logging to the client, app data |
//! | [`resources_prompts`] | `#[resource]`, `#[prompt]`, completion |
//! | [`asking`] | `ctx.ask`: elicitation, sampling, roots, in both eras |
//! | [`state_and_consent`] | `ctx.state()`, `ctx.consent(Consent::new(..))` |
//! | [`tasks`] | long-running tools: `#[tool(task = ..)]`, `ctx.run_as_task()`, polling, cancelling, replicas |
//! | [`http`] | Streamable HTTP, the limits, replicas (feature `http`) |
//! | [`auth`] | bearer tokens, `JwtValidator`, scopes (feature `jwt`) |
//! | [`testing`] | testing your tools, `TestClient`; this repository's suite |
//! | [`observability`] | stderr logs keyed by request id, their targets, `.policy(..)` |
//! | [`skills`] | the Skills extension: `.skills_dir(..)`, `Skill`, what clients see, testing |
//! | [`apps`] | MCP Apps: `#[resource(ui(..))]` views, `#[tool(ui = ..)]`, what hosts show, testing |
//!
//! Reports, with their method: [`performance`] (serving and compile time) and
//! [`reliability`] (fuzzing, soak, faults).

#[doc = include_str!("../docs/getting-started.md")]
pub mod getting_started {}

#[doc = include_str!("../docs/tools.md")]
pub mod tools {}

#[doc = include_str!("../docs/errors.md")]
pub mod errors {}

#[doc = include_str!("../docs/context.md")]
pub mod context {}

#[doc = include_str!("../docs/resources-prompts.md")]
pub mod resources_prompts {}

#[doc = include_str!("../docs/asking.md")]
pub mod asking {}

#[doc = include_str!("../docs/state-and-consent.md")]
pub mod state_and_consent {}

#[doc = include_str!("../docs/tasks.md")]
pub mod tasks {}

#[cfg_attr(feature = "http", doc = include_str!("../docs/http.md"))]
#[cfg_attr(
    not(feature = "http"),
    doc = "# HTTP and deployment\n\nThis chapter's examples need the `http` feature of `mcp-runtime`: \
           build the documentation with `--features http` (or read `docs/http.md`)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
pub mod http {}

#[cfg_attr(feature = "jwt", doc = include_str!("../docs/auth.md"))]
#[cfg_attr(
    not(feature = "jwt"),
    doc = "# Authorization\n\nThis chapter's examples need the `jwt` feature of `mcp-runtime`: \
           build the documentation with `--features jwt` (or read `docs/auth.md`)."
)]
#[cfg_attr(docsrs, doc(cfg(feature = "jwt")))]
pub mod auth {}

#[doc = include_str!("../docs/testing.md")]
pub mod testing {}

#[doc = include_str!("../docs/observability.md")]
pub mod observability {}

#[doc = include_str!("../docs/skills.md")]
pub mod skills {}

#[doc = include_str!("../docs/apps.md")]
pub mod apps {}

#[doc = include_str!("../docs/performance.md")]
pub mod performance {}

#[doc = include_str!("../docs/reliability.md")]
pub mod reliability {}
