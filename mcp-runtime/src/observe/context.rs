//! Trace context carried by a request (feature `otel`): W3C `traceparent`, `tracestate` and
//! `baggage` in `params._meta` (the keys the 2026-07-28 revision reserves for it, and that
//! the conventions name for every era), and the HTTP `traceparent` header.
//!
//! The `_meta` context is the span's parent, and the header's a link when both are there
//! (the conventions: the MCP context is the caller's intent, the HTTP one the transport's).
//! Without `_meta`, the header's context is the parent.

use std::sync::LazyLock;

use opentelemetry::propagation::{Extractor, TextMapCompositePropagator, TextMapPropagator};
use opentelemetry::trace::TraceContextExt as _;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use serde::Deserialize;
use serde_json::value::RawValue;
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

use crate::rpc::jsonrpc;

static PROPAGATOR: LazyLock<TextMapCompositePropagator> = LazyLock::new(|| {
    TextMapCompositePropagator::new(vec![Box::new(TraceContextPropagator::new()), Box::new(BaggagePropagator::new())])
});

/// Sets `span`'s parent (and link) from the request's `_meta` and HTTP headers.
pub(super) fn parent(span: &Span, params: Option<&RawValue>, headers: Option<&http::HeaderMap>) {
    let meta = Meta::of(params).map(|m| PROPAGATOR.extract(&m)).filter(|cx| cx.span().span_context().is_valid());
    let header = headers
        .map(|h| PROPAGATOR.extract(&opentelemetry_http::HeaderExtractor(h)))
        .filter(|cx| cx.span().span_context().is_valid());
    // Only a span that is still being built takes a parent; this one is new.
    match (meta, header) {
        (Some(meta), header) => {
            let _ = span.set_parent(meta);
            if let Some(header) = header {
                span.add_link(header.span().span_context().clone());
            }
        }
        (None, Some(header)) => {
            let _ = span.set_parent(header);
        }
        (None, None) => {}
    }
}

/// The trace context members of a request's `_meta`.
#[derive(Default, Deserialize)]
struct Meta<'a> {
    #[serde(default, borrow)]
    traceparent: Option<&'a str>,
    #[serde(default, borrow)]
    tracestate: Option<&'a str>,
    #[serde(default, borrow)]
    baggage: Option<&'a str>,
}

impl<'a> Meta<'a> {
    /// The members, when `params._meta` is an object with a `traceparent` (strings with
    /// escapes are not trace context: W3C values are plain ASCII).
    fn of(params: Option<&'a RawValue>) -> Option<Meta<'a>> {
        let meta: Meta<'_> = serde_json::from_str(jsonrpc::meta(params)?.get()).ok()?;
        meta.traceparent.is_some().then_some(meta)
    }
}

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent,
            "tracestate" => self.tracestate,
            "baggage" => self.baggage,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        [("traceparent", self.traceparent), ("tracestate", self.tracestate), ("baggage", self.baggage)]
            .into_iter()
            .filter_map(|(k, v)| v.map(|_| k))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_trace_context_is_read() {
        let params = RawValue::from_string(
            r#"{"name":"add","_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v","other":1}}"#
                .to_owned(),
        )
        .expect("json");
        let meta = Meta::of(Some(&params)).expect("a traceparent");
        let cx = PROPAGATOR.extract(&meta);
        let span = cx.span();
        let sc = span.span_context();
        assert!(sc.is_valid() && sc.is_remote() && sc.is_sampled());
        assert_eq!(sc.trace_id().to_string(), "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(sc.span_id().to_string(), "b7ad6b7169203331");
        assert_eq!(
            opentelemetry::baggage::BaggageExt::baggage(&cx).get("k").map(ToString::to_string).as_deref(),
            Some("v")
        );
        let none = RawValue::from_string(r#"{"_meta":{"progressToken":1}}"#.to_owned()).expect("json");
        assert!(Meta::of(Some(&none)).is_none());
    }
}
