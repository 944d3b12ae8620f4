//! A request that runs in a task of its own (`tools/call`, `subscriptions/listen`, the tasks
//! methods, a feature's read, prompt or completion): its params parsed, its id registered
//! (so that a cancellation finds it), and then run, parked or refused as the transport
//! admits it. What runs leaves as a [`Job`] in [`Next::Call`], for `run`.

use serde_json::Value;
use serde_json::value::RawValue;

use super::{Admit, Job, Next, Parked, Seen, Session, Work, shown_id, value};
use crate::features::tools::call::{self, CallRequest};
use crate::hooks::Answer;
use crate::protocol::router::{self, Feature, Listening};
use crate::rpc::era::Client;
use crate::rpc::jsonrpc::{self, RpcError};

impl Session {
    /// A `tools/call` or `subscriptions/listen`: registered under its id (a second request
    /// with an id in use is refused), then run, parked or refused as `admit` says.
    pub(super) fn start(
        &self,
        id: &RawValue,
        method: &str,
        params: Option<&RawValue>,
        client: Client,
        admit: Admit,
        seen: Seen,
    ) -> Next {
        let work = |params| -> Result<Work, RpcError> {
            match method {
                "tools/call" => call_request(params).map(Work::Call),
                "subscriptions/listen" => listen_request(&self.shared, &client, self.channel.principal(), params),
                "tasks/get" | "tasks/update" | "tasks/cancel" => {
                    crate::tasks::request(method, &client, self.shared.has_task_tools(), value(params).as_ref())
                        .map(Work::Task)
                }
                _ => router::request(&self.shared, method, value(params)).map(Work::Feature),
            }
        };
        let cancel = if let Seen::Parked(Parked { registered: true, .. }) = seen {
            let found = self.in_flight_map().get(id.get()).cloned();
            match found {
                Some(cancel) if !cancel.is_cancelled() => cancel,
                _ => {
                    // Cancelled while it waited: it never runs, and nothing is sent.
                    self.in_flight_map().remove(id.get());
                    tracing::debug!(request = id.get(), "call cancelled before it started; not run");
                    return Next::Done;
                }
            }
        } else {
            let Some(cancel) = self.register(id) else {
                let message = format!(
                    "Invalid request: id {} is already in use by a call in progress; send each request with a new id",
                    shown_id(id)
                );
                self.refuse(id, method, params, Some(&client), &RpcError::invalid_request(message));
                return Next::Done;
            };
            if !admit.run {
                if admit.refuse {
                    self.in_flight_map().remove(id.get());
                    match work(params) {
                        Ok(Work::Call(req)) => {
                            let mut watch = self.watch(method, id, params);
                            watch.names(&self.shared.observer, &req.name, req.arguments.as_ref());
                            let result = call::busy(&self.shared, &req.name);
                            self.end(watch, Some(&client), Answer::Tool(&result));
                            self.send(self.result(id, &client, result));
                        }
                        Ok(Work::Listen { .. } | Work::Feature(_) | Work::Task(_)) => {
                            let busy = RpcError {
                                code: -32603,
                                message: format!(
                                    "Server busy: {} requests are already running; retry later",
                                    self.shared.options.max_in_flight
                                ),
                                data: None,
                            };
                            self.refuse(id, method, params, Some(&client), &busy);
                        }
                        Err(e) => self.refuse(id, method, params, Some(&client), &e),
                    }
                    return Next::Done;
                }
                return Next::Park(Parked { call: true, registered: true });
            }
            cancel
        };
        match work(params) {
            Ok(work) => {
                let mut watch = self.watch(method, id, params);
                match &work {
                    Work::Call(req) => watch.names(&self.shared.observer, &req.name, req.arguments.as_ref()),
                    Work::Feature(Feature::GetPrompt(Some(params))) => {
                        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
                        watch.names(&self.shared.observer, name, params.get("arguments"));
                    }
                    Work::Feature(Feature::Read(uri, _)) => watch.reads(&self.shared.observer, uri),
                    _ => {}
                }
                Next::Call { id: id.to_owned(), job: Job { client, work, watch }, cancel }
            }
            Err(e) => {
                self.in_flight_map().remove(id.get());
                self.refuse(id, method, params, Some(&client), &e);
                Next::Done
            }
        }
    }
}

