//! Resources, prompts and completion as the session routes them: which methods they answer,
//! the capabilities they add (only when the server has them), their list pages, and the
//! shape of their results in each era.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::auth::principal::Principal;
use crate::auth::principal::grants;
use crate::context::ask;
use crate::context::ctx::Caller;
use crate::features::Shared;
use crate::features::call::near;
use crate::features::completion::{self, CompletionRequest, Ref};
use crate::features::page::{cursor_for, page_index};
use crate::features::{prompts, resources, skills};
use crate::rpc::era::Client;
use crate::rpc::jsonrpc::RpcError;

/// A request for a feature that runs in a task of its own (its handler is the author's).
pub(crate) enum Feature {
    ResourcesList(Option<Value>),
    /// The URI, and the params (for a 2026-07-28 retry's answers).
    Read(String, Option<Value>),
    GetPrompt(Option<Value>),
    Complete(CompletionRequest),
}

/// The methods whose handlers are the author's code: they run in their own task.
pub(crate) fn runs_alone(method: &str) -> bool {
    matches!(method, "resources/list" | "resources/read" | "prompts/get" | "completion/complete")
}

/// Whether this server answers `method` (a feature it has none of is not found).
fn served(shared: &Shared, method: &str) -> bool {
    match method.split('/').next() {
        Some("skills") => !shared.skills.is_empty(),
        Some("resources") => !shared.resources.is_empty(),
        Some("prompts") => shared.has_prompts(),
        Some("completion") => completions(shared),
        _ => false,
    }
}

/// Completion is offered when there is something to complete: a prompt or a template.
fn completions(shared: &Shared) -> bool {
    shared.has_prompts() || shared.resources.all.iter().any(|r| r.template.is_some())
}

/// The parsed request of a method that runs alone.
pub(crate) fn request(shared: &Shared, method: &str, params: Option<Value>) -> Result<Feature, RpcError> {
    if !served(shared, method) {
        return Err(RpcError::method_not_found(method));
    }
    Ok(match method {
        "resources/list" => Feature::ResourcesList(params),
        "resources/read" => Feature::Read(resources::read_request(params.as_ref())?, params),
        "prompts/get" => Feature::GetPrompt(params),
        _ => Feature::Complete(completion::request(params.as_ref())?),
    })
}

/// Runs a feature request: its result as the request's era shows it.
pub(crate) async fn run(shared: &Shared, caller: &Caller<'_>, feature: Feature) -> Result<Value, RpcError> {
    let (body, cacheable) = match feature {
        Feature::ResourcesList(params) => {
            let all = resources::list(caller, &shared.resources).await?;
            (page(shared, all, "resources", params.as_ref())?, true)
        }
        Feature::Read(uri, params) => {
            match complete_or_asked(shared, resources::read(caller, &shared.resources, uri, params.as_ref()).await?) {
                Ok(body) => (body, true),
                Err(input_required) => return Ok(input_required),
            }
        }
        Feature::GetPrompt(params) => {
            match complete_or_asked(shared, prompts::get(caller, &shared.prompts(), params.as_ref()).await?) {
                Ok(body) => (body, false),
                Err(input_required) => return Ok(input_required),
            }
        }
        Feature::Complete(req) => {
            let prompts = shared.prompts();
            let (owner, scopes, completers) = match &req.reference {
                Ref::Prompt(name) => {
                    let prompt = prompts.get(name).ok_or_else(|| {
                        let shown = crate::rpc::envelope::display_name(name);
                        let listed = prompts.all.iter().filter(|p| grants(caller.channel.principal(), p.scopes));
                        unknown_ref(
                            format!("Invalid params: unknown prompt {shown}; list prompts with prompts/list"),
                            near(&shown, listed.map(|p| p.name)),
                        )
                    })?;
                    (prompt.name, prompt.scopes, &prompt.complete[..])
                }
                Ref::Resource(uri) => {
                    let resource = shared.resources.template(uri).ok_or_else(|| {
                        let shown = crate::rpc::envelope::display_name(uri);
                        let listed = shared.resources.all.iter().filter(|r| {
                            r.template.is_some() && grants(caller.channel.principal(), r.spec.scopes)
                        });
                        unknown_ref(
                            format!(
                                "Invalid params: no resource template is written `{shown}`; list them with resources/templates/list"
                            ),
                            near(&shown, listed.map(|r| r.spec.uri)),
                        )
                    })?;
                    (resource.spec.name, resource.spec.scopes, &resource.spec.complete[..])
                }
            };
            // Suggestions show what the prompt or template guards: the same scopes as using it.
            (completion::run(caller, owner, scopes, completers, req).await?, false)
        }
    };
    Ok(finish(shared, caller.client, body, cacheable))
}

