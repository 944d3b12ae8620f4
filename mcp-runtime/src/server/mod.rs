//! `Server`: the public handle of a server, built once (`builder`) with its options and
//! limits. Schemas are generated, post-processed and compiled into validators when a tool is
//! registered, and `tools/list` pages are serialized then (`features::tools::list`), so that
//! a call does no schema work.

mod builder;

use std::any::TypeId;
use std::sync::Arc;

use serde_json::Value;

use crate::features::Shared;
use crate::features::prompts::{PromptDef, PromptSpec, Prompts};
use crate::features::tools::list::descriptor;
use crate::features::tools::tool::ToolDef;

pub use crate::features::tools::list::FAILURES_META_KEY;
pub use crate::options::CacheScope;
pub(crate) use builder::register;
pub use builder::{ServerBuilder, store_from_url};

/// Why a server could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Two tools share a name.
    #[error("two tools are named `{0}`; tool names must be unique (rename one with #[tool(name = \"…\")])")]
    DuplicateTool(String),
    /// A generated schema could not be compiled into a validator.
    #[error("the {which} schema of tool `{tool}` does not compile: {message}")]
    InvalidSchema {
        /// The tool.
        tool: String,
        /// `input` or `output`.
        which: &'static str,
        /// What the validator said.
        message: String,
    },
    /// A tool needs a session, and the server is configured without them.
    #[error(
        "tool `{0}` needs a session (`#[tool(needs_session)]`), but the server serves HTTP without sessions (`ServerBuilder::stateless_http(true)`, `--stateless`): serve it with sessions, or register the tool on another server"
    )]
    NeedsSession(String),
    /// Tools ask the client, and the server serves HTTP without sessions, where a 2025-era
    /// client cannot be asked; `ServerBuilder::deny_stateless_asks(true)` makes that an error.
    #[error(
        "{} (`deny_stateless_asks(true)`): serve with sessions, or turn `deny_stateless_asks` off to serve {} to 2026-07-28 clients only",
        asking_tools(.0),
        if .0.len() == 1 { "it" } else { "them" }
    )]
    AsksWithoutSessions(Vec<String>),
    /// A tool reads app data (`#[tool(app_data(T))]`) of a type that was not registered.
    #[error(
        "tool `{tool}` reads app data `{type_name}` (`#[tool(app_data(..))]`), but none was registered: add `.app_data(value)` with a `{type_name}` to `Server::builder(..)`, or the tool fails every call"
    )]
    MissingAppData {
        /// The tool.
        tool: String,
        /// The type's name (`std::any::type_name`).
        type_name: &'static str,
    },
    /// Two prompts share a name.
    #[error("two prompts are named `{0}`; prompt names must be unique (rename one with #[prompt(name = \"…\")])")]
    DuplicatePrompt(String),
    /// A resource cannot be registered as declared.
    #[error("resource `{resource}` cannot be registered: {message}")]
    InvalidResource {
        /// The resource's name.
        resource: String,
        /// What is wrong.
        message: String,
    },
    /// A skill ([`ServerBuilder::skills_dir`], [`ServerBuilder::skill`]) cannot be served:
    /// the file, and what is wrong with it.
    #[error("skill file `{file}`: {reason}")]
    InvalidSkill {
        /// The file (under the skills directory, or `skill `name`/path` for one declared in
        /// code).
        file: String,
        /// What is wrong, and what to do.
        reason: String,
    },
    /// A tool's `#[tool(ui = "ui://..")]` names no MCP Apps view of this server.
    #[error("tool `{tool}` shows its results in `{uri}`, which is not a view of this server; {}", view_hint(.uri, .views))]
    UnknownView {
        /// The tool.
        tool: String,
        /// The view it names.
        uri: String,
        /// The views the server has, comma-separated (empty when it has none).
        views: String,
    },
    /// A `requestState` sealing key is unusable (too short). Names the setting, never the key.
    #[error("{0}")]
    RequestStateKey(String),
    /// The state store named by `ServerBuilder::state_store_url` cannot be used.
    #[error("{0}")]
    StateStore(#[from] crate::state::store::StoreError),
    /// The authorization settings cannot be used.
    #[error("authorization: {0}")]
    InvalidAuthorization(String),
    /// `disable` or `policy` named a tool that is not registered.
    #[error("`{0}` is not a registered tool")]
    UnknownTool(String),
    /// Reading or writing the transport failed.
    #[error("transport failed: {0}")]
    Io(#[from] std::io::Error),
}

pub(crate) use crate::hooks::policy::{PolicyRequest, Refusal};

/// "tool `a` asks the client (..) .. cannot be asked anything", for the stateless check.
pub(crate) fn asking_tools(tools: &[String]) -> String {
    let (noun, verb) = if tools.len() == 1 { ("tool", "asks") } else { ("tools", "ask") };
    format!(
        "{noun} `{}` {verb} the client (elicitation, sampling, roots or consent), but the server serves HTTP without sessions (`stateless_http(true)`, `--stateless`), where a 2025-era client cannot be asked anything",
        tools.join("`, `")
    )
}

/// An MCP server: tools, built and validated once; serve it with [`Server::serve_stdio`], or
/// call a tool in-process with [`Server::call`].
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> String {
///     (a + b).to_string()
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::builder("calc", "1.0.0").tool(add).build()?;
/// let result = server.call("add", serde_json::json!({"a": 2, "b": 3})).await;
/// assert_eq!(result.first_text(), Some("5"));
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

impl Server {
    /// App data registered with [`ServerBuilder::app_data`], from outside a handler.
    pub fn app_data<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.shared.stores.app_data.get(&TypeId::of::<T>()).and_then(|b| b.downcast_ref::<T>())
    }

    /// The state store handlers reach with `ctx.state()`, scoped to this server and no tenant:
    /// to seed or inspect it from outside a handler.
    pub fn state(&self) -> crate::state::store::State<'_> {
        crate::state::store::State::new(&self.shared.stores, "")
    }

    /// Adds a tool while the server runs (or replaces the one of that name): the next
    /// `tools/list` shows it, and clients listening for changes are told
    /// (`notifications/tools/list_changed`). A tool whose schema does not compile, or that
    /// reads app data that was not registered, is refused as at build time.
    pub fn add_tool<T: ToolDef>(&self, _tool: fn() -> T) -> Result<(), Error> {
        let spec = T::spec();
        builder::app_data_registered(&spec, &self.shared.stores.app_data)?;
        builder::view_served(&spec, &self.shared.resources)?;
        let registered = Arc::new(register(spec, None, &self.shared.options)?);
        self.shared.change_tools(|tools| {
            tools.retain(|t| t.spec.name != registered.spec.name);
            tools.push(registered);
            true
        });
        Ok(())
    }

    /// Removes a tool while the server runs; calls already running finish. `false` when no
    /// tool has that name. Clients listening for changes are told.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.shared.change_tools(|tools| {
            let before = tools.len();
            tools.retain(|t| t.spec.name != name);
            tools.len() < before
        })
    }
}

