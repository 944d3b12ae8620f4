//! `Server`: the registry of tools, resources and prompts, built once (`builder`) with its
//! options and limits (`options`). Schemas are generated, post-processed and compiled into
//! validators when a tool is registered, and `tools/list` pages are serialized then
//! (`list`), so that a call does no schema work.

mod builder;
mod list;
mod options;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde_json::Value;
use serde_json::value::RawValue;

use crate::auth::principal::Principal;
use crate::context::ctx::{Caller, CancelState, Notices};
use crate::features::prompts::{PromptDef, PromptSpec, Prompts};
use crate::features::resources::Resources;
use crate::rpc::channel::Channel;
use crate::rpc::era::Client;
use crate::state::store::Stores;
use crate::tools::tool::ToolDef;

pub use crate::context::ctx::BoxFuture;
pub use crate::schema::generate::InputSpec;
pub use crate::tools::tool::ToolSpec;
pub(crate) use builder::register;
pub use builder::{ServerBuilder, store_from_url};
pub use list::FAILURES_META_KEY;
use list::list_pages;
pub(crate) use list::{cursor_for, page_index};
pub use options::CacheScope;
pub(crate) use options::Options;

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

/// One registered tool, ready to serve.
pub(crate) struct Registered {
    pub(crate) spec: ToolSpec,
    pub(crate) input_validator: jsonschema::Validator,
    /// The input schema as listed (hints read property order and `$defs` from it).
    pub(crate) input_schema: Value,
    /// Optional root properties whose Rust type takes `null`: a `null` sent for one of them
    /// is read as absent (the listed schema does not allow `null`, for portability).
    pub(crate) null_means_absent: Box<[String]>,
    pub(crate) output_validator: Option<jsonschema::Validator>,
    pub(crate) descriptor_output: Option<Value>,
    /// The declared failure modes as `tools/list` carries them in `_meta`, when listed.
    pub(crate) failures_meta: Option<Value>,
    /// The Rust type's schema is not an object: values travel as `{"result": …}`.
    pub(crate) wrap_result: bool,
    pub(crate) disabled: Option<String>,
    pub(crate) timeout: Option<Duration>,
    /// Parameters mirrored into `Mcp-Param-*` headers (`x-mcp-header`), checked on
    /// 2026-07-28 HTTP calls.
    pub(crate) header_params: Box<[crate::schema::generate::HeaderParam]>,
    /// How quickly this fn without `async` has run: where its calls run (see `Pace`).
    pub(crate) pace: crate::tools::pace::Pace,
}

impl Registered {
    /// Whether a call of this tool may run where the transport read it (the stdio reader, the
    /// HTTP request's task), with no task of its own: a fn without `async`, with no time
    /// limit (which only the blocking pool can enforce on such a fn), and seen quick often
    /// enough in a row (`Pace::on_reader`). A call that turns out slow holds the reader for
    /// its duration; its tool's calls then run in tasks until it is seen quick twice as often
    /// in a row as before (or on the blocking pool once it is seen to block).
    pub(crate) fn runs_inline(&self) -> bool {
        self.spec.blocking && self.timeout.is_none() && self.pace.on_reader()
    }

    /// Where this tool's failures are rendered: with `structuredContent.error` unless the
    /// tool declares an `outputSchema` and the server keeps the spec's default.
    pub(crate) fn site(&self, options: &Options) -> crate::rpc::envelope::Site<'_> {
        crate::rpc::envelope::Site {
            family: "tool",
            tool: self.spec.name,
            contract: self.spec.contract,
            structured: options.structured_errors || self.output_validator.is_none(),
            causes: options.error_causes,
        }
    }
}

pub(crate) struct Shared {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    /// `{"name":…,"version":…}`, for modern results' `_meta`.
    pub(crate) server_info: Box<RawValue>,
    /// The tools served now; replaced whole when a tool is added or removed (and listeners
    /// told, on the bus).
    tools: RwLock<Arc<Tools>>,
    pub(crate) resources: Resources,
    /// What listeners hear, on every replica: list changes and resource updates announced by
    /// the server or a handler, task changes.
    pub(crate) notices: Arc<Notices>,
    /// The prompts served now; replaced whole when one is added or removed.
    prompts: RwLock<Arc<Prompts>>,
    /// Bumped when the prompt list changes here: a server that had none offers prompts.
    pub(crate) prompts_changed: tokio::sync::watch::Sender<u64>,
    pub(crate) options: Options,
    /// The hooks around every call, and the metrics when the server exports them.
    pub(crate) observer: crate::observe::Observer,
    /// App data, the state store and the sealer of `requestState`.
    pub(crate) stores: Arc<Stores>,
    /// The tasks of `#[tool(task = ..)]` tools, kept in the state store.
    pub(crate) tasks: crate::tasks::Tasks,
    /// Blocking-pool threads handlers may hold at once (`max_in_flight`).
    pub(crate) blocking: Arc<tokio::sync::Semaphore>,
}

