//! [`JwtValidator`]: bearer JWTs verified against the issuer's JWKS, fetched over HTTP(S) and
//! cached (refreshed when a token names an unknown `kid` or the cache is old, never more often
//! than the minimum refresh interval), with an algorithm allowlist, `iss`, `aud`, `exp` and
//! `nbf`. The crypto is `jsonwebtoken`'s (`RustCrypto`), not ours.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use crate::auth::{InvalidToken, TokenProblem, TokenValidator};
use crate::principal::Principal;

type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The algorithms accepted unless [`JwtValidator::algorithms`] says otherwise.
const DEFAULT_ALGORITHMS: [Algorithm; 3] = [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA];

/// Checks bearer JWTs against a JWKS:
///
/// - the signature, by the key the header's `kid` names (or, without a `kid`, the keys of
///   the JWKS whose type fits the algorithm), with an algorithm of the allowlist (RS256,
///   ES256, `EdDSA` by default; `none` and the HMAC algorithms are never accepted: a public
///   key is no secret);
/// - `iss` equal to the issuer, `aud` containing the audience (the resource's canonical URL,
///   RFC 8707), `exp` required and `nbf` when present, with 30 s of leeway.
///
/// The JWKS is fetched when first needed and kept for 10 minutes, then refreshed in the
/// background while the keys held keep serving; a token naming a `kid` the cache does not
/// hold fetches it again (the issuer rotated its keys), at most once every 30 s. Fetches run
/// one at a time and outside the cache's lock: only the request that needs the new keys
/// waits for one, so a token naming an unknown `kid` slows nobody else. The body is read up
/// to 1 MiB and refused past it. When the JWKS cannot be fetched, the keys already held stay
/// in use, and a token that needs another one is refused (401) until the endpoint answers
/// again.
///
/// ```no_run
/// use mcp_runtime::{Authorization, JwtValidator, Server};
///
/// let jwt = JwtValidator::new(
///     "https://login.example.com/.well-known/jwks.json",
///     "https://login.example.com/",
///     "https://mcp.example.com/mcp",
/// );
/// let server = Server::builder("notes", "1.0.0")
///     .authorization(Authorization::jwt(jwt).scopes_supported(["notes:read", "notes:write"]))
///     .allowed_hosts(["mcp.example.com"])
///     .build();
/// ```
pub struct JwtValidator {
    issuer: String,
    audience: String,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    /// The key cache and its fetcher, shared with the background refresh.
    jwks: Arc<Jwks>,
}

/// The JWKS endpoint and what was fetched from it. Requests read the keys under a short
/// lock that no fetch ever holds; fetches run one at a time (`fetching`), and a request waits
/// for one only when the keys it needs are not held.
struct Jwks {
    url: String,
    client: reqwest::Client,
    min_refresh: Duration,
    max_age: Duration,
    cache: Mutex<Cache>,
    /// Held for the whole of a fetch: at most one runs, and a request that needs its result
    /// waits here, never on `cache`.
    fetching: tokio::sync::Mutex<()>,
}

/// The keys held, and when they were last fetched (or a fetch last tried).
#[derive(Default)]
struct Cache {
    keys: HashMap<String, Jwk>,
    /// Keys without a `kid`.
    unnamed: Vec<Jwk>,
    fetched: Option<Instant>,
    tried: Option<Instant>,
}

/// The largest JWKS read (the body is refused as it streams past it).
const MAX_JWKS_BYTES: usize = 1024 * 1024;

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("jwks_url", &self.jwks.url)
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

