//! A handler's own `tracing` spans nest under the span of its request, and its events are
//! theirs: a server built here with a tool that opens a span, exported with `.otel()` to an
//! OTLP receiver started here, served on in-memory streams until EOF.
//!
//! One test in its own binary: the export is set up once per process, from its environment,
//! which this test sets before anything else runs.

use mcp_runtime::prelude::*;
use mcp_tests::otlp::{Attr, Receiver};
use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};

/// Looks a word up in a dictionary.
#[tool]
fn lookup(
    /// The word.
    word: String,
) -> String {
    let span = tracing::info_span!("dictionary", entries = 3);
    let _in = span.enter();
    tracing::info!("looked up");
    format!("{word}: found")
}

#[test]
fn a_handlers_own_span_is_a_child_of_the_request_span() {
    let receiver = Receiver::start();
    // SAFETY: this binary's only test sets the variables before it starts a runtime or
    // anything else that reads the environment; no other thread runs test code.
    unsafe {
        std::env::set_var("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint());
        std::env::set_var("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json");
        std::env::set_var("OTEL_BSP_SCHEDULE_DELAY", "600000");
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let answers = runtime.block_on(async {
        let server = Server::builder("in-process", "1.0.0").tool(lookup).otel().build().expect("builds");
        let (client, server_end) = tokio::io::duplex(64 * 1024);
        let (input, output) = tokio::io::split(server_end);
        let serving = tokio::spawn(server.serve(input, output));
        let (from_server, mut to_server) = tokio::io::split(client);
        to_server
            .write_all(
                concat!(
                    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
                    "\n",
                    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"word":"span"}}}"#,
                    "\n"
                )
                .as_bytes(),
            )
            .await
            .expect("write");
        let mut lines = BufReader::new(from_server).lines();
        // The handler's event reaches the client too (a log notification), before the answer.
        let mut answers = Vec::new();
        while !answers.last().is_some_and(|a: &String| a.contains(r#""id":1"#)) {
            answers.push(lines.next_line().await.expect("read").expect("an answer"));
        }
        // EOF: the server returns once it flushed its spans.
        to_server.shutdown().await.expect("close");
        drop(to_server);
        serving.await.expect("joined").expect("served");
        answers
    });
    assert!(answers.last().is_some_and(|a| a.contains("span: found")), "{answers:?}");
    let spans = receiver.spans();
    let request = spans.iter().find(|s| s.name == "tools/call lookup").unwrap_or_else(|| panic!("{spans:#?}"));
    let own = spans.iter().find(|s| s.name == "dictionary").unwrap_or_else(|| panic!("{spans:#?}"));
    assert_eq!(
        (own.trace_id.as_str(), own.parent_span_id.as_str()),
        (request.trace_id.as_str(), request.span_id.as_str())
    );
    assert_eq!(own.attributes.get("entries"), Some(&Attr::Int(3)));
    assert_eq!(own.events, ["looked up"], "the handler's event is an event of its span");
    assert_eq!(request.service.as_deref(), Some("in-process"), "the service is named after the server");
}
