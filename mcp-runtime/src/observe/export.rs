//! OTLP export (feature `otel`), set up once per process from the standard environment:
//!
//! - `OTEL_EXPORTER_OTLP_ENDPOINT` (or the per-signal `…_TRACES_ENDPOINT`,
//!   `…_METRICS_ENDPOINT`): where to send; without one of them nothing is set up, exported
//!   or allocated. `OTEL_SDK_DISABLED=true` turns it off as well; `OTEL_TRACES_EXPORTER=none`
//!   or `OTEL_METRICS_EXPORTER=none` one signal.
//! - `OTEL_EXPORTER_OTLP_PROTOCOL` (and the per-signal ones): `http/protobuf` (default) or
//!   `http/json`. `OTEL_EXPORTER_OTLP_TIMEOUT`, `OTEL_EXPORTER_OTLP_HEADERS`.
//! - `OTEL_SERVICE_NAME` (default: the server's name), `OTEL_RESOURCE_ATTRIBUTES`.
//! - `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG` (default `parentbased_always_on`),
//!   `OTEL_BSP_*` (batching), `OTEL_METRIC_EXPORT_INTERVAL` (default 60000 ms).
//!
//! Spans are batched and metrics read periodically by the SDK, each on a thread of its own;
//! both are flushed when the server stops serving ([`flush`]), so that a stdio server at EOF
//! loses nothing.
//!
//! The exporter's HTTP client is hyper's HTTP/1 client (the stack the `http` feature serves
//! with) on a small runtime of its own, driven from the SDK's threads: no second HTTP stack,
//! nothing of the server's own runtime. With feature `otel-tls`, an `https://` endpoint is
//! reached over rustls (the TLS stack `jwt` builds already), trusting webpki-roots or the
//! CA certificates of `OTEL_EXPORTER_OTLP_CERTIFICATE` (or `…_TRACES_CERTIFICATE`,
//! `…_METRICS_CERTIFICATE`); without it, an `https://` endpoint is refused at start with a
//! line that names the feature.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_http::{HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{Protocol, WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider};
use tracing_subscriber::Layer;
use tracing_subscriber::registry::LookupSpan;

/// The process's telemetry pipeline.
pub(crate) struct Telemetry {
    pub(crate) tracer: SdkTracerProvider,
    pub(crate) meter: SdkMeterProvider,
    /// The spans waiting for export, when spans are exported.
    queue: Option<std::sync::Arc<super::queue::Queue>>,
}

static TELEMETRY: OnceLock<Option<Telemetry>> = OnceLock::new();

/// Set when `otel_layer` gave the layer to a subscriber of the author's.
pub(crate) static LAYER_GIVEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The process's pipeline, set up from the environment by the first caller (`service` and
/// `version` name the service unless `OTEL_SERVICE_NAME` does); `None` when the environment
/// configures no export, or configures it wrong (then a line on stderr says what to fix).
pub(crate) fn telemetry(service: &str, version: &str) -> Option<&'static Telemetry> {
    TELEMETRY
        .get_or_init(|| match from_env(&|name| std::env::var(name).ok(), service, version) {
            Ok(telemetry) => telemetry,
            Err(why) => {
                // Said on stderr directly: the logging may not be installed yet.
                eprintln!("mcp-runtime: OpenTelemetry export is off: {why}");
                None
            }
        })
        .as_ref()
}

/// The pipeline, if one was set up.
pub(crate) fn current() -> Option<&'static Telemetry> {
    TELEMETRY.get()?.as_ref()
}

/// The `tracing` layer that turns spans into OpenTelemetry spans of `telemetry`: events at
/// `INFO` and above, and spans, become span events and spans; nothing else is added to
/// their attributes (no code location, thread or target).
pub(crate) fn layer<S>(telemetry: &Telemetry) -> impl Layer<S>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    let tracer = telemetry.tracer.tracer_with_scope(
        opentelemetry::InstrumentationScope::builder("mcp-runtime").with_version(env!("CARGO_PKG_VERSION")).build(),
    );
    tracing_opentelemetry::layer()
        .with_tracer(tracer)
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_level(false)
        .with_tracked_inactivity(false)
        .with_filter(tracing_subscriber::filter::LevelFilter::INFO)
}