/// A completion's `ref` that names nothing: `-32602`, with the road's did-you-mean
/// (`features::call::near`) among the names listed to this caller.
fn unknown_ref(message: String, near: Option<&str>) -> RpcError {
    match near {
        Some(near) => RpcError::invalid_params(format!("{message}; did you mean {near}?")),
        None => RpcError::invalid_params(message),
    }
}

/// A complete result's body, or `Err` carrying the `input_required` result to send as it is.
fn complete_or_asked(shared: &Shared, reply: ask::Reply<Value>) -> Result<Value, Value> {
    match reply {
        ask::Reply::Complete(body) => Ok(body),
        ask::Reply::Task(task) => {
            Err(serde_json::to_value(crate::rpc::era::Complete::task(&task, &shared.server_info))
                .unwrap_or_else(|_| unreachable!("a task's members serialize")))
        }
        ask::Reply::InputRequired(asked) => Err(serde_json::to_value(ask::render(&asked, &shared.server_info))
            .unwrap_or_else(|_| unreachable!("input requests serialize"))),
    }
}

/// Feature methods answered at once (no author code runs), or `None` for another method.
pub(crate) fn answer(
    shared: &Shared,
    client: &Client,
    principal: Option<&Principal>,
    method: &str,
    params: Option<&Value>,
) -> Option<Result<Value, RpcError>> {
    let (listed, key, cacheable) = match method {
        "resources/templates/list" => (resources::templates(&shared.resources, principal), "resourceTemplates", true),
        "prompts/list" => (prompts::list(&shared.prompts(), principal), "prompts", true),
        "skills/list" | "skills/get" | "resources/directory/read" if shared.skills.is_empty() => {
            return Some(Err(RpcError::method_not_found(method)));
        }
        "skills/list" => (shared.skills.list(principal), "skills", true),
        "skills/get" => {
            return Some(shared.skills.get(principal, params).map(|body| finish(shared, client, body, true)));
        }
        "resources/directory/read" => match skills::directory(&shared.resources, principal, params) {
            Ok(children) => (children, "resources", false),
            Err(e) => return Some(Err(e)),
        },
        _ => return None,
    };
    if !served(shared, method) {
        return Some(Err(RpcError::method_not_found(method)));
    }
    Some(page(shared, listed, key, params).map(|body| finish(shared, client, body, cacheable)))
}

/// A modern result: `resultType`, the cache hints when the result may be cached, and the
/// server's name in `_meta`. A legacy one is the body as it is.
fn finish(shared: &Shared, client: &Client, body: Value, cacheable: bool) -> Value {
    let Client::Modern(_) = client else { return body };
    let Value::Object(mut map) = body else { return body };
    map.insert("resultType".into(), Value::from("complete"));
    if cacheable {
        map.insert("ttlMs".into(), Value::from(shared.options.cache_ttl_ms));
        map.insert("cacheScope".into(), json!(shared.options.cache_scope));
    }
    let server_info: Value = serde_json::from_str(shared.server_info.get()).unwrap_or_default();
    map.insert("_meta".into(), json!({"io.modelcontextprotocol/serverInfo": server_info}));
    Value::Object(map)
}

/// One page of a list, by the request's cursor.
fn page(shared: &Shared, items: Vec<Value>, key: &str, params: Option<&Value>) -> Result<Value, RpcError> {
    let size = shared.options.page_size.unwrap_or(usize::MAX).max(1);
    let pages = items.len().div_ceil(size).max(1);
    let at = page_index(params, pages, "list again")?;
    let mut body = Map::new();
    let items: Vec<Value> = items.into_iter().skip(at.saturating_mul(size)).take(size).collect();
    body.insert(key.to_owned(), Value::Array(items));
    if at + 1 < pages {
        body.insert("nextCursor".into(), Value::from(cursor_for(at + 1)));
    }
    Ok(Value::Object(body))
}

