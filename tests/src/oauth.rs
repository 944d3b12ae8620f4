//! An identity provider for the authorization tests: the test keys in `tests/keys` (signing
//! tokens, and their public halves as a JWKS), and a loopback HTTP server that serves the
//! JWKS, can swap it (key rotation) and can go down and come back on the same port.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::jwk::{
    AlgorithmParameters, CommonParameters, EllipticCurve, Jwk, KeyAlgorithm, OctetKeyPairParameters, OctetKeyPairType,
};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The issuer the tests' tokens name.
pub const ISSUER: &str = "https://id.example.test/";

/// A test key: its `kid`, algorithm and PEM file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestKey {
    /// `rsa-1.pem`, RS256, kid `rsa-1`.
    Rsa1,
    /// `rsa-2.pem`, RS256, kid `rsa-2`: the key rotated in.
    Rsa2,
    /// `ec-1.pem`, ES256, kid `ec-1`.
    Ec1,
    /// `ed-1.pem`, `EdDSA`, kid `ed-1`.
    Ed1,
}

/// The public `x` of `ed-1.pem` (base64url): `openssl pkey -in ed-1.pem -pubout -outform DER
/// | tail -c 32`. jsonwebtoken cannot derive an Ed25519 JWK from a private key.
const ED1_X: &str = "xjAF-Aaj6lGqan8IDfojPp3LoER3fjGxWn7M09VQ0zo";

impl TestKey {
    /// The key's id in the JWKS and in token headers.
    pub fn kid(self) -> &'static str {
        match self {
            TestKey::Rsa1 => "rsa-1",
            TestKey::Rsa2 => "rsa-2",
            TestKey::Ec1 => "ec-1",
            TestKey::Ed1 => "ed-1",
        }
    }

    /// The algorithm it signs with.
    pub fn alg(self) -> Algorithm {
        match self {
            TestKey::Rsa1 | TestKey::Rsa2 => Algorithm::RS256,
            TestKey::Ec1 => Algorithm::ES256,
            TestKey::Ed1 => Algorithm::EdDSA,
        }
    }

    /// The private key, PEM.
    pub fn pem(self) -> Vec<u8> {
        let path = format!("{}/keys/{}.pem", env!("CARGO_MANIFEST_DIR"), self.kid());
        std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
    }

    /// The signing key.
    pub fn encoding(self) -> EncodingKey {
        let pem = self.pem();
        let key = match self {
            TestKey::Rsa1 | TestKey::Rsa2 => EncodingKey::from_rsa_pem(&pem),
            TestKey::Ec1 => EncodingKey::from_ec_pem(&pem),
            TestKey::Ed1 => EncodingKey::from_ed_pem(&pem),
        };
        key.unwrap_or_else(|e| panic!("{}: {e}", self.kid()))
    }

    /// The public key as a JWK, with its `kid`.
    pub fn jwk(self) -> Jwk {
        let mut jwk = if self == TestKey::Ed1 {
            Jwk {
                common: CommonParameters { key_algorithm: Some(KeyAlgorithm::EdDSA), ..CommonParameters::default() },
                algorithm: AlgorithmParameters::OctetKeyPair(OctetKeyPairParameters {
                    key_type: OctetKeyPairType::OctetKeyPair,
                    curve: EllipticCurve::Ed25519,
                    x: ED1_X.to_owned(),
                }),
            }
        } else {
            Jwk::from_encoding_key(&self.encoding(), self.alg()).unwrap_or_else(|e| panic!("{}: {e}", self.kid()))
        };
        jwk.common.key_id = Some(self.kid().to_owned());
        jwk
    }

    /// The public key, PEM (`SubjectPublicKeyInfo`), as anyone can have it: for the forgery
    /// that signs HS256 with it. Only `rsa-1.pub.pem` is kept.
    pub fn public_pem(self) -> Vec<u8> {
        assert_eq!(self, TestKey::Rsa1, "only rsa-1's public key is kept");
        let path = format!("{}/keys/rsa-1.pub.pem", env!("CARGO_MANIFEST_DIR"));
        std::fs::read(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
    }
}

/// A JWKS holding these keys' public halves.
pub fn jwks(keys: &[TestKey]) -> String {
    json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()}).to_string()
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    i64::try_from(SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())).unwrap_or(i64::MAX)
}