/// Exports what is batched and what the metrics hold now, waiting for it (at most the
/// exporter's timeout per signal). Called when a server stops serving; nothing without a
/// pipeline.
pub(crate) fn flush() {
    let Some(telemetry) = current() else { return };
    if let Err(e) = telemetry.tracer.force_flush() {
        tracing::warn!(target: "mcp_runtime::otel", error = %e, "flushing spans failed; some may be lost");
    }
    if let Err(e) = telemetry.meter.force_flush() {
        tracing::warn!(target: "mcp_runtime::otel", error = %e, "flushing metrics failed; the last readings may be lost");
    }
    let dropped = telemetry.queue.as_ref().map_or(0, |q| q.dropped());
    if dropped > 0 {
        tracing::warn!(target: "mcp_runtime::otel", dropped, "spans dropped in all because the export queue was full (ServerBuilder::otel_queue_bytes, OTEL_BSP_MAX_QUEUE_SIZE)");
    }
}

/// The pipeline the environment (`var`) describes.
fn from_env(var: &dyn Fn(&str) -> Option<String>, service: &str, version: &str) -> Result<Option<Telemetry>, String> {
    let var = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    if var("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Ok(None);
    }
    let endpoint = |signal: &str| {
        var(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")).or_else(|| var("OTEL_EXPORTER_OTLP_ENDPOINT"))
    };
    let wanted = |signal: &str| {
        let exporter = var(&format!("OTEL_{signal}_EXPORTER"));
        exporter.is_none_or(|e| e.trim() != "none")
    };
    let traces = endpoint("TRACES").filter(|_| wanted("TRACES"));
    let metrics = endpoint("METRICS").filter(|_| wanted("METRICS"));
    if traces.is_none() && metrics.is_none() {
        return Ok(None);
    }
    for endpoint in traces.iter().chain(&metrics) {
        served(endpoint)?;
    }
    let timeout = match var("OTEL_EXPORTER_OTLP_TIMEOUT") {
        None => Duration::from_secs(10),
        Some(ms) => Duration::from_millis(
            ms.trim()
                .parse()
                .map_err(|_| format!("OTEL_EXPORTER_OTLP_TIMEOUT={ms:?}: write a number of milliseconds"))?,
        ),
    };
    let resource = {
        let mut resource = Resource::builder();
        if var("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name(service.to_owned());
        }
        if !version.is_empty() && !var("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|a| a.contains("service.version=")) {
            resource = resource.with_attribute(opentelemetry::KeyValue::new("service.version", version.to_owned()));
        }
        resource.build()
    };

    let mut spans = SdkTracerProvider::builder().with_resource(resource.clone());
    let mut queue = None;
    if traces.is_some() {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(Client::new(timeout, tls(&var, "TRACES", traces.as_deref())?)?)
            .with_protocol(protocol(&var, "TRACES")?)
            .with_timeout(timeout)
            .build()
            .map_err(|e| format!("the span exporter cannot be built: {e}"))?;
        // The batch processor's queue, bounded in bytes too (see `queue`): its count bound is
        // ours, so that every drop is counted in one place.
        let max_spans = match var("OTEL_BSP_MAX_QUEUE_SIZE") {
            None => 2048,
            Some(n) => {
                n.trim().parse().map_err(|_| format!("OTEL_BSP_MAX_QUEUE_SIZE={n:?}: write a number of spans"))?
            }
        };
        let config = BatchConfigBuilder::default().with_max_queue_size(max_spans).build();
        let bounded = super::queue::Queue::new(max_spans);
        let exporter = super::queue::Released { inner: exporter, queue: std::sync::Arc::clone(&bounded) };
        let batch = BatchSpanProcessor::builder(exporter).with_batch_config(config).build();
        spans =
            spans.with_span_processor(super::queue::Bounded { inner: batch, queue: std::sync::Arc::clone(&bounded) });
        queue = Some(bounded);
    }
    let mut meter = SdkMeterProvider::builder().with_resource(resource);
    if metrics.is_some() {
        let exporter = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_http_client(Client::new(timeout, tls(&var, "METRICS", metrics.as_deref())?)?)
            .with_protocol(protocol(&var, "METRICS")?)
            .with_timeout(timeout)
            .build()
            .map_err(|e| format!("the metric exporter cannot be built: {e}"))?;
        meter = meter.with_reader(PeriodicReader::builder(exporter).build());
    }
    let telemetry = Telemetry { tracer: spans.build(), meter: meter.build(), queue };
    // The author's own instruments and spans made through the global API go the same way.
    opentelemetry::global::set_tracer_provider(telemetry.tracer.clone());
    opentelemetry::global::set_meter_provider(telemetry.meter.clone());
    Ok(Some(telemetry))
}

/// Whether an endpoint can be served: `http://`, and `https://` with feature `otel-tls`.
fn served(endpoint: &str) -> Result<(), String> {
    let endpoint = endpoint.trim();
    if endpoint.starts_with("http://") || (cfg!(feature = "otel-tls") && endpoint.starts_with("https://")) {
        return Ok(());
    }
    if endpoint.starts_with("https://") {
        return Err(format!(
            "endpoint {endpoint:?}: https:// needs the `otel-tls` feature of mcp-runtime (OTLP over TLS), which this build does not have; enable it, or send to an OpenTelemetry Collector next to the server (http://localhost:4318) and let the collector use TLS"
        ));
    }
    let schemes = if cfg!(feature = "otel-tls") { "an http:// or https://" } else { "an http://" };
    Err(format!("endpoint {endpoint:?}: write {schemes} URL (the collector's OTLP/HTTP port, 4318)"))
}

/// What an `https://` endpoint is reached with (feature `otel-tls`): `None` without the
/// feature, and for an `http://` endpoint.
#[cfg(feature = "otel-tls")]
type Tls = Option<std::sync::Arc<rustls::ClientConfig>>;
#[cfg(not(feature = "otel-tls"))]
type Tls = Option<std::convert::Infallible>;

/// The TLS settings of a signal sent to `endpoint`: for `https://`, the roots it trusts
/// (webpki-roots, or the PEM file `OTEL_EXPORTER_OTLP_{signal}_CERTIFICATE` or
/// `OTEL_EXPORTER_OTLP_CERTIFICATE` names, and only its certificates then).
#[cfg(feature = "otel-tls")]
fn tls(var: &dyn Fn(&str) -> Option<String>, signal: &str, endpoint: Option<&str>) -> Result<Tls, String> {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject as _;
    if !endpoint.is_some_and(|e| e.trim().starts_with("https://")) {
        return Ok(None);
    }
    for client in ["CLIENT_CERTIFICATE", "CLIENT_KEY"] {
        for name in [format!("OTEL_EXPORTER_OTLP_{signal}_{client}"), format!("OTEL_EXPORTER_OTLP_{client}")] {
            if var(&name).is_some() {
                return Err(format!(
                    "{name}: client certificates (mutual TLS) are not supported by this exporter; unset it, or send to an OpenTelemetry Collector next to the server and let the collector authenticate"
                ));
            }
        }
    }
    let own = format!("OTEL_EXPORTER_OTLP_{signal}_CERTIFICATE");
    let given = match var(&own) {
        Some(path) => Some((own, path)),
        None => var("OTEL_EXPORTER_OTLP_CERTIFICATE").map(|path| ("OTEL_EXPORTER_OTLP_CERTIFICATE".to_owned(), path)),
    };
    let mut roots = rustls::RootCertStore::empty();
    match given {
        None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
        Some((name, path)) => {
            let unreadable = |e: &dyn std::fmt::Display| {
                format!("{name}={path:?}: {e}; name a PEM file of the CA certificates that signed the collector's")
            };
            for cert in CertificateDer::pem_file_iter(path.trim()).map_err(|e| unreadable(&e))? {
                let cert = cert.map_err(|e| unreadable(&e))?;
                roots.add(cert).map_err(|e| format!("{name}={path:?}: a certificate cannot be trusted: {e}"))?;
            }
            if roots.is_empty() {
                return Err(unreadable(&"no certificate in the file"));
            }
        }
    }
    let config =
        rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS cannot be set up: {e}"))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    Ok(Some(std::sync::Arc::new(config)))
}

#[cfg(not(feature = "otel-tls"))]
#[allow(clippy::unnecessary_wraps)] // the signature of the feature's
fn tls(_: &dyn Fn(&str) -> Option<String>, _: &str, _: Option<&str>) -> Result<Tls, String> {
    Ok(None)
}

/// A signal's protocol: its own variable, else `OTEL_EXPORTER_OTLP_PROTOCOL`, else protobuf.
fn protocol(var: &dyn Fn(&str) -> Option<String>, signal: &str) -> Result<Protocol, String> {
    let own = format!("OTEL_EXPORTER_OTLP_{signal}_PROTOCOL");
    let (name, value) = match var(&own) {
        Some(value) => (own, value),
        None => match var("OTEL_EXPORTER_OTLP_PROTOCOL") {
            Some(value) => ("OTEL_EXPORTER_OTLP_PROTOCOL".to_owned(), value),
            None => return Ok(Protocol::HttpBinary),
        },
    };
    match value.trim() {
        "http/protobuf" => Ok(Protocol::HttpBinary),
        "http/json" => Ok(Protocol::HttpJson),
        "grpc" => Err(format!(
            "{name}=grpc: this server exports over HTTP; set http/protobuf (the collector's port 4318) or http/json"
        )),
        other => Err(format!("{name}={other:?}: use http/protobuf or http/json")),
    }
}

/// Bodies of answers read at most (a collector answers with a few bytes).
const MAX_ANSWER: usize = 4 * 1024 * 1024;

/// The exporters' HTTP client: one HTTP/1 request per export, on a current-thread runtime of
/// its own, driven by the SDK thread that exports.
#[derive(Debug)]
struct Client {
    runtime: tokio::runtime::Runtime,
    timeout: Duration,
    tls: Tls,
}

impl Client {
    fn new(timeout: Duration, tls: Tls) -> Result<Client, String> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| format!("the exporter's runtime cannot start: {e}"))?;
        Ok(Client { runtime, timeout, tls })
    }

    /// Sends the request; a failure is logged with its cause (the SDK's own line says only
    /// "network error"), and the SDK retries.
    fn send(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let endpoint = request.uri().clone();
        let answer = self.exchange(request);
        if let Err(e) = &answer {
            tracing::warn!(target: "mcp_runtime::otel", %endpoint, error = %e, "an OTLP export failed");
        }
        answer
    }

    fn exchange(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let timeout = self.timeout;
        let exchange = async move {
            match tokio::time::timeout(timeout, post(request, &self.tls)).await {
                Ok(answer) => answer,
                Err(_) => Err(format!("the collector did not answer within {} ms", timeout.as_millis()).into()),
            }
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return self.runtime.block_on(exchange);
        }
        // Called from inside a runtime (not the SDK's threads): ours is driven from a thread
        // of its own, as a runtime cannot be blocked on from within another.
        std::thread::scope(|scope| {
            scope.spawn(|| self.runtime.block_on(exchange)).join().unwrap_or_else(|_| Err("the export panicked".into()))
        })
    }
}