impl JwtValidator {
    /// Tokens signed by the keys at `jwks_url`, issued by `issuer` (the `iss` claim, exactly)
    /// for `audience` (one of the `aud` claim's values: the resource's canonical URL).
    pub fn new(jwks_url: impl Into<String>, issuer: impl Into<String>, audience: impl Into<String>) -> Self {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()
            .unwrap_or_default();
        JwtValidator {
            issuer: issuer.into(),
            audience: audience.into(),
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: Duration::from_secs(30),
            jwks: Arc::new(Jwks {
                url: jwks_url.into(),
                client,
                min_refresh: Duration::from_secs(30),
                max_age: Duration::from_secs(600),
                cache: Mutex::default(),
                fetching: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// The settings of the JWKS fetcher, before the validator is shared.
    fn jwks_mut(&mut self) -> &mut Jwks {
        Arc::get_mut(&mut self.jwks).unwrap_or_else(|| unreachable!("the builder owns the only handle"))
    }

    /// The accepted algorithms (default RS256, ES256, `EdDSA`). HMAC algorithms (HS256, …) are
    /// left out whatever is asked: a JWKS holds public keys, and a token "signed" with one by
    /// an HMAC is forged.
    #[must_use]
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms
            .into_iter()
            .filter(|a| !matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
            .collect();
        self
    }

    /// How far `exp` and `nbf` may be off (default 30 s).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the JWKS (default 30 s): tokens naming unknown
    /// keys cannot make the server hammer the issuer.
    #[must_use]
    pub fn min_refresh(mut self, interval: Duration) -> Self {
        self.jwks_mut().min_refresh = interval;
        self
    }

    /// How long fetched keys are used before they are fetched again (default 10 min).
    #[must_use]
    pub fn max_age(mut self, age: Duration) -> Self {
        self.jwks_mut().max_age = age;
        self
    }

    /// The audience tokens must name.
    pub fn audience(&self) -> &str {
        &self.audience
    }

    /// The issuer tokens must name.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    async fn check(&self, token: &str) -> Result<Principal, InvalidToken> {
        let header = jsonwebtoken::decode_header(token).map_err(|e| {
            InvalidToken::new(TokenProblem::Malformed, format!("the token's header cannot be read: {e}"))
        })?;
        if !self.algorithms.contains(&header.alg) {
            return Err(InvalidToken::new(
                TokenProblem::Malformed,
                format!("algorithm {:?} is not accepted", header.alg),
            ));
        }
        let candidates = Jwks::keys_for(&self.jwks, header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.algorithms = vec![header.alg];
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway.as_secs();
        let mut last = None;
        for jwk in &candidates {
            let key = match DecodingKey::from_jwk(jwk) {
                Ok(key) => key,
                Err(e) => {
                    last =
                        Some(InvalidToken::new(TokenProblem::Malformed, format!("the JWKS key cannot be used: {e}")));
                    continue;
                }
            };
            match jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation) {
                Ok(data) => return Ok(Principal::from_claims(data.claims)),
                Err(e) => last = Some(refusal(&e)),
            }
        }
        Err(last.unwrap_or_else(|| InvalidToken::new(TokenProblem::Malformed, "no key of the JWKS fits the token")))
    }
}

impl Jwks {
    /// The keys that may have signed a token: the one `kid` names, or those without a name
    /// that fit the algorithm. Keys held are used at once, and an old cache is refreshed in
    /// the background meanwhile; only a token that needs keys not held waits for a fetch
    /// (one at a time, at most one per `min_refresh`), so a token naming an unknown `kid`
    /// delays nobody but its sender.
    async fn keys_for(jwks: &Arc<Jwks>, kid: Option<&str>, alg: Algorithm) -> Result<Vec<Jwk>, InvalidToken> {
        let (found, stale) = jwks.held(kid, alg);
        if !found.is_empty() {
            if stale && jwks.may_fetch() {
                let jwks = Arc::clone(jwks);
                tokio::spawn(async move { jwks.refresh(false).await });
            }
            return Ok(found);
        }
        let failure = jwks.refresh(true).await.err();
        let (found, _) = jwks.held(kid, alg);
        if !found.is_empty() {
            return Ok(found);
        }
        let fetched = jwks.lock().fetched.is_some();
        Err(match failure {
            Some(e) => InvalidToken::new(TokenProblem::KeysUnavailable, e),
            None if !fetched => InvalidToken::new(TokenProblem::KeysUnavailable, "the JWKS was not fetched yet"),
            None => {
                InvalidToken::new(TokenProblem::Malformed, format!("no key of the JWKS has kid {kid:?} for {alg:?}"))
            }
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The keys held for `kid` and `alg`, and whether the cache is past its age.
    fn held(&self, kid: Option<&str>, alg: Algorithm) -> (Vec<Jwk>, bool) {
        let cache = self.lock();
        let fits = |jwk: &&Jwk| jwk.common.key_algorithm.is_none_or(|a| format!("{a:?}") == format!("{alg:?}"));
        let found = match kid {
            Some(kid) => cache.keys.get(kid).filter(fits).cloned().into_iter().collect(),
            None => cache.keys.values().chain(&cache.unnamed).filter(fits).cloned().collect(),
        };
        (found, cache.fetched.is_none_or(|at| at.elapsed() >= self.max_age))
    }

    /// Whether the last fetch (or try) is at least `min_refresh` ago.
    fn may_fetch(&self) -> bool {
        self.lock().tried.is_none_or(|at| at.elapsed() >= self.min_refresh)
    }

    /// Fetches the JWKS unless one was fetched or tried within `min_refresh`, one fetch at a
    /// time: a caller that finds one running waits for it (`wait`) and uses its keys, or goes
    /// its way (a background refresh). The cache is locked only to read and store, never
    /// across the fetch; the keys held stay in use when it fails.
    async fn refresh(&self, wait: bool) -> Result<(), String> {
        let _fetching = if wait {
            self.fetching.lock().await
        } else {
            match self.fetching.try_lock() {
                Ok(guard) => guard,
                Err(_) => return Ok(()),
            }
        };
        {
            let mut cache = self.lock();
            if cache.tried.is_some_and(|at| at.elapsed() < self.min_refresh) {
                return Ok(());
            }
            cache.tried = Some(Instant::now());
        }
        match self.fetch().await {
            Ok(set) => {
                let (named, unnamed): (Vec<Jwk>, Vec<Jwk>) =
                    set.keys.into_iter().partition(|k| k.common.key_id.is_some());
                let mut cache = self.lock();
                cache.keys = named.into_iter().filter_map(|k| Some((k.common.key_id.clone()?, k))).collect();
                cache.unnamed = unnamed;
                cache.fetched = Some(Instant::now());
                tracing::debug!(target: "mcp_runtime::auth", url = %self.url, keys = cache.keys.len() + cache.unnamed.len(), "fetched the JWKS");
                Ok(())
            }
            Err(e) => {
                tracing::warn!(target: "mcp_runtime::auth", url = %self.url, error = %e, "cannot fetch the JWKS; keeping the keys already held");
                Err(e)
            }
        }
    }

    /// One GET of the JWKS, its body read as it arrives and refused past 1 MiB.
    async fn fetch(&self) -> Result<JwkSet, String> {
        let mut response = self.client.get(&self.url).send().await.map_err(|e| format!("request failed: {e}"))?;
        if !response.status().is_success() {
            return Err(format!("the JWKS endpoint answered {}", response.status()));
        }
        let too_large = || format!("the JWKS is larger than {} KiB", MAX_JWKS_BYTES / 1024);
        if response.content_length().is_some_and(|n| n > MAX_JWKS_BYTES as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading the JWKS failed: {e}"))? {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        // Keys of types this crate does not know are skipped, not fatal to the whole set.
        let raw: Value = serde_json::from_slice(&body).map_err(|e| format!("the JWKS is not JSON: {e}"))?;
        let keys = raw.get("keys").and_then(Value::as_array).ok_or("the JWKS has no `keys` list")?;
        let keys = keys.iter().filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok()).collect();
        Ok(JwkSet { keys })
    }
}

/// What a `jsonwebtoken` error means for the client.
fn refusal(e: &jsonwebtoken::errors::Error) -> InvalidToken {
    use jsonwebtoken::errors::ErrorKind;
    let kind = match e.kind() {
        ErrorKind::ExpiredSignature => TokenProblem::Expired,
        ErrorKind::ImmatureSignature => TokenProblem::NotYetValid,
        ErrorKind::InvalidSignature => TokenProblem::BadSignature,
        ErrorKind::InvalidIssuer | ErrorKind::InvalidAudience => TokenProblem::WrongAudienceOrIssuer,
        ErrorKind::MissingRequiredClaim(claim) if claim == "aud" || claim == "iss" => {
            TokenProblem::WrongAudienceOrIssuer
        }
        ErrorKind::InvalidToken
        | ErrorKind::Base64(_)
        | ErrorKind::Json(_)
        | ErrorKind::Utf8(_)
        | ErrorKind::InvalidAlgorithm => TokenProblem::Malformed,
        _ => TokenProblem::Other,
    };
    InvalidToken::new(kind, e.to_string())
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, InvalidToken>> {
        Box::pin(self.check(token))
    }
}
