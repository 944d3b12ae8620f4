//! [`TestClient`]: a client of a [`Server`] in the same process, speaking JSON-RPC to the
//! same session logic stdio serves, in either era, that answers the server's asks and keeps
//! the notifications it is sent.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::protocol::session::{Admit, Next, Seen, Session, State};
use crate::rpc::channel::Channel;
pub use crate::rpc::era::Era;
use crate::rpc::outbox::Outbox;
use crate::server::Server;

/// How a [`TestClient`] answers what the server asks: the request's `method` and `params`
/// in, the result out (`{"action": "accept", "content": {..}}` for an elicitation).
type Answerer = Box<dyn FnMut(&str, &Value) -> Value + Send>;

/// A client of a [`Server`], in-process, through the real pipeline: every request is a
/// JSON-RPC line handled by the same session code as stdio (resolution, policy, schemas,
/// handler, envelope, era shapes), and every answer is the JSON a client would read.
///
/// - [`call`](Self::call), [`list_tools`](Self::list_tools), [`read`](Self::read),
///   [`get_prompt`](Self::get_prompt), or any [`request`](Self::request);
/// - [`answering`](Self::answering): answers the server's asks (elicitation, sampling,
///   roots) in both eras, and declares the client capabilities they need;
/// - [`notifications`](Self::notifications): the progress, log and other notifications the
///   server sent, in order.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::testing::{Era, TestClient};
/// use mcp_runtime::{Ask, Elicitation, Elicited};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Confirm {
///     /// Really delete?
///     ok: bool,
/// }
///
/// /// Deletes a path after the user confirms.
/// #[tool]
/// fn delete_path(ctx: &Ctx, path: String) -> Result<String, ToolError> {
///     match ctx.inputs().form::<Confirm>("confirm") {
///         Elicited::Accepted(Confirm { ok: true }) => Ok(format!("deleted {path}")),
///         Elicited::Missing => Err(ctx.ask(
///             Ask::new().elicit("confirm", Elicitation::form_for::<Confirm>(format!("Delete {path}?"))),
///         )),
///         _ => Err(ToolError::forbidden("The user did not confirm.").reason("declined")),
///     }
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let server = Server::builder("files", "1").tool(delete_path).build().unwrap();
/// for era in [Era::Legacy, Era::Modern] {
///     let mut client = TestClient::new(&server, era)
///         .answering(|_method, _params| serde_json::json!({"action": "accept", "content": {"ok": true}}));
///     let result = client.call("delete_path", serde_json::json!({"path": "/a"})).await;
///     assert_eq!(result["content"][0]["text"], "deleted /a", "{era:?}: {result}");
/// }
/// # }
/// ```
pub struct TestClient {
    session: Arc<Session>,
    written: Arc<Outbox>,
    era: Era,
    /// What `.capabilities(..)` declared; `.answering(..)` adds what its answers need.
    capabilities: Value,
    answerer: Option<Answerer>,
    initialized: bool,
    next_id: u64,
    notifications: Vec<Value>,
    timeout: Duration,
}

/// The protocol revision of each era, as requests name it.
fn version(era: Era) -> &'static str {
    match era {
        Era::Legacy => "2025-11-25",
        Era::Modern => "2026-07-28",
    }
}

/// Bytes of notifications that may wait for a test client before the server drops them.
const DEFAULT_BUDGET: usize = 64 * 1024 * 1024;

/// Rounds of `input_required` a modern request may take before the client gives up.
const MAX_ROUNDS: usize = 16;

impl TestClient {
    /// A client of `server` in `era`: a fresh session, not yet initialized (a legacy client
    /// sends `initialize` before its first request), declaring no capabilities.
    pub fn new(server: &Server, era: Era) -> Self {
        let written = Arc::new(Outbox::with_budget(DEFAULT_BUDGET));
        let channel = Channel::new(Some(Arc::clone(&written)), None);
        let session = Session::new(Arc::clone(&server.shared), Arc::new(State::new()), channel, None);
        TestClient {
            session: Arc::new(session),
            written,
            era,
            capabilities: json!({}),
            answerer: None,
            initialized: false,
            next_id: 0,
            notifications: Vec::new(),
            timeout: Duration::from_secs(30),
        }
    }