/// Claims of a valid token for `audience`, valid for an hour: subject `user-42`, client
/// `notes-app`, tenant `acme`, and `scope`.
pub fn claims(audience: &str, scope: &str) -> Value {
    json!({
        "iss": ISSUER,
        "aud": audience,
        "sub": "user-42",
        "client_id": "notes-app",
        "tid": "acme",
        "scope": scope,
        "iat": now(),
        "exp": now() + 3600,
    })
}

/// A token signed by `key` (its `kid` in the header).
pub fn token(key: TestKey, claims: &Value) -> String {
    let mut header = Header::new(key.alg());
    header.kid = Some(key.kid().to_owned());
    jsonwebtoken::encode(&header, claims, &key.encoding()).expect("sign the token")
}

/// A loopback JWKS endpoint (`GET /jwks.json`) whose document can change, and which can stop
/// listening and listen again on the same port, answer slowly, or send a body of any size.
pub struct JwksServer {
    port: u16,
    shared: Arc<Served>,
    up: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// What the endpoint serves and counts.
#[derive(Default)]
struct Served {
    document: Mutex<String>,
    /// How long each answer waits before it is sent.
    delay: Mutex<Duration>,
    /// Spaces sent before the document, without a `Content-Length` (the body ends when the
    /// connection closes): a JWKS as large as the endpoint likes.
    padding: AtomicUsize,
    fetches: AtomicUsize,
    answered: AtomicUsize,
    /// Body bytes the last answer got out before the client stopped reading.
    written: AtomicUsize,
}

impl JwksServer {
    /// Listens on a free loopback port and serves `document`.
    pub fn start(document: String) -> JwksServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the JWKS server");
        let port = listener.local_addr().expect("its address").port();
        let shared = Served { document: Mutex::new(document), ..Served::default() };
        let mut server =
            JwksServer { port, shared: Arc::new(shared), up: Arc::new(AtomicBool::new(false)), thread: None };
        server.listen(listener);
        server
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/jwks.json", self.port)
    }

    /// How many times the JWKS was asked for (counted when a request arrives).
    pub fn fetches(&self) -> usize {
        self.shared.fetches.load(Ordering::SeqCst)
    }

    /// How many answers were sent whole (or cut off by the client).
    pub fn answered(&self) -> usize {
        self.shared.answered.load(Ordering::SeqCst)
    }

    /// Body bytes the last answer got out before the client stopped reading.
    pub fn written(&self) -> usize {
        self.shared.written.load(Ordering::SeqCst)
    }

    /// Serves another document from now on.
    pub fn set(&self, document: String) {
        *self.shared.document.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = document;
    }

    /// Waits `delay` before each answer from now on (a slow identity provider).
    pub fn set_delay(&self, delay: Duration) {
        *self.shared.delay.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = delay;
    }

    /// Sends `bytes` spaces before the document from now on, with no `Content-Length`.
    pub fn set_padding(&self, bytes: usize) {
        self.shared.padding.store(bytes, Ordering::SeqCst);
    }

    /// Stops listening: connections are refused.
    pub fn stop(&mut self) {
        self.up.store(false, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Listens again, on the same port.
    pub fn restart(&mut self) {
        let listener = TcpListener::bind(("127.0.0.1", self.port)).expect("bind the JWKS port again");
        self.listen(listener);
    }

    fn listen(&mut self, listener: TcpListener) {
        listener.set_nonblocking(true).expect("nonblocking");
        self.up.store(true, Ordering::SeqCst);
        let (up, shared) = (Arc::clone(&self.up), Arc::clone(&self.shared));
        self.thread = Some(std::thread::spawn(move || {
            while up.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        shared.fetches.fetch_add(1, Ordering::SeqCst);
                        answer(stream, &shared);
                        shared.answered.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        }));
    }
}

impl Drop for JwksServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Reads one request's head and answers with the JSON body (after the delay, and the padding
/// if any).
fn answer(stream: TcpStream, served: &Served) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(&stream);
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) if line.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let body = served.document.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
    let delay = *served.delay.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    std::thread::sleep(delay);
    let padding = served.padding.load(Ordering::SeqCst);
    let mut stream = &stream;
    served.written.store(0, Ordering::SeqCst);
    if padding == 0 {
        let _ = write!(
            stream,
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    } else {
        let _ = write!(stream, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n");
        let chunk = vec![b' '; 64 * 1024];
        let mut left = padding;
        while left > 0 {
            let n = left.min(chunk.len());
            if stream.write_all(&chunk[..n]).is_err() {
                return;
            }
            served.written.fetch_add(n, Ordering::SeqCst);
            left -= n;
        }
        let _ = stream.write_all(body.as_bytes());
    }
    let _ = stream.flush();
}
