//! The families a server serves, each with the same three steps (resolve, run, shape) on
//! the one road they share (`call`): tools (`tools/`), resources (`resources`, templates
//! matched by `uri_template`), prompts (`prompts`), completion (`completion`) and skills
//! (`skills`: entries over files served as resources), MCP Apps views (`apps`: resources
//! and tools that declare `_meta.ui`); the list
//! cursors (`page`); and `Shared`, what every family's call reads of the server.

pub mod apps;
pub(crate) mod call;
pub(crate) mod completion;
pub(crate) mod page;
pub(crate) mod prompts;
pub(crate) mod resources;
pub(crate) mod skills;
pub(crate) mod tools;
pub(crate) mod uri_template;

use std::sync::{Arc, RwLock};

use serde_json::value::RawValue;

use crate::auth::principal::Principal;
use crate::context::ctx::{Caller, CancelState, Notices};
use crate::options::Options;
use crate::rpc::channel::Channel;
use crate::rpc::era::Client;
use crate::state::store::Stores;
use prompts::Prompts;
use resources::Resources;
use tools::list::list_pages;
use tools::{Registered, Tools};

/// Declares extension `id` with its `settings` in `capabilities.extensions`, beside the
/// others the server declares.
pub(crate) fn declare_extension(
    capabilities: &mut serde_json::Map<String, serde_json::Value>,
    id: &str,
    settings: serde_json::Value,
) {
    if let serde_json::Value::Object(extensions) =
        capabilities.entry("extensions").or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()))
    {
        extensions.insert(id.to_owned(), settings);
    }
}

/// What every family's call reads of the server: the families served now, the options,
/// the hooks and metrics, the stores, the tasks. Built once by `ServerBuilder::build`.
pub(crate) struct Shared {
    pub(crate) name: String,
    pub(crate) version: String,
    pub(crate) instructions: Option<String>,
    /// `{"name":…,"version":…}`, for modern results' `_meta`.
    pub(crate) server_info: Box<RawValue>,
    /// The tools served now; replaced whole when a tool is added or removed (and listeners
    /// told, on the bus).
    pub(crate) tools: RwLock<Arc<Tools>>,
    pub(crate) resources: Resources,
    /// The skills (`io.modelcontextprotocol/skills`): their files are among `resources`.
    pub(crate) skills: skills::Skills,
    /// What listeners hear, on every replica: list changes and resource updates announced by
    /// the server or a handler, task changes.
    pub(crate) notices: Arc<Notices>,
    /// The prompts served now; replaced whole when one is added or removed.
    pub(crate) prompts: RwLock<Arc<Prompts>>,
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
            drafts: self.options.drafts,
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
    pub(crate) fn change_tools(&self, change: impl FnOnce(&mut Vec<Arc<Registered>>) -> bool) -> bool {
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