impl HttpClient for Client {
    // The trait is `#[async_trait]`; this is the signature it expands to.
    fn send_bytes<'life0, 'async_trait>(
        &'life0 self,
        request: Request<Bytes>,
    ) -> Pin<Box<dyn Future<Output = Result<Response<Bytes>, HttpError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move { self.send(request) })
    }
}

/// One POST over a new HTTP/1 connection, over TLS to an `https://` endpoint.
async fn post(request: Request<Bytes>, tls: &Tls) -> Result<Response<Bytes>, HttpError> {
    let (mut parts, body) = request.into_parts();
    let https = match parts.uri.scheme_str() {
        Some("http") => false,
        Some("https") if tls.is_some() => true,
        _ => return Err(format!("{}: only http:// endpoints are served", parts.uri).into()),
    };
    let authority = parts.uri.authority().ok_or_else(|| format!("{}: no host", parts.uri))?.clone();
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    let port = authority.port_u16().unwrap_or(if https { 443 } else { 80 });
    let stream = tokio::net::TcpStream::connect((host, port)).await?;
    stream.set_nodelay(true)?;
    parts.uri = parts.uri.path_and_query().map_or("/", http::uri::PathAndQuery::as_str).parse()?;
    parts.headers.insert(http::header::HOST, http::HeaderValue::from_str(authority.as_str())?);
    let request = http::Request::from_parts(parts, http_body_util::Full::new(body));
    #[cfg(feature = "otel-tls")]
    if let Some(config) = tls {
        let name = rustls::pki_types::ServerName::try_from(host.to_owned())?;
        let stream = tokio_rustls::TlsConnector::from(std::sync::Arc::clone(config)).connect(name, stream).await?;
        return exchange(hyper_util::rt::TokioIo::new(stream), request).await;
    }
    exchange(hyper_util::rt::TokioIo::new(stream), request).await
}