impl Server {
    /// Adds a prompt while the server runs (or replaces the one of that name): clients
    /// listening for changes are told (`notifications/prompts/list_changed`).
    pub fn add_prompt<T: PromptDef>(&self, _prompt: fn() -> T) {
        let spec = Arc::new(T::spec());
        self.change_prompts(|prompts| {
            prompts.retain(|p| p.name != spec.name);
            prompts.push(spec);
            true
        });
    }

    /// Removes a prompt while the server runs. `false` when no prompt has that name.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.change_prompts(|prompts| {
            let before = prompts.len();
            prompts.retain(|p| p.name != name);
            prompts.len() < before
        })
    }

    fn change_prompts(&self, change: impl FnOnce(&mut Vec<Arc<PromptSpec>>) -> bool) -> bool {
        let shared = &self.shared;
        let mut current = shared.prompts.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut all = current.all.clone();
        if !change(&mut all) {
            return false;
        }
        *current = Arc::new(Prompts { all });
        drop(current);
        shared.prompts_changed.send_modify(|n| *n += 1);
        shared.notices.bus.publish(crate::state::bus::Event::PromptsChanged);
        true
    }

    /// Tells clients that the set of resources changed (a template's `list` fn now lists
    /// other instances): `notifications/resources/list_changed` goes to 2025 sessions and to
    /// 2026-07-28 listen streams that asked for it.
    pub fn resources_changed(&self) {
        self.shared.notices.resources_changed();
    }

    /// Tells clients subscribed to `uri` that its contents changed:
    /// `notifications/resources/updated` goes to the 2025 sessions that sent
    /// `resources/subscribe` for it and to 2026-07-28 listen streams that named it.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.shared.notices.resource_updated(uri.into());
    }
}

impl Server {
    /// The descriptors `tools/list` sends (all pages), for inspection and tests.
    pub fn tool_descriptors(&self) -> Vec<Value> {
        let descriptor =
            |tool| serde_json::to_value(descriptor(tool)).unwrap_or_else(|_| unreachable!("descriptors serialize"));
        self.shared.tools().all.iter().filter(|t| t.disabled.is_none()).map(|t| descriptor(t)).collect()
    }
}

/// What to do about a tool whose view is not served: the views there are, or how to add one.
fn view_hint(uri: &str, views: &str) -> String {
    if views.is_empty() {
        format!("declare it with `#[resource(ui, uri = \"{uri}\")]` and register it with `.resource(..)`")
    } else {
        format!("the views are {views}: fix the tool's `ui`, or register the resource at `{uri}`")
    }
}
