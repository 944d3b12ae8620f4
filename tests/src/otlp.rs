//! An OTLP/HTTP receiver for the observability tests: it listens on a free loopback port,
//! takes `POST /v1/traces` and `POST /v1/metrics` with protobuf or JSON bodies (decoded
//! with the collector protocol's own messages, `opentelemetry-proto`), and keeps what it
//! received for the test to read.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value;
use opentelemetry_proto::tonic::metrics::v1::metric;

/// An attribute's value, as the tests compare it.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// Anything else, as its debug text.
    Other(String),
}

impl Attr {
    /// The string, when it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attr::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// One span as received.
#[derive(Clone, Debug)]
pub struct Span {
    /// The span's name.
    pub name: String,
    /// `SPAN_KIND_*` as its number (2 is SERVER).
    pub kind: i32,
    /// Hex.
    pub trace_id: String,
    /// Hex.
    pub span_id: String,
    /// Hex; empty for a root span.
    pub parent_span_id: String,
    /// Every attribute.
    pub attributes: BTreeMap<String, Attr>,
    /// `STATUS_CODE_*` as its number (2 is ERROR), and the message.
    pub status: (i32, String),
    /// The links: trace id and span id, hex.
    pub links: Vec<(String, String)>,
    /// The `service.name` of the resource it came with.
    pub service: Option<String>,
    /// The span events' names (log records in the span).
    pub events: Vec<String>,
}

/// One histogram data point as received.
#[derive(Clone, Debug)]
pub struct HistogramPoint {
    /// The metric's name.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// The point's attributes.
    pub attributes: BTreeMap<String, Attr>,
    /// How many values.
    pub count: u64,
    /// The bucket bounds.
    pub bounds: Vec<f64>,
}

/// One sum data point (a counter, an up-down counter) as received.
#[derive(Clone, Debug)]
pub struct SumPoint {
    /// The metric's name.
    pub metric: String,
    /// The point's attributes.
    pub attributes: BTreeMap<String, Attr>,
    /// The value.
    pub value: i64,
}

#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    histograms: Vec<HistogramPoint>,
    sums: Vec<SumPoint>,
    /// `content-type` of every request, with its path.
    requests: Vec<(String, String)>,
    /// Bodies that did not decode, with why.
    undecodable: Vec<String>,
}