    /// Answers what the server asks with `answer(method, params)`, and declares the
    /// capabilities to be asked (`elicitation` (form), `sampling`, `roots`). Without it the
    /// client declares none, so a tool that asks fails as it does for such a client.
    #[must_use]
    ///
    /// It composes with [`capabilities`](Self::capabilities), in either order: the client
    /// declares those, plus each of the three that they leave out.
    pub fn answering(mut self, answer: impl FnMut(&str, &Value) -> Value + Send + 'static) -> Self {
        self.answerer = Some(Box::new(answer));
        self
    }

    /// The capabilities the client declares: `.capabilities(..)`'s, and with
    /// `.answering(..)` those its answers need that they leave out.
    fn declared(&self) -> Value {
        let mut declared = self.capabilities.clone();
        if self.answerer.is_some()
            && let Value::Object(map) = &mut declared
        {
            for (name, value) in [("elicitation", json!({"form": {}})), ("sampling", json!({})), ("roots", json!({}))] {
                map.entry(name).or_insert(value);
            }
        }
        declared
    }

    /// Makes the client's requests come from `principal`, as if an authorization layer had
    /// found it (a token's principal), instead of the server's local principal
    /// ([`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal)): declared
    /// `scopes(..)`, `hide_unauthorized_tools` and scoped resources and prompts apply to it.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    /// use mcp_runtime::testing::{Era, TestClient};
    ///
    /// /// Deletes a note.
    /// #[tool(scopes("notes:write"))]
    /// fn delete_note(name: String) -> Result<String, ToolError> {
    ///     Ok(format!("deleted {name}"))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
    /// let server = Server::builder("notes", "1.0.0").tool(delete_note).hide_unauthorized_tools(true).build()?;
    /// let reader = Principal::new("user-42").with_scopes(["notes:read"]);
    /// let mut client = TestClient::new(&server, Era::Modern).as_principal(reader);
    /// assert!(client.list_tools().await.is_empty());
    /// let out = client.call("delete_note", serde_json::json!({"name": "n1"})).await;
    /// assert!(out["content"][0]["text"].as_str().is_some_and(|t| t.contains("reason insufficient_scope")));
    /// // Without `as_principal`, the local principal holds every scope.
    /// let mut local = TestClient::new(&server, Era::Modern);
    /// assert_eq!(local.list_tools().await.len(), 1);
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn as_principal(mut self, principal: crate::auth::principal::Principal) -> Self {
        let written = Arc::clone(&self.written);
        self.reopen(written, Some(principal));
        self
    }

    /// The same session state on a new channel: its outbox, and who sends its requests.
    fn reopen(&mut self, written: Arc<Outbox>, principal: Option<crate::auth::principal::Principal>) {
        let mut channel = Channel::new(Some(Arc::clone(&written)), None);
        if let Some(principal) = principal {
            channel.set_principal(principal);
        }
        let session = Session::new(Arc::clone(&self.session.shared), Arc::clone(&self.session.state), channel, None);
        self.session = Arc::new(session);
        self.written = written;
    }

    /// Declares these client capabilities (an object, as `initialize` sends it), such as
    /// `{"extensions": {"io.modelcontextprotocol/tasks": {}}}`; with
    /// [`answering`](Self::answering), also those its answers need.
    #[must_use]
    pub fn capabilities(mut self, capabilities: Value) -> Self {
        self.capabilities = capabilities;
        self
    }

    /// How many bytes of notifications may wait for this client before the server drops
    /// them (default 64 MiB; a real client gets 1 MiB). A test whose server dropped any
    /// panics in [`notifications`](Self::notifications) and at the end of the request, naming
    /// this setting: a test that silently misses notifications tells nothing.
    #[must_use]
    pub fn notification_budget(mut self, bytes: usize) -> Self {
        let principal = self.session.channel.authenticated().cloned();
        self.reopen(Arc::new(Outbox::with_budget(bytes)), principal);
        self
    }

    /// Panics when the server dropped notifications for this client.
    fn check_dropped(&self) {
        let dropped = self.written.dropped_total();
        assert!(
            dropped == 0,
            "the server dropped {dropped} notifications to this TestClient, which did not take them fast enough: raise `.notification_budget(..)`"
        );
    }

