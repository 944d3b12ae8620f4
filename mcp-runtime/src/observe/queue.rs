//! The spans waiting for export, bounded in bytes as well as in count (feature `otel`).
//!
//! The SDK's batch processor bounds its queue by count only (`OTEL_BSP_MAX_QUEUE_SIZE`,
//! default 2048): against a collector that takes bodies and never answers, every span
//! waits for the timeouts, and 2048 large spans are as large as they come. [`Bounded`]
//! stands before the batch processor and counts what it lets in, spans and their bytes
//! (estimated from what they hold: name, attributes, events, links, status); [`Released`]
//! wraps the exporter and gives a batch's share back once its export ended (sent, refused or
//! timed out). A span that would take the queue past either bound is dropped and counted.
//! As the count bound is the batch processor's own (and what is counted here includes the
//! batch being exported, which has left its channel), its channel never overflows: every
//! drop happens, and is counted, here.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use opentelemetry::{Array, KeyValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter, SpanProcessor};

/// Bytes the spans waiting for export may hold by default (16 MiB).
pub(crate) const DEFAULT_MAX_BYTES: usize = 16 * 1024 * 1024;

/// The byte bound of every queue of the process (its pipeline is the process's): set by
/// [`ServerBuilder::otel_queue_bytes`](crate::ServerBuilder::otel_queue_bytes).
static MAX_BYTES: AtomicUsize = AtomicUsize::new(DEFAULT_MAX_BYTES);

/// Sets the byte bound of the process's span queue.
pub(crate) fn set_max_bytes(bytes: usize) {
    MAX_BYTES.store(bytes, Ordering::Relaxed);
}

/// What waits for export, and what was dropped.
#[derive(Debug)]
pub(crate) struct Queue {
    spans: AtomicUsize,
    bytes: AtomicUsize,
    max_spans: usize,
    /// `None`: the process's bound ([`MAX_BYTES`]); a test sets its own.
    max_bytes: Option<usize>,
    dropped: AtomicU64,
}

impl Queue {
    /// A queue of at most `max_spans` spans (the batch processor's `max_queue_size`).
    pub(crate) fn new(max_spans: usize) -> Arc<Queue> {
        Arc::new(Queue {
            spans: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
            max_spans,
            max_bytes: None,
            dropped: AtomicU64::new(0),
        })
    }

    /// Takes room for a span of `bytes`, or says there is none.
    fn admit(&self, bytes: usize) -> bool {
        let max_bytes = self.max_bytes.unwrap_or_else(|| MAX_BYTES.load(Ordering::Relaxed));
        let spans = self.spans.fetch_add(1, Ordering::AcqRel);
        let held = self.bytes.fetch_add(bytes, Ordering::AcqRel);
        if spans < self.max_spans && held.saturating_add(bytes) <= max_bytes {
            return true;
        }
        self.release(1, bytes);
        false
    }

    /// Gives back the room of `spans` spans of `bytes` in all.
    fn release(&self, spans: usize, bytes: usize) {
        self.spans.fetch_sub(spans, Ordering::AcqRel);
        self.bytes.fetch_sub(bytes, Ordering::AcqRel);
    }

    /// Spans dropped so far because the queue was full.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// The processor before the batch processor: lets a span in while the queue has room for it.
#[derive(Debug)]
pub(crate) struct Bounded<P> {
    pub(crate) inner: P,
    pub(crate) queue: Arc<Queue>,
}

impl<P: SpanProcessor> SpanProcessor for Bounded<P> {
    fn on_start(&self, span: &mut opentelemetry_sdk::trace::Span, cx: &opentelemetry::Context) {
        self.inner.on_start(span, cx);
    }

