//! `RateLimit`: a budget per caller. A call takes a token; a caller whose bucket is empty is
//! refused as `rate_limited` (`RateLimited`, -32003, retryable), told when a token will be
//! there (`data.retryAfterMs`, and the hint). In the process, a token bucket; with a state
//! store, the same budget as GCRA in the store (`StateStore::take_rate`), one round trip a
//! call, so that every replica counts against one budget.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_core::{ErrorCode, ToolError};

use crate::hooks::{CallerKey, Hook, HookRequest};
use crate::state::store::BoxFuture;

/// A hook that limits how often each caller may call: tools, resources and prompts, all
/// counted in one bucket per caller ([`HookRequest::caller`]: the principal, else the
/// client's address, else the stdio connection). Callers not seen for two refill windows are
/// forgotten (their bucket would be full), with no scan.
///
/// **Sessions count too** ([`Hook::counts_sessions`]): a 2025 `initialize` over HTTP takes a
/// token of the same bucket before a session is minted, so a client that opens a new session
/// for every call spends its budget on both. Refused, the `initialize` is answered with the
/// JSON-RPC error a rate-limited `resources/read` gets (`-32003`, or `-32023` under
/// [`rate_limited_code`](crate::ServerBuilder::rate_limited_code), with `data.retryAfterMs`),
/// and no session is minted. Over stdio a connection initializes once and is not counted.
///
/// **Shared by replicas**: when the server has a state store
/// ([`ServerBuilder::state_store`](crate::ServerBuilder::state_store), e.g. Redis), a
/// principal's or an address's budget is kept there (key `<namespace>:rate:<caller>`, one
/// atomic script per call on Redis, on the Redis server's clock), so N replicas let one
/// budget through, not N. A stdio connection, or a caller nothing identifies, is counted in
/// the process (such a key means nothing on another replica). While the store does not answer,
/// each replica falls back to its own bucket (logged), so an outage of the store does not
/// refuse every call. Without a state store, every replica counts on its own.
///
/// The bucket holds `burst` tokens (by default as many as the rate allows per period) and
/// refills continuously at the rate; a call takes one. A caller with an empty bucket gets
/// the envelope `rate_limited` (code `RateLimited`, -32003, `retryable: true`), whose hint
/// says when to retry and whose `data.retryAfterMs` says it in milliseconds.
///
/// ```
/// use mcp_runtime::prelude::*;
/// use mcp_runtime::RateLimit;
/// use std::time::Duration;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let server = Server::builder("search", "1.0.0")
///     // 5 calls a second per caller, in bursts of up to 10.
///     .hook(RateLimit::new(5, Duration::from_secs(1)).burst(10))
///     .build()?;
/// // The same, from configuration text: "5/s", "300/min", "1000/h".
/// let limit: RateLimit = "5/s".parse()?;
/// # let _ = (server, limit); Ok(()) }
/// ```
#[derive(Debug)]
pub struct RateLimit {
    /// Tokens added per second.
    rate: f64,
    burst: f64,
    /// How the limit reads in the refusal's message (`5 calls per second`).
    shown: String,
    buckets: Mutex<Buckets>,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// Callers tracked before full buckets are forgotten (a full bucket is the same as none).
/// The buckets of the callers seen in the current window and the one before. A bucket idle
/// for a whole window has refilled (a window is the time to refill from empty), so one not
/// seen for two windows is dropped with its generation, in one swap: no scan, and at most the
/// callers of two windows are kept.
#[derive(Debug, Default)]
struct Buckets {
    current: HashMap<CallerKey, Bucket>,
    previous: HashMap<CallerKey, Bucket>,
    /// When `current` began; `None` before the first call.
    since: Option<Instant>,
}

impl RateLimit {
    /// At most `calls` per `period` for each caller, in bursts of up to `calls`. `calls` of 0
    /// is read as 1, and a zero `period` as one second.
    pub fn new(calls: u32, period: Duration) -> Self {
        let calls = calls.max(1);
        let period = if period.is_zero() { Duration::from_secs(1) } else { period };
        let rate = f64::from(calls) / period.as_secs_f64();
        let unit = match period.as_secs() {
            1 if period.subsec_nanos() == 0 => "second".to_owned(),
            60 if period.subsec_nanos() == 0 => "minute".to_owned(),
            3600 if period.subsec_nanos() == 0 => "hour".to_owned(),
            _ => format!("{} ms", period.as_millis()),
        };
        let plural = if calls == 1 { "call" } else { "calls" };
        RateLimit {
            rate,
            burst: f64::from(calls),
            shown: format!("{calls} {plural} per {unit}"),
            buckets: Mutex::default(),
        }
    }