/// The `subscriptions/listen` params: `{notifications: {toolsListChanged?, …}}`. Types this
/// server does not send are left out of the acknowledgement.
fn listen_request(
    shared: &crate::features::Shared,
    client: &Client,
    principal: Option<&crate::auth::principal::Principal>,
    params: Option<&RawValue>,
) -> Result<Work, RpcError> {
    let shape = || {
        RpcError::invalid_params(
            "Invalid params: subscriptions/listen needs params {notifications: {toolsListChanged?: boolean, …}}",
        )
    };
    // The caps first, on counts read without building the lists: a listen that lists 400,000
    // task ids is refused without a string allocated for one of them.
    if let Some((tasks, uris)) = listed(params) {
        if tasks > shared.options.max_listen_tasks {
            return Err(too_many_tasks(shared.options.max_listen_tasks, tasks));
        }
        if uris > shared.options.max_listen_subscriptions {
            return Err(Listening::too_many(shared.options.max_listen_subscriptions, uris));
        }
    }
    let params = value(params).ok_or_else(shape)?;
    let filter = params.get("notifications").filter(|f| f.is_object()).ok_or_else(shape)?;
    let tools = match filter.get("toolsListChanged") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            return Err(RpcError::invalid_params("Invalid params: `notifications.toolsListChanged` must be a boolean"));
        }
    };
    let task_ids = match filter.get("taskIds") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(ids)) if ids.iter().all(Value::is_string) => {
            if !ids.is_empty() && !crate::tasks::declared(client) {
                return Err(crate::tasks::missing_capability("`notifications.taskIds` of subscriptions/listen"));
            }
            // Refused before any work: the cap bounds the de-duplication below.
            if ids.len() > shared.options.max_listen_tasks {
                return Err(too_many_tasks(shared.options.max_listen_tasks, ids.len()));
            }
            let mut seen: Vec<String> = Vec::with_capacity(ids.len());
            for id in ids.iter().filter_map(Value::as_str) {
                if !seen.iter().any(|s| s == id) {
                    seen.push(id.to_owned());
                }
            }
            seen
        }
        Some(_) => {
            return Err(RpcError::invalid_params(
                "Invalid params: `notifications.taskIds` must be an array of task ids",
            ));
        }
    };
    Ok(Work::Listen { tools, more: Listening::read(shared, principal, filter)?, task_ids })
}

/// A listen that follows more than `max` tasks.
fn too_many_tasks(max: usize, listed: usize) -> RpcError {
    RpcError::invalid_params(format!(
        "Invalid params: a listen stream follows at most {max} tasks (this one lists {listed}); open another for the rest"
    ))
}

/// How many `notifications.taskIds` and `notifications.resourceSubscriptions` a listen's
/// params list, counted in one pass that builds nothing; `None` when the params are not of
/// that shape (the full read says what is wrong).
fn listed(params: Option<&RawValue>) -> Option<(usize, usize)> {
    use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        notifications: &'a RawValue,
    }
    #[derive(serde::Deserialize)]
    struct Lists {
        #[serde(default, rename = "taskIds")]
        tasks: Count,
        #[serde(default, rename = "resourceSubscriptions")]
        uris: Count,
    }
    /// The length of an array (0 for `null`), its elements skipped.
    #[derive(Default)]
    struct Count(usize);
    impl<'de> serde::Deserialize<'de> for Count {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Counter;
            impl<'de> Visitor<'de> for Counter {
                type Value = Count;
                fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                    f.write_str("an array")
                }
                fn visit_unit<E>(self) -> Result<Count, E> {
                    Ok(Count(0))
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Count, A::Error> {
                    let mut n = 0;
                    while seq.next_element::<IgnoredAny>()?.is_some() {
                        n += 1;
                    }
                    Ok(Count(n))
                }
            }
            d.deserialize_any(Counter)
        }
    }
    let params: Params<'_> = serde_json::from_str(params?.get()).ok()?;
    let lists: Lists = serde_json::from_str(params.notifications.get()).ok()?;
    Some((lists.tasks.0, lists.uris.0))
}