/// The capabilities of the features this server has, for `initialize` (legacy) and
/// `server/discover` (modern); `told` when the client can hear of changes (a modern listen
/// stream, a 2025 session's forwarding).
pub(crate) fn capabilities(shared: &Shared, told: bool, into: &mut Map<String, Value>) {
    if !shared.resources.is_empty() {
        into.insert("resources".into(), json!({"subscribe": told, "listChanged": told}));
    }
    if shared.has_prompts() {
        into.insert("prompts".into(), json!({"listChanged": told}));
    }
    if completions(shared) {
        into.insert("completions".into(), json!({}));
    }
    if !shared.skills.is_empty() {
        skills::capability(into);
    }
    if shared.resources.has_views() {
        crate::features::apps::capability(into);
    }
}

/// What a listen stream asked for beyond tools, as far as this server can honour it.
#[derive(Default)]
pub(crate) struct Listening {
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    /// URIs whose `notifications/resources/updated` the stream wants.
    pub(crate) subscriptions: Vec<Arc<str>>,
}

impl Listening {
    /// Reads `promptsListChanged`, `resourcesListChanged` and `resourceSubscriptions` from a
    /// listen filter; what this server has none of is left out.
    /// A subscription to a resource this server does not have, or one `principal` may not
    /// read, is left out.
    pub(crate) fn read(shared: &Shared, principal: Option<&Principal>, filter: &Value) -> Result<Listening, RpcError> {
        let flag = |key: &str| match filter.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(_) => {
                Err(RpcError::invalid_params(format!("Invalid params: `notifications.{key}` must be a boolean")))
            }
        };
        let prompts = flag("promptsListChanged")? && shared.has_prompts();
        let resources = flag("resourcesListChanged")? && !shared.resources.is_empty();
        let subscriptions = match filter.get("resourceSubscriptions") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(uris)) if uris.iter().all(Value::is_string) => {
                // Refused before any work: the cap bounds the matching below.
                if uris.len() > shared.options.max_listen_subscriptions {
                    return Err(Self::too_many(shared.options.max_listen_subscriptions, uris.len()));
                }
                let bytes: usize = uris.iter().filter_map(Value::as_str).map(str::len).sum();
                let max_bytes = shared.options.max_listen_subscription_bytes;
                if bytes > max_bytes {
                    return Err(RpcError::invalid_params(format!(
                        "Invalid params: the URIs a listen stream subscribes to add up to at most {max_bytes} bytes (this one's add up to {bytes}); open another for the rest"
                    )));
                }
                let mut kept: Vec<Arc<str>> = Vec::new();
                for uri in uris.iter().filter_map(Value::as_str) {
                    let readable = shared
                        .resources
                        .scopes_of(uri)
                        .is_some_and(|scopes| crate::auth::principal::grants(principal, scopes));
                    if readable && !kept.iter().any(|k| **k == *uri) {
                        kept.push(Arc::from(uri));
                    }
                }
                kept
            }
            Some(_) => {
                return Err(RpcError::invalid_params(
                    "Invalid params: `notifications.resourceSubscriptions` must be an array of URIs",
                ));
            }
        };
        let subscriptions = if shared.resources.is_empty() { Vec::new() } else { subscriptions };
        Ok(Listening { prompts, resources, subscriptions })
    }

    /// A listen that subscribes to more than `max` resources.
    pub(crate) fn too_many(max: usize, listed: usize) -> RpcError {
        RpcError::invalid_params(format!(
            "Invalid params: a listen stream subscribes to at most {max} resources (this one lists {listed}); open another for the rest"
        ))
    }

    /// The honoured part of the filter, for the acknowledgement.
    pub(crate) fn honoured(&self, into: &mut Map<String, Value>) {
        if self.prompts {
            into.insert("promptsListChanged".into(), Value::Bool(true));
        }
        if self.resources {
            into.insert("resourcesListChanged".into(), Value::Bool(true));
        }
        if !self.subscriptions.is_empty() {
            into.insert(
                "resourceSubscriptions".into(),
                json!(self.subscriptions.iter().map(|u| &**u).collect::<Vec<_>>()),
            );
        }
    }
}