    /// At most `calls` per second for each caller.
    pub fn per_second(calls: u32) -> Self {
        RateLimit::new(calls, Duration::from_secs(1))
    }

    /// Lets a caller that has been quiet make up to `calls` calls at once (default: the
    /// calls of one period). At least 1.
    #[must_use]
    pub fn burst(mut self, calls: u32) -> Self {
        self.burst = f64::from(calls.max(1));
        self
    }

    /// How long an empty bucket takes to refill: a caller idle that long has a full one.
    fn window(&self) -> Duration {
        Duration::from_secs_f64(self.burst / self.rate)
    }

    /// The refusal of a call that finds no token, with how long until one is there.
    fn refusal(&self, wait: Duration) -> ToolError {
        // Whole milliseconds, rounded up: retrying after that many finds a token.
        let ms = u64::try_from(wait.as_micros().div_ceil(1000)).unwrap_or(u64::MAX).max(1);
        ToolError::new(ErrorCode::RateLimited, format!("Rate limit exceeded: at most {}.", self.shown))
            .reason("rate_limited")
            .retryable(true)
            .hint(format!("Wait {ms} ms, then retry the call."))
            .data(serde_json::json!({"retryAfterMs": ms}))
    }

    /// The key of `caller`'s budget in the shared store, for a caller every replica knows
    /// by the same name.
    fn shared_key(namespace: &str, caller: &CallerKey) -> Option<String> {
        match caller {
            CallerKey::Principal(who) => Some(format!("{namespace}:rate:p:{who}")),
            CallerKey::Address(address) => Some(format!("{namespace}:rate:a:{address}")),
            _ => None,
        }
    }

    /// The time one call's token takes to come back.
    fn interval(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.rate)
    }

    /// The burst, in whole calls.
    fn burst_calls(&self) -> u32 {
        // `burst` is set from a `u32` of at least 1.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let calls = self.burst as u32;
        calls
    }

    /// Takes a token of `caller`'s bucket at `now`: `Err(wait)` when there is none, with how
    /// long until there is.
    fn take(&self, caller: CallerKey, now: Instant) -> Result<(), Duration> {
        let window = self.window();
        let mut guard = self.buckets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let buckets = &mut *guard;
        let mut expired = None;
        match buckets.since {
            Some(since) if now.saturating_duration_since(since) < window => {}
            _ => {
                // A new generation: the one before the last goes (dropped after the lock).
                expired = Some(std::mem::replace(&mut buckets.previous, std::mem::take(&mut buckets.current)));
                buckets.since = Some(now);
            }
        }
        let moved = if buckets.current.contains_key(&caller) { None } else { buckets.previous.remove(&caller) };
        let bucket =
            buckets.current.entry(caller).or_insert_with(|| moved.unwrap_or(Bucket { tokens: self.burst, at: now }));
        let refilled = bucket.tokens + now.saturating_duration_since(bucket.at).as_secs_f64() * self.rate;
        bucket.tokens = refilled.min(self.burst);
        bucket.at = now;
        let taken = if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - bucket.tokens) / self.rate))
        };
        drop(guard);
        drop(expired);
        taken
    }
}

impl Hook for RateLimit {
    fn before(&self, request: &HookRequest<'_>) -> Result<(), ToolError> {
        let caller = request.caller();
        if let Some(stores) = request.shared
            && Self::shared_key(&stores.namespace, &caller).is_some()
        {
            return Ok(()); // counted in `before_shared`
        }
        self.take(caller, Instant::now()).map_err(|wait| self.refusal(wait))
    }