/// The receiver; it stops when dropped.
pub struct Receiver {
    port: u16,
    tls: bool,
    received: Arc<Mutex<Received>>,
    /// TLS handshakes that failed (a client that did not trust the certificate).
    refused: Arc<std::sync::atomic::AtomicUsize>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Receiver {
    /// Starts listening on a free loopback port.
    pub fn start() -> Receiver {
        Receiver::start_with(None)
    }

    /// Starts listening over TLS on a free loopback port, with the certificate chain and the
    /// private key of these PEM files.
    pub fn start_tls(chain: &std::path::Path, key: &std::path::Path) -> Receiver {
        use rustls::pki_types::pem::PemObject as _;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let chain: Vec<CertificateDer<'static>> =
            CertificateDer::pem_file_iter(chain).expect("chain").collect::<Result<_, _>>().expect("certificates");
        let key = PrivateKeyDer::from_pem_file(key).expect("key");
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .expect("the certificate and its key");
        Receiver::start_with(Some(tokio_rustls::TlsAcceptor::from(Arc::new(config))))
    }

    fn start_with(tls: Option<tokio_rustls::TlsAcceptor>) -> Receiver {
        let received: Arc<Mutex<Received>> = Arc::default();
        let refused = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (ready, port) = std::sync::mpsc::channel();
        let state = Arc::clone(&received);
        let failed = Arc::clone(&refused);
        let over_tls = tls.is_some();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
                ready.send(listener.local_addr().expect("addr").port()).expect("tell the port");
                let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
                    let state = Arc::clone(&state);
                    async move { take(&state, request).await }
                });
                let stopped = async {
                    let _ = stopped.await;
                };
                let _ = match tls {
                    None => axum::serve(listener, app).with_graceful_shutdown(stopped).await,
                    Some(acceptor) => {
                        axum::serve(TlsListener { listener, acceptor, failed }, app)
                            .with_graceful_shutdown(stopped)
                            .await
                    }
                };
            });
        });
        let port = port.recv_timeout(Duration::from_secs(10)).expect("the receiver listens");
        Receiver { port, tls: over_tls, received, refused, stop: Some(stop), thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>` (`https://localhost:<port>` over TLS, the name its
    /// certificate is for): the value of `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        if self.tls { format!("https://localhost:{}", self.port) } else { format!("http://127.0.0.1:{}", self.port) }
    }

    /// TLS handshakes that failed so far.
    pub fn refused_handshakes(&self) -> usize {
        self.refused.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The spans received so far.
    pub fn spans(&self) -> Vec<Span> {
        self.received.lock().unwrap().spans.clone()
    }

    /// Waits until `done` holds of the spans received (at most `limit`), and returns them.
    pub fn wait_spans(&self, limit: Duration, done: impl Fn(&[Span]) -> bool) -> Vec<Span> {
        let end = Instant::now() + limit;
        loop {
            let spans = self.spans();
            if done(&spans) || Instant::now() >= end {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The histogram points received so far.
    pub fn histograms(&self) -> Vec<HistogramPoint> {
        self.received.lock().unwrap().histograms.clone()
    }

    /// The sum points received so far.
    pub fn sums(&self) -> Vec<SumPoint> {
        self.received.lock().unwrap().sums.clone()
    }

    /// `(path, content-type)` of every request received.
    pub fn requests(&self) -> Vec<(String, String)> {
        self.received.lock().unwrap().requests.clone()
    }

    /// Bodies that did not decode (a test fails on any).
    pub fn undecodable(&self) -> Vec<String> {
        self.received.lock().unwrap().undecodable.clone()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Connections accepted over TLS; those whose handshake fails are counted and dropped.
struct TlsListener {
    listener: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
    failed: Arc<std::sync::atomic::AtomicUsize>,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.listener.accept().await else { continue };
            match self.acceptor.accept(stream).await {
                Ok(stream) => return (stream, addr),
                Err(_) => {
                    self.failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.listener.local_addr()
    }
}

async fn take(state: &Mutex<Received>, request: axum::extract::Request) -> axum::http::StatusCode {
    let path = request.uri().path().to_owned();
    let content_type =
        request.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let Ok(body) = axum::body::to_bytes(request.into_body(), 64 << 20).await else {
        return axum::http::StatusCode::BAD_REQUEST;
    };
    let json = content_type.starts_with("application/json");
    let mut received = state.lock().unwrap();
    received.requests.push((path.clone(), content_type.clone()));
    let decoded = match path.as_str() {
        "/v1/traces" => decode::<ExportTraceServiceRequest>(&body, json).map(|r| received.spans.extend(spans(r))),
        "/v1/metrics" => decode::<ExportMetricsServiceRequest>(&body, json).map(|r| {
            let (h, s) = points(r);
            received.histograms.extend(h);
            received.sums.extend(s);
        }),
        other => Err(format!("unexpected path {other}")),
    };
    match decoded {
        Ok(()) => axum::http::StatusCode::OK,
        Err(why) => {
            received.undecodable.push(format!("{path} ({content_type}): {why}"));
            axum::http::StatusCode::BAD_REQUEST
        }
    }
}

fn decode<T: prost::Message + Default + serde::de::DeserializeOwned>(body: &[u8], json: bool) -> Result<T, String> {
    if json {
        serde_json::from_slice(body).map_err(|e| e.to_string())
    } else {
        T::decode(body).map_err(|e| e.to_string())
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

fn attributes(kvs: &[opentelemetry_proto::tonic::common::v1::KeyValue]) -> BTreeMap<String, Attr> {
    kvs.iter()
        .map(|kv| {
            let value = match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(any_value::Value::StringValue(s)) => Attr::Str(s.clone()),
                Some(any_value::Value::BoolValue(b)) => Attr::Bool(*b),
                Some(any_value::Value::IntValue(i)) => Attr::Int(*i),
                Some(any_value::Value::DoubleValue(f)) => Attr::Float(*f),
                other => Attr::Other(format!("{other:?}")),
            };
            (kv.key.clone(), value)
        })
        .collect()
}

fn spans(request: ExportTraceServiceRequest) -> Vec<Span> {
    let mut out = Vec::new();
    for resource_spans in request.resource_spans {
        let resource = resource_spans.resource.map(|r| attributes(&r.attributes)).unwrap_or_default();
        let service = resource.get("service.name").and_then(Attr::as_str).map(str::to_owned);
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                let status = span.status.map(|s| (s.code, s.message)).unwrap_or_default();
                out.push(Span {
                    name: span.name,
                    kind: span.kind,
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    attributes: attributes(&span.attributes),
                    status,
                    links: span.links.iter().map(|l| (hex(&l.trace_id), hex(&l.span_id))).collect(),
                    service: service.clone(),
                    events: span.events.iter().map(|e| e.name.clone()).collect(),
                });
            }
        }
    }
    out
}

fn points(request: ExportMetricsServiceRequest) -> (Vec<HistogramPoint>, Vec<SumPoint>) {
    let (mut histograms, mut sums) = (Vec::new(), Vec::new());
    for resource in request.resource_metrics {
        for scope in resource.scope_metrics {
            for m in scope.metrics {
                match m.data {
                    Some(metric::Data::Histogram(h)) => {
                        histograms.extend(h.data_points.iter().map(|p| HistogramPoint {
                            metric: m.name.clone(),
                            unit: m.unit.clone(),
                            attributes: attributes(&p.attributes),
                            count: p.count,
                            bounds: p.explicit_bounds.clone(),
                        }));
                    }
                    Some(metric::Data::Sum(s)) => sums.extend(s.data_points.iter().map(|p| SumPoint {
                        metric: m.name.clone(),
                        attributes: attributes(&p.attributes),
                        value: match p.value {
                            Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(i)) => i,
                            #[allow(clippy::cast_possible_truncation)]
                            Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsDouble(f)) => {
                                f as i64
                            }
                            None => 0,
                        },
                    })),
                    _ => {}
                }
            }
        }
    }
    (histograms, sums)
}

/// A collector that stalls: it accepts connections and reads every body sent, and never
/// answers. What an exporter meets when its collector hangs. Stops when dropped (the
/// connections it holds close then).
pub struct Stalled {
    port: u16,
    received: Arc<std::sync::atomic::AtomicU64>,
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Stalled {
    /// Starts listening on a free loopback port.
    pub fn start() -> Stalled {
        use std::io::Read as _;
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let received = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (count, stopping) = (Arc::clone(&received), Arc::clone(&stop));
        let thread = std::thread::spawn(move || {
            let mut open = Vec::new();
            for conn in listener.incoming() {
                if stopping.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(mut conn) = conn else { continue };
                let Ok(kept) = conn.try_clone() else { continue };
                // Kept open (never answered) until the collector stops.
                open.push(kept);
                let count = Arc::clone(&count);
                std::thread::spawn(move || {
                    let mut buf = vec![0u8; 64 * 1024];
                    while let Ok(n @ 1..) = conn.read(&mut buf) {
                        count.fetch_add(n as u64, Ordering::Relaxed);
                    }
                });
            }
            for conn in open {
                let _ = conn.shutdown(std::net::Shutdown::Both);
            }
        });
        Stalled { port, received, stop, thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Bytes of requests read so far (headers and bodies).
    pub fn received(&self) -> u64 {
        self.received.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for Stalled {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        // Wakes the accept loop so that it sees the stop.
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.port));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
