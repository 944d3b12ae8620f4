//! The metrics (feature `otel`): the conventions' `mcp.server.operation.duration` and
//! `mcp.server.session.duration` (histograms in seconds, with the conventions' buckets), and
//! three of ours, `mcp_runtime.server.calls` (calls of tools, resources and prompts, by
//! outcome and declared reason), `mcp_runtime.server.active_calls` (calls running) and
//! `mcp_runtime.server.input_repairs` (arguments repaired before validation, by tool and kind).
//!
//! Names that a caller chooses (a method, a tool or prompt name that is not served) are
//! recorded as `_OTHER`, as the conventions say for `error.type`: a caller cannot grow the
//! number of series.

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _, UpDownCounter};

use crate::hooks::Answer;
use crate::rpc::channel::{Channel, Transport};
use crate::rpc::era::Client;

/// The conventions' buckets for MCP durations, in seconds.
pub(crate) const BUCKETS: [f64; 14] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0];

/// The instruments, made once per server.
pub(crate) struct Metrics {
    operation: Histogram<f64>,
    session: Histogram<f64>,
    calls: Counter<u64>,
    active: UpDownCounter<i64>,
    repairs: Counter<u64>,
}

/// One request as its metrics see it.
pub(crate) struct Operation<'a> {
    /// The method, `_OTHER` for one the server does not know.
    pub(crate) method: &'static str,
    /// The tool or prompt, when the server serves it.
    pub(crate) target: Option<&'a str>,
    pub(crate) client: Option<&'a Client>,
    pub(crate) channel: &'a Channel,
    pub(crate) answer: Answer<'a>,
    /// The failure's declared reason.
    pub(crate) reason: Option<&'a str>,
    pub(crate) seconds: f64,
}

impl Metrics {
    pub(crate) fn new(provider: &opentelemetry_sdk::metrics::SdkMeterProvider) -> Metrics {
        let meter = provider.meter_with_scope(
            opentelemetry::InstrumentationScope::builder("mcp-runtime").with_version(env!("CARGO_PKG_VERSION")).build(),
        );
        Metrics {
            operation: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("Duration of the MCP requests the server received, to their answer.")
                .with_boundaries(BUCKETS.to_vec())
                .build(),
            session: meter
                .f64_histogram("mcp.server.session.duration")
                .with_unit("s")
                .with_description("Duration of MCP sessions: a stdio connection, a 2025 HTTP session.")
                .with_boundaries(BUCKETS.to_vec())
                .build(),
            calls: meter
                .u64_counter("mcp_runtime.server.calls")
                .with_unit("{call}")
                .with_description("Calls of tools, resources and prompts, by outcome and declared reason.")
                .build(),
            active: meter
                .i64_up_down_counter("mcp_runtime.server.active_calls")
                .with_unit("{call}")
                .with_description("Calls of tools, resources and prompts running now.")
                .build(),
            repairs: meter
                .u64_counter("mcp_runtime.server.input_repairs")
                .with_unit("{repair}")
                .with_description("Arguments repaired before validation (docs/errors.md#repairs), by tool and kind.")
                .build(),
        }
    }

    /// A call's arguments were repaired: one count per repair, by the (served) tool and the
    /// repair's kind.
    pub(crate) fn repaired(&self, tool: &'static str, kind: &'static str) {
        self.repairs.add(1, &[KeyValue::new("gen_ai.tool.name", tool), KeyValue::new("mcp_runtime.repair.kind", kind)]);
    }

    /// A call of a tool, a resource or a prompt starts.
    pub(crate) fn call_started(&self, method: &'static str) {
        self.active.add(1, &[KeyValue::new("mcp.method.name", method)]);
    }

    /// A call of a tool, a resource or a prompt ended (answered, cancelled or dropped).
    pub(crate) fn call_ended(&self, method: &'static str) {
        self.active.add(-1, &[KeyValue::new("mcp.method.name", method)]);
    }

    /// A request was answered (or cancelled).
    pub(crate) fn operation(&self, op: &Operation<'_>) {
        let mut attributes = Vec::with_capacity(10);
        attributes.push(KeyValue::new("mcp.method.name", op.method));
        let mut error_type = None;
        match op.answer {
            Answer::Tool(result) if result.is_error == Some(true) => error_type = Some("tool_error".to_owned()),
            Answer::Error(e) => {
                let code = e.code.to_string();
                attributes.push(KeyValue::new("rpc.response.status_code", code.clone()));
                error_type = Some(code);
            }
            _ => {}
        }
        if let Some(error_type) = &error_type {
            attributes.push(KeyValue::new("error.type", error_type.clone()));
        }
        match (op.method, op.target) {
            ("tools/call", target) => {
                attributes.push(KeyValue::new("gen_ai.tool.name", target.unwrap_or("_OTHER").to_owned()));
                attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
            }
            ("prompts/get", target) => {
                attributes.push(KeyValue::new("gen_ai.prompt.name", target.unwrap_or("_OTHER").to_owned()));
            }
            _ => {}
        }
        if let Some(version) = op.client.and_then(Client::protocol_version) {
            attributes.push(KeyValue::new("mcp.protocol.version", version));
        }
        network(op.channel, &mut attributes);
        self.operation.record(op.seconds, &attributes);

        if crate::hooks::wraps(op.method) {
            let mut attributes = Vec::with_capacity(5);
            attributes.push(KeyValue::new("mcp.method.name", op.method));
            match (op.method, op.target) {
                ("tools/call", target) => {
                    attributes.push(KeyValue::new("gen_ai.tool.name", target.unwrap_or("_OTHER").to_owned()));
                }
                ("prompts/get", target) => {
                    attributes.push(KeyValue::new("gen_ai.prompt.name", target.unwrap_or("_OTHER").to_owned()));
                }
                _ => {}
            }
            if let Some(error_type) = error_type {
                attributes.push(KeyValue::new("error.type", error_type));
            }
            if let Some(reason) = op.reason {
                attributes.push(KeyValue::new("mcp_runtime.error.reason", reason.to_owned()));
            }
            self.calls.add(1, &attributes);
        }
    }

    /// A session ended after `seconds`.
    pub(crate) fn session(&self, seconds: f64, transport: Transport, version: Option<&'static str>) {
        let mut attributes = Vec::with_capacity(3);
        match transport {
            Transport::Stdio => attributes.push(KeyValue::new("network.transport", "pipe")),
            Transport::Http => {
                attributes.push(KeyValue::new("network.transport", "tcp"));
                attributes.push(KeyValue::new("network.protocol.name", "http"));
            }
            Transport::InProcess => {}
        }
        if let Some(version) = version {
            attributes.push(KeyValue::new("mcp.protocol.version", version));
        }
        self.session.record(seconds, &attributes);
    }
}

/// `network.*` of a request's channel.
fn network(channel: &Channel, attributes: &mut Vec<KeyValue>) {
    match channel.transport() {
        Transport::Stdio => attributes.push(KeyValue::new("network.transport", "pipe")),
        Transport::Http => {
            attributes.push(KeyValue::new("network.transport", "tcp"));
            attributes.push(KeyValue::new("network.protocol.name", "http"));
            if let Some(version) = channel.http().and_then(|h| super::span::http_version(h.version)) {
                attributes.push(KeyValue::new("network.protocol.version", version));
            }
        }
        Transport::InProcess => {}
    }
}