    fn before_shared<'a>(&'a self, request: &'a HookRequest<'a>) -> Option<BoxFuture<'a, Result<(), ToolError>>> {
        let stores = request.shared?;
        let caller = request.caller();
        let key = Self::shared_key(&stores.namespace, &caller)?;
        Some(Box::pin(async move {
            match stores.store.take_rate(&key, self.interval(), self.burst_calls()).await {
                Ok(None) => Ok(()),
                Ok(Some(wait)) => Err(self.refusal(wait)),
                Err(e) => {
                    tracing::warn!(target: "mcp_runtime::hooks", error = %e, "the rate limit's shared budget cannot be read; this replica counts on its own until the state store answers");
                    self.take(caller, Instant::now()).map_err(|wait| self.refusal(wait))
                }
            }
        }))
    }

    /// A new session spends a call of the caller's budget.
    fn counts_sessions(&self) -> bool {
        true
    }
}

impl std::str::FromStr for RateLimit {
    type Err = String;

    /// `<calls>/<unit>`: `5/s`, `300/min`, `1000/h` (also `second`, `minute`, `hour`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || format!("rate limit {text:?}: write <calls>/<unit>, as 5/s, 300/min or 1000/h");
        let (calls, unit) = text.trim().split_once('/').ok_or_else(bad)?;
        let calls: u32 = calls.trim().parse().map_err(|_| bad())?;
        let period = match unit.trim() {
            "s" | "sec" | "second" => Duration::from_secs(1),
            "m" | "min" | "minute" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return Err(bad()),
        };
        if calls == 0 {
            return Err(format!("rate limit {text:?}: allow at least 1 call"));
        }
        Ok(RateLimit::new(calls, period))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refuses_past_its_burst_and_refills_at_the_rate() {
        let limit = RateLimit::per_second(5);
        let t0 = Instant::now();
        let key = || CallerKey::Connection(1);
        for _ in 0..5 {
            assert!(limit.take(key(), t0).is_ok());
        }
        let wait = limit.take(key(), t0).expect_err("the sixth call in the same instant is refused");
        assert_eq!(wait, Duration::from_millis(200), "one token every 200 ms");
        // Another caller has its own bucket.
        assert!(limit.take(CallerKey::Connection(2), t0).is_ok());
        // After the wait, one more call.
        assert!(limit.take(key(), t0 + Duration::from_millis(200)).is_ok());
        assert!(limit.take(key(), t0 + Duration::from_millis(200)).is_err());
    }

    #[test]
    fn idle_callers_leave_with_their_generation_and_come_back_full() {
        let limit = RateLimit::per_second(5);
        let t0 = Instant::now();
        for n in 0..10_000 {
            assert!(limit.take(CallerKey::Connection(n), t0).is_ok());
        }
        assert!(limit.take(CallerKey::Connection(0), t0).is_ok(), "caller 0 has 3 tokens left");
        // Two windows (1 s each) later, the 10,000 are gone without a scan; caller 0 was seen
        // in between, so its bucket moved on with it and stays as it was, refilled.
        let t1 = t0 + Duration::from_millis(1500);
        assert!(limit.take(CallerKey::Connection(0), t1).is_ok());
        let t2 = t1 + Duration::from_secs(1);
        assert!(limit.take(CallerKey::Connection(10_001), t2).is_ok());
        let buckets = limit.buckets.lock().unwrap();
        assert_eq!(buckets.current.len() + buckets.previous.len(), 2, "only the callers of the last two windows");
        drop(buckets);
        // A bucket idle for a window is full: five calls at once, the sixth refused.
        let t3 = t2 + Duration::from_secs(5);
        for _ in 0..5 {
            assert!(limit.take(CallerKey::Connection(0), t3).is_ok());
        }
        assert!(limit.take(CallerKey::Connection(0), t3).is_err());
    }

    #[test]
    fn limits_are_read_from_text() {
        let limit: RateLimit = "300/min".parse().expect("parses");
        assert!((limit.rate - 5.0).abs() < 1e-9);
        assert_eq!(limit.shown, "300 calls per minute");
        assert!("5".parse::<RateLimit>().unwrap_err().contains("<calls>/<unit>"));
        assert!("0/s".parse::<RateLimit>().unwrap_err().contains("at least 1"));
    }
}