/// The members of `tools/call` params, unparsed but for `arguments`, which validation reads.
#[derive(serde::Deserialize)]
struct RawCall<'a> {
    #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
    name: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "jsonrpc::present")]
    arguments: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "_meta", deserialize_with = "jsonrpc::present")]
    meta: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "inputResponses", deserialize_with = "jsonrpc::present")]
    input_responses: Option<&'a RawValue>,
    #[serde(default, borrow, rename = "requestState", deserialize_with = "jsonrpc::present")]
    request_state: Option<&'a RawValue>,
}

/// The `CallToolRequest` shape: `{name: string, arguments?: object, _meta?: {progressToken?}}`.
fn call_request(params: Option<&RawValue>) -> Result<CallRequest, RpcError> {
    let shape = || RpcError::invalid_params("Invalid params: tools/call needs params {name, arguments?}");
    let params = params.filter(|p| jsonrpc::is_object(p)).ok_or_else(shape)?;
    let raw: RawCall<'_> = serde_json::from_str(params.get()).map_err(|_| shape())?;
    let name = match raw.name {
        None => return Err(RpcError::invalid_params("Invalid params: `name` is required")),
        Some(name) => serde_json::from_str::<String>(name.get())
            .map_err(|_| RpcError::invalid_params("Invalid params: `name` must be a string"))?,
    };
    let arguments = match raw.arguments {
        None => None,
        Some(args) if jsonrpc::is_object(args) => Some(serde_json::from_str::<Value>(args.get()).map_err(|_| shape())?),
        Some(_) => return Err(RpcError::invalid_params("Invalid params: `arguments` must be an object")),
    };
    let progress_token = match raw.meta {
        None => None,
        Some(meta) if jsonrpc::is_object(meta) => {
            #[derive(serde::Deserialize)]
            struct Meta<'a> {
                #[serde(default, borrow, rename = "progressToken", deserialize_with = "jsonrpc::present")]
                token: Option<&'a RawValue>,
            }
            let meta: Meta<'_> = serde_json::from_str(meta.get()).map_err(|_| shape())?;
            match meta.token {
                None => None,
                Some(token) => match jsonrpc::valid_id(token) {
                    Ok(token) => Some(token.to_owned()),
                    Err(_) if token.get().len() > jsonrpc::MAX_ID_BYTES => {
                        return Err(RpcError::invalid_params(format!(
                            "Invalid params: `_meta.progressToken` is longer than {} bytes",
                            jsonrpc::MAX_ID_BYTES
                        )));
                    }
                    Err(_) => {
                        return Err(RpcError::invalid_params(
                            "Invalid params: `_meta.progressToken` must be a string or a number",
                        ));
                    }
                },
            }
        }
        Some(_) => return Err(RpcError::invalid_params("Invalid params: `_meta` must be an object")),
    };
    Ok(CallRequest {
        name,
        arguments,
        progress_token,
        input_responses: raw.input_responses.map(ToOwned::to_owned),
        request_state: raw.request_state.map(ToOwned::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed_in(params: &str) -> Option<(usize, usize)> {
        listed(Some(&*RawValue::from_string(params.to_owned()).expect("JSON")))
    }

    #[test]
    fn the_lists_of_a_listen_are_counted_without_being_built() {
        let ids: Vec<String> = (0..1000).map(|n| format!("{n}")).collect();
        let params = serde_json::json!({"notifications": {"taskIds": ids, "resourceSubscriptions": ["a://b", {"x": [1]}],
            "toolsListChanged": true}, "_meta": {}});
        assert_eq!(listed_in(&params.to_string()), Some((1000, 2)));
        assert_eq!(listed_in(r#"{"notifications": {"taskIds": null}}"#), Some((0, 0)));
        assert_eq!(listed_in(r#"{"notifications": {}}"#), Some((0, 0)));
        // Not the shape: the full read says what is wrong.
        assert_eq!(listed_in(r#"{"notifications": {"taskIds": "a"}}"#), None);
        assert_eq!(listed_in(r#"{"notifications": 5}"#), None);
        assert_eq!(listed_in("{}"), None);
        assert_eq!(listed(None), None);
    }
}