    /// How long a request may take before the client panics (default 30 s): a test that
    /// waits forever tells nothing.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The era this client speaks.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The notifications the server sent since the last time, in order (whole JSON-RPC
    /// messages: `{"jsonrpc", "method", "params"}`).
    pub fn notifications(&mut self) -> Vec<Value> {
        for message in self.take() {
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push(message);
            }
        }
        self.check_dropped();
        std::mem::take(&mut self.notifications)
    }

    /// `tools/call`, with a progress token (so that the handler's `ctx.progress(..)` reaches
    /// [`notifications`](Self::notifications)): the `CallToolResult` as the client reads it
    /// (a failure is a result with `isError: true`, its envelope included). A protocol error
    /// (an unknown tool under strict resolution, bad params) comes back as
    /// `{"error": {..}}`. A modern result keeps its `resultType` and `_meta`.
    pub async fn call(&mut self, name: &str, arguments: Value) -> Value {
        let token = format!("progress-{}", self.next_id + 1);
        let params = json!({"name": name, "arguments": arguments, "_meta": {"progressToken": token}});
        match self.request("tools/call", params).await {
            Ok(result) => result,
            Err(error) => json!({"error": error}),
        }
    }

    /// Every tool `tools/list` shows this client, following `nextCursor` over all pages.
    pub async fn list_tools(&mut self) -> Vec<Value> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let params = cursor.map_or_else(|| json!({}), |c| json!({"cursor": c}));
            let page = self.request("tools/list", params).await.unwrap_or_else(|e| panic!("tools/list failed: {e}"));
            tools.extend(page["tools"].as_array().cloned().unwrap_or_default());
            match page.get("nextCursor") {
                Some(next) if !next.is_null() => cursor = Some(next.clone()),
                _ => return tools,
            }
        }
    }

    /// `resources/read`: the result (`{"contents": [..]}`), or the JSON-RPC error object.
    pub async fn read(&mut self, uri: &str) -> Result<Value, Value> {
        self.request("resources/read", json!({"uri": uri})).await
    }

    /// `prompts/get`: the result (`{"messages": [..]}`), or the JSON-RPC error object.
    pub async fn get_prompt(&mut self, name: &str, arguments: Value) -> Result<Value, Value> {
        self.request("prompts/get", json!({"name": name, "arguments": arguments})).await
    }

    /// Any request: its `result`, or its `error` object. A legacy client initializes first;
    /// a modern one puts the era's `_meta` in `params` and answers `input_required` until
    /// the result is complete.
    pub async fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        match self.era {
            Era::Legacy => {
                if !self.initialized {
                    self.initialize().await?;
                }
                self.roundtrip(method, params).await
            }
            Era::Modern => self.modern(method, params).await,
        }
    }

    /// The legacy handshake: `initialize`, then `notifications/initialized`.
    async fn initialize(&mut self) -> Result<Value, Value> {
        let params = json!({
            "protocolVersion": version(Era::Legacy),
            "capabilities": self.declared(),
            "clientInfo": {"name": "mcp-runtime-test-client", "version": env!("CARGO_PKG_VERSION")},
        });
        let result = self.roundtrip("initialize", params).await?;
        self.deliver(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        self.initialized = true;
        Ok(result)
    }

    async fn modern(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let mut params = match params {
            Value::Object(map) => map,
            Value::Null => serde_json::Map::new(),
            other => return Err(json!({"code": -32602, "message": format!("params must be an object, not {other}")})),
        };
        let meta = params.entry("_meta").or_insert_with(|| json!({}));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert("io.modelcontextprotocol/protocolVersion".into(), version(Era::Modern).into());
            meta.insert("io.modelcontextprotocol/clientCapabilities".into(), self.declared());
        }
        for _ in 0..MAX_ROUNDS {
            let result = self.roundtrip(method, Value::Object(params.clone())).await?;
            if result["resultType"] != "input_required" {
                return Ok(result);
            }
            let Some(answer) = self.answerer.as_mut() else {
                panic!(
                    "the server asked for input ({result}), and this TestClient answers nothing: use `.answering(..)`"
                );
            };
            let mut responses = serde_json::Map::new();
            for (key, asked) in result["inputRequests"].as_object().into_iter().flatten() {
                let method = asked["method"].as_str().unwrap_or_default();
                responses.insert(key.clone(), answer(method, &asked["params"]));
            }
            params.insert("inputResponses".into(), Value::Object(responses));
            match result.get("requestState") {
                Some(state) => params.insert("requestState".into(), state.clone()),
                None => params.remove("requestState"),
            };
        }
        panic!("`{method}` still asked for input after {MAX_ROUNDS} answers");
    }

    /// Sends one request and waits for its answer, answering the server's requests and
    /// keeping its notifications meanwhile.
    async fn roundtrip(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.deliver(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.wait_for(method, |m| is_answer(m, &id)).await;
        match answer.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(answer.get("result").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Waits for the first message `done` picks, answering the server's requests and keeping
    /// its notifications meanwhile; panics past the timeout.
    async fn wait_for(&mut self, what: &str, mut done: impl FnMut(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + self.timeout;
        loop {
            let mut found = None;
            for message in self.take() {
                if found.is_none() && done(&message) {
                    found = Some(message);
                    continue;
                }
                match (message.get("method").and_then(Value::as_str), message.get("id")) {
                    (Some(asked), Some(asked_id)) => {
                        let answer = match self.answerer.as_mut() {
                            Some(answer) => {
                                json!({"jsonrpc": "2.0", "id": asked_id, "result": answer(asked, &message["params"])})
                            }
                            None => {
                                json!({"jsonrpc": "2.0", "id": asked_id, "error": {"code": -32601, "message": format!("Method not found: {asked}")}})
                            }
                        };
                        self.deliver(&answer);
                    }
                    (Some(_), None) => self.notifications.push(message),
                    _ => {}
                }
            }
            if let Some(found) = found {
                self.check_dropped();
                return found;
            }
            // A line queued since the last look leaves a permit: this returns at once.
            let waited = tokio::time::timeout_at(deadline, self.written.ready()).await;
            assert!(waited.is_ok(), "no answer to `{what}` within {:?}", self.timeout);
        }
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28) with this `notifications` filter,
    /// e.g. `{"toolsListChanged": true, "taskIds": [id]}`: its id and the filter the server
    /// acknowledged (what it honours), or the JSON-RPC error that refused it. The stream
    /// stays open: what it sends arrives in [`notifications`](Self::notifications), tagged
    /// with `_meta["io.modelcontextprotocol/subscriptionId"]` = its id, until
    /// [`stop_listening`](Self::stop_listening).
    pub async fn listen(&mut self, notifications: Value) -> Result<(u64, Value), Value> {
        if self.era == Era::Legacy && !self.initialized {
            self.initialize().await?;
        }
        self.next_id += 1;
        let id = json!(self.next_id);
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": version(Era::Modern),
            "io.modelcontextprotocol/clientCapabilities": self.declared(),
        });
        let params = json!({"notifications": notifications, "_meta": meta});
        self.deliver(&json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen", "params": params}));
        let acknowledged = |m: &Value| {
            m["method"] == "notifications/subscriptions/acknowledged"
                && m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == id
        };
        let first = self.wait_for("subscriptions/listen", |m| is_answer(m, &id) || acknowledged(m)).await;
        match first.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok((self.next_id, first["params"]["notifications"].clone())),
        }
    }

    /// Ends the listen stream `id` (`notifications/cancelled`): it sends nothing more.
    pub fn stop_listening(&mut self, id: u64) {
        self.deliver(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}}));
    }

    /// Hands one message to the session; a call runs in a task of its own, so that the
    /// server's asks can be answered while it runs.
    fn deliver(&self, message: &Value) {
        let line = message.to_string();
        let admit = Admit { answer: true, run: true, refuse: false };
        if let Next::Call { id, job, cancel } = self.session.handle(line.as_bytes(), admit, Seen::Fresh) {
            tokio::spawn(Arc::clone(&self.session).run_call(id, job, cancel));
        }
    }

    /// Every message the server wrote since the last look.
    fn take(&self) -> Vec<Value> {
        let mut out = Vec::new();
        self.written.take(usize::MAX, |line| {
            if let Ok(message) = serde_json::from_slice::<Value>(&line.bytes) {
                out.push(message);
            }
        });
        out
    }
}

/// Whether `message` is the answer to request `id`.
fn is_answer(message: &Value, id: &Value) -> bool {
    message.get("id") == Some(id) && message.get("method").is_none()
}