/// The tools served, with their `tools/list` pages serialized once per era: page `i`
/// answers cursor `i`.
pub(crate) struct Tools {
    pub(crate) all: Vec<Arc<Registered>>,
    by_name: HashMap<&'static str, usize>,
    pub(crate) legacy_pages: Vec<Box<RawValue>>,
    pub(crate) modern_pages: Vec<Box<RawValue>>,
}

impl Tools {
    pub(crate) fn get(&self, name: &str) -> Option<&Arc<Registered>> {
        self.by_name.get(name).map(|&i| &self.all[i])
    }

    fn new(tools: Vec<Arc<Registered>>, options: &Options, server_info: &RawValue) -> Tools {
        let by_name = tools.iter().enumerate().map(|(i, t)| (t.spec.name, i)).collect();
        let legacy_pages = list_pages(&tools, options, None);
        let modern_pages = list_pages(&tools, options, Some(server_info));
        Tools { all: tools, by_name, legacy_pages, modern_pages }
    }
}

impl Shared {
    /// What a feature's request may see of this server, for a request of `client` on
    /// `channel` that `cancel` stops.
    pub(crate) fn caller<'a>(
        &'a self,
        channel: &'a Arc<Channel>,
        client: &'a Client,
        cancel: &'a Arc<CancelState>,
    ) -> Caller<'a> {
        Caller {
            channel,
            hooks: &self.observer.hooks,
            client,
            cancel,
            stores: &self.stores,
            notices: &self.notices,
            causes: self.options.error_causes,
            ask_timeout: self.options.ask_timeout,
        }
    }

    /// Whether `tools/list` shows `tool` to a caller with `principal`: always, unless the
    /// server hides the tools whose scopes the caller lacks.
    pub(crate) fn lists_to(&self, tool: &Registered, principal: Option<&Principal>) -> bool {
        !self.options.hide_unauthorized_tools
            || crate::auth::principal::require(principal, tool.spec.scopes, "").is_ok()
    }

    /// The `tools/list` pages for a caller with `principal` (modern ones when `modern`): the
    /// pages made once, unless some listed tool is hidden from this caller.
    pub(crate) fn list_pages_for<'t>(
        &self,
        tools: &'t Tools,
        principal: Option<&Principal>,
        modern: bool,
    ) -> std::borrow::Cow<'t, [Box<RawValue>]> {
        let made = if modern { &tools.modern_pages } else { &tools.legacy_pages };
        if tools.all.iter().all(|t| t.disabled.is_some() || self.lists_to(t, principal)) {
            return std::borrow::Cow::Borrowed(made);
        }
        let shown: Vec<Arc<Registered>> = tools.all.iter().filter(|t| self.lists_to(t, principal)).cloned().collect();
        std::borrow::Cow::Owned(list_pages(&shown, &self.options, modern.then_some(&*self.server_info)))
    }

    /// Whether the server serves the tool (`tools/call`) or prompt (`prompts/get`) `name`:
    /// only such names are metric attributes.
    pub(crate) fn serves(&self, method: &str, name: &str) -> bool {
        match method {
            "tools/call" => self.tools().get(name).is_some(),
            "prompts/get" => self.prompts().get(name).is_some(),
            _ => false,
        }
    }

    /// The tools served now (a consistent set, for the whole of one request).
    pub(crate) fn tools(&self) -> Arc<Tools> {
        Arc::clone(&self.tools.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Whether some tool served now may answer with a task: `server/discover` then offers
    /// the tasks extension, and `tasks/*` are served.
    pub(crate) fn has_task_tools(&self) -> bool {
        self.tools().all.iter().any(|t| t.spec.task.is_some() && t.disabled.is_none())
    }

    /// The prompts served now.
    pub(crate) fn prompts(&self) -> Arc<Prompts> {
        Arc::clone(&self.prompts.read().unwrap_or_else(std::sync::PoisonError::into_inner))
    }

    /// Whether prompts are a capability of this server (some were registered at build
    /// time, or added since).
    pub(crate) fn has_prompts(&self) -> bool {
        !self.prompts().all.is_empty() || *self.prompts_changed.borrow() > 0
    }

    /// Replaces the tool set with what `change` makes of it, and tells listeners.
    fn change_tools(&self, change: impl FnOnce(&mut Vec<Arc<Registered>>) -> bool) -> bool {
        let mut current = self.tools.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut tools = current.all.clone();
        if !change(&mut tools) {
            return false;
        }
        *current = Arc::new(Tools::new(tools, &self.options, &self.server_info));
        drop(current);
        self.notices.bus.publish(crate::state::bus::Event::ToolsChanged);
        true
    }
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