    fn on_end(&self, span: SpanData) {
        if self.queue.admit(weight(&span)) {
            self.inner.on_end(span);
            return;
        }
        if self.queue.dropped.fetch_add(1, Ordering::Relaxed) == 0 {
            tracing::warn!(
                target: "mcp_runtime::otel",
                max_spans = self.queue.max_spans,
                max_bytes = self.queue.max_bytes.unwrap_or_else(|| MAX_BYTES.load(Ordering::Relaxed)),
                "spans are being dropped: the export queue is full (the collector is slow or does not answer); the count is logged when the server stops"
            );
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// The exporter behind the batch processor: a batch's room in the queue is given back when
/// its export has ended.
#[derive(Debug)]
pub(crate) struct Released<E> {
    pub(crate) inner: E,
    pub(crate) queue: Arc<Queue>,
}

impl<E: SpanExporter> SpanExporter for Released<E> {
    fn export(&self, batch: Vec<SpanData>) -> impl Future<Output = OTelSdkResult> + Send {
        let (spans, bytes) = (batch.len(), batch.iter().map(weight).sum::<usize>());
        let export = self.inner.export(batch);
        async move {
            let result = export.await;
            self.queue.release(spans, bytes);
            result
        }
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// About what a span holds in memory: its fixed part, and every string and array it owns.
fn weight(span: &SpanData) -> usize {
    fn value(v: &Value) -> usize {
        match v {
            Value::String(s) => s.as_str().len(),
            Value::Array(Array::String(items)) => {
                items.iter().map(|s| s.as_str().len() + size_of::<opentelemetry::StringValue>()).sum()
            }
            Value::Array(Array::Bool(items)) => items.len(),
            Value::Array(Array::I64(items)) => items.len() * 8,
            Value::Array(Array::F64(items)) => items.len() * 8,
            _ => 0,
        }
    }
    fn attributes(kvs: &[KeyValue]) -> usize {
        kvs.iter().map(|kv| size_of::<KeyValue>() + kv.key.as_str().len() + value(&kv.value)).sum()
    }
    let status = match &span.status {
        opentelemetry::trace::Status::Error { description } => description.len(),
        _ => 0,
    };
    size_of::<SpanData>()
        + span.name.len()
        + status
        + attributes(&span.attributes)
        + span
            .events
            .iter()
            .map(|e| size_of::<opentelemetry::trace::Event>() + e.name.len() + attributes(&e.attributes))
            .sum::<usize>()
        + span.links.iter().map(|l| size_of::<opentelemetry::trace::Link>() + attributes(&l.attributes)).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    use opentelemetry::trace::{SpanContext, SpanId, SpanKind, Status};
    use opentelemetry_sdk::trace::{SpanEvents, SpanLinks};

    fn span(uri_bytes: usize) -> SpanData {
        SpanData {
            span_context: SpanContext::empty_context(),
            parent_span_id: SpanId::INVALID,
            parent_span_is_remote: false,
            span_kind: SpanKind::Server,
            name: "resources/read".into(),
            start_time: std::time::SystemTime::UNIX_EPOCH,
            end_time: std::time::SystemTime::UNIX_EPOCH,
            attributes: vec![KeyValue::new("mcp.resource.uri", "u".repeat(uri_bytes))],
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status: Status::Unset,
            instrumentation_scope: opentelemetry::InstrumentationScope::builder("t").build(),
        }
    }

    /// A processor that keeps what it is given, and an exporter whose exports are ended by
    /// the test.
    #[derive(Debug, Default)]
    struct Keep(Mutex<Vec<SpanData>>);

    impl SpanProcessor for Keep {
        fn on_start(&self, _: &mut opentelemetry_sdk::trace::Span, _: &opentelemetry::Context) {}
        fn on_end(&self, span: SpanData) {
            self.0.lock().unwrap().push(span);
        }
        fn force_flush(&self) -> OTelSdkResult {
            Ok(())
        }
        fn shutdown_with_timeout(&self, _: Duration) -> OTelSdkResult {
            Ok(())
        }
    }

    #[derive(Debug)]
    struct Sink;

    impl SpanExporter for Sink {
        async fn export(&self, _: Vec<SpanData>) -> OTelSdkResult {
            Ok(())
        }
    }

    #[test]
    fn spans_past_the_byte_bound_are_dropped_and_counted_until_an_export_gives_room_back() {
        let one = weight(&span(100_000));
        assert!(one > 100_000 && one < 101_000, "{one}");
        let queue = Arc::new(Queue {
            spans: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
            max_spans: 1000,
            max_bytes: Some(3 * one),
            dropped: AtomicU64::new(0),
        });
        let bounded = Bounded { inner: Keep::default(), queue: Arc::clone(&queue) };
        for _ in 0..5 {
            bounded.on_end(span(100_000));
        }
        assert_eq!(bounded.inner.0.lock().unwrap().len(), 3, "three fit in the bytes");
        assert_eq!(queue.dropped(), 2);
        assert_eq!(queue.bytes.load(Ordering::Relaxed), 3 * one);
        let exporter = Released { inner: Sink, queue: Arc::clone(&queue) };
        let batch = std::mem::take(&mut *bounded.inner.0.lock().unwrap());
        futures_util::FutureExt::now_or_never(exporter.export(batch)).expect("ready").expect("exported");
        assert_eq!((queue.spans.load(Ordering::Relaxed), queue.bytes.load(Ordering::Relaxed)), (0, 0));
        bounded.on_end(span(100_000));
        assert_eq!(bounded.inner.0.lock().unwrap().len(), 1, "room again once exported");
        assert_eq!(queue.dropped(), 2);
    }

    #[test]
    fn spans_past_the_count_bound_are_dropped_too() {
        let queue = Queue::new(2);
        let bounded = Bounded { inner: Keep::default(), queue: Arc::clone(&queue) };
        for _ in 0..4 {
            bounded.on_end(span(10));
        }
        assert_eq!(bounded.inner.0.lock().unwrap().len(), 2);
        assert_eq!(queue.dropped(), 2);
    }
}
