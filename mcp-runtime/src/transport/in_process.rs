//! An in-process connection: JSON-RPC lines in, the lines the server writes out, with no
//! transport. The same session logic as stdio, for tests and benchmarks.

use std::sync::Arc;

use tracing::Instrument as _;

use crate::protocol::session::{Admit, Next, Seen, Session, State};
use crate::rpc::channel::Channel;
use crate::rpc::outbox::Outbox;
use crate::server::Server;

/// One client connection to a [`Server`], in-process. Feed it JSON-RPC messages with
/// [`Connection::send`]; it returns everything the server wrote in answer (responses and
/// notifications), exactly as stdio would carry them.
///
/// ```
/// use mcp_runtime::prelude::*;
///
/// /// Says hello.
/// #[tool]
/// fn hello() -> &'static str {
///     "hello"
/// }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
/// let server = Server::builder("demo", "1.0.0").tool(hello).build()?;
/// let mut conn = server.connect();
/// conn.send(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#).await;
/// let out = conn.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello"}}"#).await;
/// assert_eq!(out, [r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}"#]);
/// # Ok(()) }
/// ```
pub struct Connection {
    session: Arc<Session>,
    written: Arc<Outbox>,
}

impl Server {
    /// Opens an in-process connection (a fresh session: not initialized, log level `info`).
    pub fn connect(&self) -> Connection {
        let written = Arc::new(Outbox::default());
        // `send` runs a call to its end, so no answer to a request of ours can come meanwhile.
        let channel = Channel::new(Some(Arc::clone(&written)), None).without_answers();
        let session = Session::new(Arc::clone(&self.shared), Arc::new(State::new()), channel, None);
        Connection { session: Arc::new(session), written }
    }
}

impl Connection {
    /// Handles one message (a `tools/call` runs to completion) and returns the lines the
    /// server wrote meanwhile, without their newlines. A tool that asks a 2025 session's
    /// client (`Ctx::ask`) fails here at once: nothing could answer it while the call runs.
    pub async fn send(&mut self, message: &str) -> Vec<String> {
        let admit = Admit { answer: true, run: true, refuse: false };
        if let Next::Call { id, job, cancel } = self.session.handle(message.as_bytes(), admit, Seen::Fresh) {
            let listen = job.is_listen();
            let run = Arc::clone(&self.session).run_call(id, job, cancel);
            if listen {
                // A listen stream runs until cancelled: what it sends shows in later answers.
                tokio::spawn(run);
            } else {
                run.await;
            }
        }
        let mut out = Vec::new();
        self.written.take(usize::MAX, |line| {
            if line.bytes.is_empty() {
                return;
            }
            let mut line = line.bytes;
            line.pop();
            out.push(String::from_utf8(line).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()));
        });
        out
    }
}

impl Server {
    /// Reads a resource as a 2025-11-25 client would (`resources/read`), without a
    /// transport: for tests. The result is `{contents: [...]}`; a failure is the JSON-RPC
    /// error a client would get (`data` carries the reason, hint and request id).
    pub async fn read_resource(&self, uri: &str) -> Result<serde_json::Value, crate::rpc::jsonrpc::RpcError> {
        self.in_process("resources/read", serde_json::json!({"uri": uri})).await
    }