/// The request on a connection, and its answer.
async fn exchange<T>(io: T, request: http::Request<http_body_util::Full<Bytes>>) -> Result<Response<Bytes>, HttpError>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, connection) = hyper::client::conn::http1::handshake(io).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    let answer = sender.send_request(request).await?;
    let (parts, body) = answer.into_parts();
    let body = http_body_util::Limited::new(body, MAX_ANSWER).collect().await?.to_bytes();
    Ok(Response::from_parts(parts, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn nothing_is_set_up_without_an_endpoint() {
        assert!(from_env(&env(&[]), "s", "1").expect("no error").is_none());
        let disabled = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1"), ("OTEL_SDK_DISABLED", "true")]);
        assert!(from_env(&disabled, "s", "1").expect("no error").is_none());
        let none = env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1"),
            ("OTEL_TRACES_EXPORTER", "none"),
            ("OTEL_METRICS_EXPORTER", "none"),
        ]);
        assert!(from_env(&none, "s", "1").expect("no error").is_none());
    }

    #[test]
    fn what_cannot_be_served_says_what_to_do() {
        let grpc =
            env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1"), ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")]);
        let err = from_env(&grpc, "s", "1").err().expect("refused");
        assert!(err.contains("set http/protobuf"), "{err}");
        #[cfg(not(feature = "otel-tls"))]
        {
            let tls = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector.example:4318")]);
            let err = from_env(&tls, "s", "1").err().expect("refused");
            assert_eq!(
                err,
                "endpoint \"https://collector.example:4318\": https:// needs the `otel-tls` feature of mcp-runtime (OTLP over TLS), which this build does not have; enable it, or send to an OpenTelemetry Collector next to the server (http://localhost:4318) and let the collector use TLS"
            );
        }
        let ftp = env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "ftp://collector.example")]);
        let err = from_env(&ftp, "s", "1").err().expect("refused");
        let schemes = if cfg!(feature = "otel-tls") { "an http:// or https://" } else { "an http://" };
        assert_eq!(
            err,
            format!("endpoint \"ftp://collector.example\": write {schemes} URL (the collector's OTLP/HTTP port, 4318)")
        );
        let bad = env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", "http/xml")]);
        assert!(protocol(&bad, "TRACES").unwrap_err().contains("use http/protobuf or http/json"));
        let json = env(&[
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
        ]);
        assert_eq!(protocol(&json, "TRACES"), Ok(Protocol::HttpJson));
        assert_eq!(protocol(&json, "METRICS"), Ok(Protocol::HttpBinary));
    }

    #[cfg(feature = "otel-tls")]
    #[test]
    fn tls_trusts_the_given_ca_file_and_says_what_is_wrong_with_one() {
        let https = Some("https://collector.example:4318");
        assert!(tls(&env(&[]), "TRACES", https).expect("webpki roots").is_some());
        // For http://, no TLS: the certificate is not even read.
        let bogus = env(&[("OTEL_EXPORTER_OTLP_CERTIFICATE", "/nonexistent/ca.pem")]);
        assert!(tls(&bogus, "TRACES", Some("http://127.0.0.1:4318")).expect("plain").is_none());
        let err = tls(&bogus, "TRACES", https).expect_err("no such file");
        assert!(err.starts_with("OTEL_EXPORTER_OTLP_CERTIFICATE=\"/nonexistent/ca.pem\": "), "{err}");
        assert!(err.ends_with("; name a PEM file of the CA certificates that signed the collector's"), "{err}");
        let empty = std::env::temp_dir().join(format!("mcp-otel-empty-{}.pem", std::process::id()));
        std::fs::write(&empty, "not a certificate\n").expect("write");
        let path = empty.to_str().expect("utf-8").to_owned();
        let own = env(&[("OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE", &path), ("OTEL_EXPORTER_OTLP_CERTIFICATE", "/x")]);
        assert_eq!(
            tls(&own, "METRICS", https).expect_err("no certificate"),
            format!(
                "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE={path:?}: no certificate in the file; name a PEM file of the CA certificates that signed the collector's"
            )
        );
        let _ = std::fs::remove_file(&empty);
        let mutual = env(&[("OTEL_EXPORTER_OTLP_CLIENT_KEY", "/k.pem")]);
        assert_eq!(
            tls(&mutual, "TRACES", https).expect_err("mutual TLS"),
            "OTEL_EXPORTER_OTLP_CLIENT_KEY: client certificates (mutual TLS) are not supported by this exporter; unset it, or send to an OpenTelemetry Collector next to the server and let the collector authenticate"
        );
    }
}
