//! An in-process connection: JSON-RPC lines in, the lines the server writes out, with no
//! transport. The same session logic as stdio, for tests and benchmarks.

use std::sync::Arc;

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
        self.in_process("resources/read", serde_json::json!({"uri": uri}), None).await
    }

    /// Gets a prompt as a 2025-11-25 client would (`prompts/get`), without a transport: for
    /// tests. The result is `{messages: [...]}` (and `description` when the prompt sets one).
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: serde_json::Value,
    ) -> Result<serde_json::Value, crate::rpc::jsonrpc::RpcError> {
        self.in_process("prompts/get", serde_json::json!({"name": name, "arguments": arguments}), None).await
    }

    /// One request through a session of its own, the front door every caller uses (the
    /// observer, the hooks, the road): a 2025-11-25 client's request on a connection that
    /// did not `initialize`, answered with the JSON-RPC result or error a client would read.
    async fn in_process(
        &self,
        method: &str,
        params: serde_json::Value,
        principal: Option<crate::auth::principal::Principal>,
    ) -> Result<serde_json::Value, crate::rpc::jsonrpc::RpcError> {
        let written = Arc::new(Outbox::default());
        let mut channel = Channel::in_process(Arc::clone(&written));
        if let Some(principal) = principal {
            channel.set_principal(principal);
        }
        let session = Arc::new(Session::new(Arc::clone(&self.shared), Arc::new(State::in_process()), channel, None));
        let line = crate::rpc::jsonrpc::request(1, method, Some(&params));
        let admit = Admit { answer: true, run: true, refuse: false };
        if let Next::Call { id, job, cancel } = session.handle(&line, admit, Seen::Fresh) {
            Arc::clone(&session).run_call(id, job, cancel).await;
        }
        // The answer is the one line with an id; notifications (logs, progress) are dropped.
        let mut answer = None;
        written.take(usize::MAX, |line| {
            if answer.is_none()
                && let Ok(serde_json::Value::Object(mut message)) = serde_json::from_slice(&line.bytes)
                && message.contains_key("id")
            {
                answer = Some(match message.remove("error") {
                    Some(error) => Err(rpc_error(error)),
                    None => Ok(message.remove("result").unwrap_or_default()),
                });
            }
        });
        answer.unwrap_or_else(|| Err(crate::rpc::jsonrpc::RpcError::invalid_request("Request cancelled")))
    }

    /// Runs one call through the production pipeline (resolution, policy, argument
    /// validation, handler, output validation, envelope) without a transport: for tests.
    /// Failures come back as error envelopes, exactly as a client would see them. The caller
    /// is the server's local principal
    /// ([`ServerBuilder::local_principal`](crate::ServerBuilder::local_principal)); see
    /// [`Server::call_as`] for another.
    pub async fn call(&self, name: &str, arguments: serde_json::Value) -> mcp_core::CallToolResult {
        self.call_on(None, name, arguments).await
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
        principal: crate::auth::principal::Principal,
        name: &str,
        arguments: serde_json::Value,
    ) -> mcp_core::CallToolResult {
        self.call_on(Some(principal), name, arguments).await
    }

    async fn call_on(
        &self,
        principal: Option<crate::auth::principal::Principal>,
        name: &str,
        arguments: serde_json::Value,
    ) -> mcp_core::CallToolResult {
        let answer =
            self.in_process("tools/call", serde_json::json!({"name": name, "arguments": arguments}), principal).await;
        match answer.map(serde_json::from_value::<mcp_core::CallToolResult>) {
            Ok(Ok(result)) => result,
            // Strict resolution applies on the wire only; in-process calls never take it.
            // A handler's ask that breaks the protocol's rules (asking nothing): its author's bug.
            Err(e) => error_result(&e.message, e.code),
            Ok(Err(e)) => error_result(&format!("the result does not read as a CallToolResult: {e}"), -32603),
        }
    }
}

/// A protocol error as an in-process call returns it.
fn error_result(message: &str, code: i32) -> mcp_core::CallToolResult {
    mcp_core::CallToolResult {
        content: vec![mcp_core::Content::text(format!("Error: {message} ({code})"))],
        is_error: Some(true),
        ..mcp_core::CallToolResult::default()
    }
}

/// A JSON-RPC `error` member, read back.
fn rpc_error(error: serde_json::Value) -> crate::rpc::jsonrpc::RpcError {
    crate::rpc::jsonrpc::RpcError {
        code: error
            .get("code")
            .and_then(serde_json::Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .unwrap_or(-32603),
        message: error.get("message").and_then(serde_json::Value::as_str).unwrap_or_default().to_owned(),
        data: error.get("data").cloned(),
    }
}
