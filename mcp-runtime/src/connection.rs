//! An in-process connection: JSON-RPC lines in, the lines the server writes out, with no
//! transport. The same session logic as stdio, for tests and benchmarks.

use std::sync::Arc;

use crate::channel::Channel;
use crate::outbox::Outbox;
use crate::server::Server;
use crate::session::{Admit, Next, Seen, Session, State};

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