    /// Gets a prompt as a 2025-11-25 client would (`prompts/get`), without a transport: for
    /// tests. The result is `{messages: [...]}` (and `description` when the prompt sets one).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<serde_json::Value, crate::rpc::jsonrpc::RpcError> {
        self.in_process("prompts/get", serde_json::json!({"name": name, "arguments": arguments})).await
    }

    async fn in_process(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, crate::rpc::jsonrpc::RpcError> {
        let local = self.shared.options.local_principal(false);
        let channel = std::sync::Arc::new(crate::rpc::channel::Channel::new(None, None).with_local(local));
        let client = crate::rpc::era::Client::Legacy(std::sync::Arc::default());
        let cancel = std::sync::Arc::default();
        let shared = &self.shared;
        let caller = crate::context::ctx::Caller {
            channel: &channel,
            hooks: &shared.observer.hooks,
            client: &client,
            cancel: &cancel,
            stores: &shared.stores,
            notices: &shared.notices,
            causes: shared.options.error_causes,
            ask_timeout: shared.options.ask_timeout,
        };
        let mut watch = shared.observer.begin(method, None, None, &channel);
        if let ("resources/read", Some(uri)) = (method, params.get("uri").and_then(serde_json::Value::as_str)) {
            watch.reads(uri);
        } else {
            let name = params.get("name").and_then(serde_json::Value::as_str).unwrap_or_default();
            watch.names(&shared.observer, name, params.get("arguments"));
        }
        let answer = match crate::protocol::router::request(shared, method, Some(params)) {
            Ok(feature) => {
                crate::protocol::router::run(shared, &caller, feature).instrument(watch.span().clone()).await
            }
            Err(e) => Err(e),
        };
        let seen = match &answer {
            Ok(_) => crate::hooks::Answer::Result,
            Err(e) => crate::hooks::Answer::Error(e),
        };
        watch.end(&shared.observer, &channel, Some(&client), seen, &|m, n| shared.serves(m, n));
        answer
    }

    /// Runs one call through the production pipeline (resolution, policy, argument
    /// validation, handler, output validation, envelope) without a transport: for tests.
    /// Failures come back as error envelopes, exactly as a client would see them. The caller
    /// is the server's local principal
    /// ([`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal)); see
    /// [`Server::call_as`] for another.
    pub async fn call(&self, name: &str, arguments: serde_json::Value) -> mcp_core::CallToolResult {
        let local = self.shared.options.local_principal(false);
        self.call_on(crate::rpc::channel::Channel::new(None, None).with_local(local), name, arguments).await
    }

    /// [`Server::call`] as `principal` would make it, as if an authorization layer had found
    /// it: its scopes decide declared `scopes(..)` and `ctx.require_scopes(..)`, and
    /// `ctx.principal()` is it.
    ///
    /// ```
    /// use mcp_runtime::prelude::*;
    ///
    /// /// Deletes a note.
    /// #[tool(scopes("notes:write"))]
    /// fn delete_note(name: String) -> Result<String, ToolError> {
    ///     Ok(format!("deleted {name}"))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), mcp_runtime::Error> {
    /// let server = Server::builder("notes", "1.0.0").tool(delete_note).build()?;
    /// let reader = Principal::new("user-42").with_scopes(["notes:read"]);
    /// let out = server.call_as(reader, "delete_note", serde_json::json!({"name": "n1"})).await;
    /// assert_eq!(out.is_error, Some(true));
    /// # Ok(()) }
    /// ```
    pub async fn call_as(
        &self,
        principal: crate::Principal,
        name: &str,
        arguments: serde_json::Value,
    ) -> mcp_core::CallToolResult {
        let mut channel = crate::rpc::channel::Channel::new(None, None);
        channel.set_principal(principal);
        self.call_on(channel, name, arguments).await
    }

    async fn call_on(
        &self,
        channel: crate::rpc::channel::Channel,
        name: &str,
        arguments: serde_json::Value,
    ) -> mcp_core::CallToolResult {
        let channel = std::sync::Arc::new(channel);
        let client = crate::rpc::era::Client::Legacy(std::sync::Arc::default());
        let req = crate::protocol::dispatch::CallRequest {
            name: name.to_owned(),
            arguments: Some(arguments),
            progress_token: None,
            input_responses: None,
            request_state: None,
        };
        let shared = &self.shared;
        let mut watch = shared.observer.begin("tools/call", None, None, &channel);
        watch.names(&shared.observer, &req.name, req.arguments.as_ref());
        let call = crate::protocol::dispatch::call(shared, &channel, &client, req, std::sync::Arc::default());
        let result = match call.instrument(watch.span().clone()).await {
            Ok(crate::context::ask::Reply::Complete(result)) => result,
            // A 2025 call never returns `input_required` (its asks are fulfilled or refused) nor
            // a task (2026-07-28 only).
            Ok(crate::context::ask::Reply::InputRequired(_) | crate::context::ask::Reply::Task(_)) => {
                unreachable!("in-process calls are 2025 calls")
            }
            // Strict resolution applies on the wire only; in-process calls never take it.
            // A handler's ask that breaks the protocol's rules (asking nothing): its author's bug.
            Err(e) => mcp_core::CallToolResult {
                content: vec![mcp_core::Content::text(format!("Error: {} ({})", e.message, e.code))],
                is_error: Some(true),
                ..mcp_core::CallToolResult::default()
            },
        };
        let answer = crate::hooks::Answer::Tool(&result);
        watch.end(&shared.observer, &channel, Some(&client), answer, &|m, n| shared.serves(m, n));
        result
    }
}
