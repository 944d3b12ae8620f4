//! What handlers keep between calls: a store of JSON values by key, each with a time to live,
//! with an atomic `take` and an atomic `compare_and_set`; in memory by default, in Redis
//! (feature `redis`) when several replicas must share it. Handlers reach it through [`Ctx::state`](crate::Ctx::state), scoped
//! to the server's namespace and the caller's tenant.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use indexmap::IndexMap;
use mcp_core::ToolError;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::state::seal::Sealer;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A store of text values by key, each with a time to live. Keys arrive already scoped
/// (namespace and tenant); values are JSON text.
///
/// `take` must be atomic: among any number of concurrent callers for one live key, exactly one
/// gets the value (Redis: one `GETDEL`). So must `compare_and_set`: among concurrent writers
/// that expect the same value, exactly one succeeds (Redis: one script). An expired key is
/// absent for every method.
///
/// `compare_and_set` is what records that several replicas change (the tasks of
/// `#[tool(task = ..)]` tools) are written with: read, change, write back only if nobody
/// wrote in between, else read again. `increment` must be atomic too (Redis: one `INCRBY`);
/// its provided implementation is a `compare_and_set` loop.
///
/// A `ttl` of [`Duration::MAX`] ([`NO_TTL`]) asks for a value that never expires.
///
/// The store a server registers can stay the app's too: `StateStore` is implemented for
/// `Arc<S>` and `Box<S>` (so `Box<dyn StateStore>`), so give the builder an `Arc::clone`.
pub trait StateStore: Send + Sync + 'static {
    /// The value of `key`, if it is live.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
    /// Sets `key` to `value` for `ttl`.
    fn set<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>>;
    /// Removes `key`: whether it was live.
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// The live keys that start with `prefix`, sorted.
    fn list<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>>;
    /// Removes `key` and gives its value, atomically: of concurrent takers, one wins.
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>>;
    /// Sets `key` to `value` for `ttl` if its live value is `expected` (`None`: if it is
    /// absent or expired), atomically: whether it was set. Of concurrent writers expecting the
    /// same value, exactly one sees `true`.
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a str>,
        value: String,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
    /// Adds `by` to the integer `key` holds (absent or expired: 0) atomically, and gives the
    /// sum: of concurrent increments, each sees a different one. The key keeps its time to
    /// live; one it creates never expires. A value that is not an integer, or a sum past
    /// `i64`, fails with [`StoreError::bad_value`].
    ///
    /// Provided: a [`compare_and_set`](Self::compare_and_set) loop, which gives a key it
    /// changes no time to live. Stores with an atomic increment override it.
    fn increment<'a>(&'a self, key: &'a str, by: i64) -> BoxFuture<'a, Result<i64, StoreError>> {
        Box::pin(async move {
            loop {
                let current = self.get(key).await?;
                let sum = add(key, current.as_deref(), by)?;
                if self.compare_and_set(key, current.as_deref(), sum.to_string(), NO_TTL).await? {
                    return Ok(sum);
                }
            }
        })
    }

    /// Whether the store answers, for a readiness probe. By default a read of a key nobody
    /// writes; a backend may answer it more cheaply.
    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move { self.get("mcp-runtime:ping").await.map(|_| ()) })
    }

    /// Takes one of the calls a rate limit allows under `key`: up to `burst` at once, one
    /// more every `interval` (GCRA: `key` holds when the limit is next empty, in microseconds
    /// since the Unix epoch, and expires then). `Ok(None)`: taken; `Ok(Some(wait))`: refused,
    /// and a call is allowed after `wait`. Atomic, so that replicas sharing the store share
    /// the limit.
    ///
    /// Provided: a [`compare_and_set`](Self::compare_and_set) loop on this process's clock.
    /// `RedisStore` runs it as one script on the Redis server's clock (one round trip, and
    /// replicas whose clocks differ still agree).
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        interval: Duration,
        burst: u32,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        Box::pin(async move {
            let interval = micros(interval);
            loop {
                let now =
                    micros(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default());
                let current = self.get(key).await?;
                let held = current.as_deref().and_then(|text| text.trim().parse::<u64>().ok());
                match gcra(now, held, interval, burst) {
                    Err(wait) => return Ok(Some(Duration::from_micros(wait))),
                    Ok(next) => {
                        let ttl = Duration::from_micros(next.saturating_sub(now).max(1));
                        if self.compare_and_set(key, current.as_deref(), next.to_string(), ttl).await? {
                            return Ok(None);
                        }
                    }
                }
            }
        })
    }
}

/// `duration` in whole microseconds, at least 1.
fn micros(duration: Duration) -> u64 {
    u64::try_from(duration.as_micros()).unwrap_or(u64::MAX).max(1)
}

/// One step of GCRA at `now` (µs): with the limit next empty at `held` (none: now), a call
/// `interval` µs long among `burst`: `Ok` with the new time the limit is next empty, or
/// `Err` with how many µs until a call fits. The same arithmetic as `RedisStore`'s script.
pub(crate) fn gcra(now: u64, held: Option<u64>, interval: u64, burst: u32) -> Result<u64, u64> {
    let next = held.unwrap_or(now).max(now).saturating_add(interval);
    let allowed_at = next.saturating_sub(interval.saturating_mul(u64::from(burst.max(1))));
    if allowed_at > now { Err(allowed_at - now) } else { Ok(next) }
}

/// The `ttl` of a value that never expires.
pub const NO_TTL: Duration = Duration::MAX;

/// `by` added to the integer `current` holds (none: 0), or why not.
fn add(key: &str, current: Option<&str>, by: i64) -> Result<i64, StoreError> {
    let now = match current {
        None => 0,
        Some(text) => text
            .trim()
            .parse::<i64>()
            .map_err(|_| StoreError::bad_value("value", format!("`{key}` does not hold an integer")))?,
    };
    now.checked_add(by).ok_or_else(|| StoreError::bad_value("value", format!("`{key}` plus {by} overflows i64")))
}

// A store the app keeps a handle to, or one chosen at run time.
impl<S: StateStore + ?Sized> StateStore for Arc<S> {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        (**self).get(key)
    }
    fn set<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).set(key, value, ttl)
    }
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).delete(key)
    }
    fn list<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        (**self).list(prefix)
    }
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        (**self).take(key)
    }
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a str>,
        value: String,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).compare_and_set(key, expected, value, ttl)
    }
    fn increment<'a>(&'a self, key: &'a str, by: i64) -> BoxFuture<'a, Result<i64, StoreError>> {
        (**self).increment(key, by)
    }
    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).ping()
    }
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        interval: Duration,
        burst: u32,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        (**self).take_rate(key, interval, burst)
    }
}

impl<S: StateStore + ?Sized> StateStore for Box<S> {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        (**self).get(key)
    }
    fn set<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).set(key, value, ttl)
    }
    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).delete(key)
    }
    fn list<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        (**self).list(prefix)
    }
    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        (**self).take(key)
    }
    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a str>,
        value: String,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).compare_and_set(key, expected, value, ttl)
    }
    fn increment<'a>(&'a self, key: &'a str, by: i64) -> BoxFuture<'a, Result<i64, StoreError>> {
        (**self).increment(key, by)
    }
    fn ping(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).ping()
    }
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        interval: Duration,
        burst: u32,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        (**self).take_rate(key, interval, burst)
    }
}

/// A state store that did not answer: unreachable, timed out, or refused the command. The
/// text names the backend and what failed, never a password.
#[derive(Debug, Clone, thiserror::Error)]
#[error("state store ({backend}): {detail}")]
pub struct StoreError {
    backend: &'static str,
    detail: String,
    /// The store answered: the stored value does not allow the operation.
    bad_value: bool,
}

impl StoreError {
    /// A failure of `backend` ("redis", "memory", or a custom store's name).
    pub fn new(backend: &'static str, detail: impl Into<String>) -> Self {
        StoreError { backend, detail: detail.into(), bad_value: false }
    }

    /// The store answered, but the value a key holds does not allow the operation (an
    /// increment of a value that is not an integer, or past `i64`): the server's bug, not an
    /// outage, so not worth a retry.
    pub fn bad_value(backend: &'static str, detail: impl Into<String>) -> Self {
        StoreError { backend, detail: detail.into(), bad_value: true }
    }

    /// Whether this is a [`bad_value`](Self::bad_value) failure.
    pub fn is_bad_value(&self) -> bool {
        self.bad_value
    }
}

/// The in-memory store: one process's, gone when it ends. The default.
///
/// Every write (`set`, `compare_and_set`, `increment`, `delete`, `take`) also looks at the
/// next two entries in turn and drops the expired ones, so that keys nobody
/// reads again do not stay: an expired entry is gone within one pass of those writes over
/// the map, at a bounded cost per write.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    map: IndexMap<String, Entry>,
    /// The next entry the sweep looks at.
    cursor: usize,
}

/// Entries each write looks at for expiry: more than the one entry a write can add, so that
/// the sweep keeps up with any rate of writes.
const SWEEP_PER_WRITE: usize = 2;

impl Entries {
    /// Drops the expired ones among the next [`SWEEP_PER_WRITE`] entries.
    fn sweep(&mut self, now: tokio::time::Instant) {
        for _ in 0..SWEEP_PER_WRITE {
            if self.cursor >= self.map.len() {
                self.cursor = 0;
            }
            match self.map.get_index(self.cursor) {
                None => return,
                // The last entry moves into its place, and is looked at next.
                Some((_, entry)) if entry.expires <= now => drop(self.map.swap_remove_index(self.cursor)),
                Some(_) => self.cursor += 1,
            }
        }
    }
}

#[derive(Debug)]
struct Entry {
    value: String,
    expires: tokio::time::Instant,
}

impl Entry {
    fn live(&self) -> bool {
        self.expires > tokio::time::Instant::now()
    }
}

/// When a value written at `now` for `ttl` expires: past the end of time, in a century.
fn expiry(now: tokio::time::Instant, ttl: Duration) -> tokio::time::Instant {
    now.checked_add(ttl).unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 86_400))
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        MemoryStore::default()
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The map with the next entries swept, for a write.
    fn for_write(&self, now: tokio::time::Instant) -> std::sync::MutexGuard<'_, Entries> {
        let mut entries = self.entries();
        entries.sweep(now);
        entries
    }
}

impl StateStore for MemoryStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        let value = self.entries().map.get(key).filter(|e| e.live()).map(|e| e.value.clone());
        Box::pin(std::future::ready(Ok(value)))
    }

    fn set<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        let now = tokio::time::Instant::now();
        self.for_write(now).map.insert(key.to_owned(), Entry { value, expires: expiry(now, ttl) });
        Box::pin(std::future::ready(Ok(())))
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let now = tokio::time::Instant::now();
        let removed = self.for_write(now).map.swap_remove(key).is_some_and(|e| e.expires > now);
        Box::pin(std::future::ready(Ok(removed)))
    }

    fn list<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        let mut keys: Vec<String> = self
            .entries()
            .map
            .iter()
            .filter(|(k, e)| k.starts_with(prefix) && e.live())
            .map(|(k, _)| k.clone())
            .collect();
        keys.sort();
        Box::pin(std::future::ready(Ok(keys)))
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        // One lock around the removal: of concurrent takers, exactly one finds the entry.
        let now = tokio::time::Instant::now();
        let value = self.for_write(now).map.swap_remove(key).filter(|e| e.expires > now).map(|e| e.value);
        Box::pin(std::future::ready(Ok(value)))
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a str>,
        value: String,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        // One lock around the comparison and the write.
        let now = tokio::time::Instant::now();
        let mut entries = self.for_write(now);
        let current = entries.map.get(key).filter(|e| e.expires > now).map(|e| e.value.as_str());
        let set = current == expected;
        if set {
            entries.map.insert(key.to_owned(), Entry { value, expires: expiry(now, ttl) });
        }
        Box::pin(std::future::ready(Ok(set)))
    }

    fn increment<'a>(&'a self, key: &'a str, by: i64) -> BoxFuture<'a, Result<i64, StoreError>> {
        // One lock around the read and the write; the key keeps its expiry.
        let now = tokio::time::Instant::now();
        let mut entries = self.for_write(now);
        let live = entries.map.get_mut(key).filter(|e| e.expires > now);
        let sum = add(key, live.as_ref().map(|e| e.value.as_str()), by);
        if let Ok(sum) = sum {
            if let Some(entry) = live {
                entry.value = sum.to_string();
            } else {
                entries.map.insert(key.to_owned(), Entry { value: sum.to_string(), expires: expiry(now, NO_TTL) });
            }
        }
        Box::pin(std::future::ready(sum))
    }
}

/// Unredeemed consent records one caller may hold unless the server says otherwise.
pub(crate) const DEFAULT_CONSENTS_PER_CALLER: usize = 64;

/// Shared values registered with `ServerBuilder::app_data`, by type.
pub(crate) type AppData = HashMap<std::any::TypeId, Box<dyn std::any::Any + Send + Sync>>;

/// What every handler of a server can reach beyond its call: the typed app data, the state
/// store, and the sealer of `requestState`.
pub(crate) struct Stores {
    pub(crate) app_data: AppData,
    pub(crate) store: Arc<dyn StateStore>,
    /// Scopes every key this server's handlers use (default: the server's name).
    pub(crate) namespace: String,
    pub(crate) sealer: Sealer,
    /// Unredeemed consent records one caller may hold; asking past it lets the oldest go.
    pub(crate) consents_per_caller: usize,
    /// The store was given (`ServerBuilder::state_store`), so replicas may share it: hooks
    /// that count keep their counters there.
    pub(crate) shared: bool,
    /// Held while a caller's list of consent records changes, so that concurrent asks of
    /// this process do not lose one another's records from it.
    pub(crate) consent_lock: tokio::sync::Mutex<()>,
}

impl Stores {
    pub(crate) fn new(app_data: AppData, store: Arc<dyn StateStore>, namespace: String, sealer: Sealer) -> Self {
        Stores {
            app_data,
            store,
            namespace,
            sealer,
            consents_per_caller: DEFAULT_CONSENTS_PER_CALLER,
            shared: false,
            consent_lock: tokio::sync::Mutex::new(()),
        }
    }
}

impl Default for Stores {
    /// A test context's: an empty memory store and a random sealing key.
    fn default() -> Self {
        Stores::new(
            AppData::new(),
            Arc::new(MemoryStore::new()),
            "test".to_owned(),
            Sealer::ephemeral(crate::state::seal::DEFAULT_TTL),
        )
    }
}

/// The state store as one handler sees it: keys scoped to the server's namespace and the
/// caller's tenant, values any serde type (stored as JSON). Get it with
/// [`Ctx::state`](crate::Ctx::state).
///
/// Every method fails the same way when the store does not answer: a retryable
/// `ServiceUnavailable` (-32000) failure, reason `state_store_unavailable`, whose hint says to
/// retry; the log names the store's error, the client never sees it.
pub struct State<'a> {
    store: &'a dyn StateStore,
    scope: String,
}

/// Escapes `:` and `%` in one part of a scope, so that no namespace or tenant can reach into
/// another's keys.
fn scope_part(part: &str, into: &mut String) {
    for c in part.chars() {
        match c {
            ':' => into.push_str("%3A"),
            '%' => into.push_str("%25"),
            c => into.push(c),
        }
    }
}

impl<'a> State<'a> {
    pub(crate) fn new(stores: &'a Stores, tenant: &str) -> State<'a> {
        let mut scope = String::with_capacity(stores.namespace.len() + tenant.len() + 8);
        scope.push_str("mcp:");
        scope_part(&stores.namespace, &mut scope);
        scope.push(':');
        scope_part(tenant, &mut scope);
        scope.push(':');
        State { store: &*stores.store, scope }
    }

    fn key(&self, key: &str) -> String {
        format!("{}{key}", self.scope)
    }

    /// The value of `key`, if it is live.
    pub async fn get<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, ToolError> {
        match self.store.get(&self.key(key)).await.map_err(unavailable)? {
            Some(text) => read(key, &text).map(Some),
            None => Ok(None),
        }
    }

    /// Sets `key` to `value` for `ttl`: a [`Duration`], or `None` for a value that never
    /// expires (kept until deleted).
    pub async fn set<T: Serialize + ?Sized>(
        &self,
        key: &str,
        value: &T,
        ttl: impl Into<Option<Duration>>,
    ) -> Result<(), ToolError> {
        let text = write(value)?;
        self.store.set(&self.key(key), text, ttl.into().unwrap_or(NO_TTL)).await.map_err(unavailable)
    }

    /// Sets `key` to `value` (for `ttl`, or `None`: for ever) only if it holds no live value,
    /// atomically: of concurrent callers on any replica sharing the store, exactly one gets
    /// `true`. For unique names, first-come claims, one-time setup.
    ///
    /// ```
    /// # use mcp_runtime::prelude::*;
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), ToolError> {
    /// # let ctx: Ctx = mcp_runtime::testing::TestCtx::new().build();
    /// let state = ctx.state();
    /// assert!(state.set_if_absent("title:Launch", &"ISS-1", None).await?);
    /// assert!(!state.set_if_absent("title:Launch", &"ISS-2", None).await?); // taken
    /// assert_eq!(state.get::<String>("title:Launch").await?.as_deref(), Some("ISS-1"));
    /// # Ok(()) }
    /// ```
    pub async fn set_if_absent<T: Serialize + ?Sized>(
        &self,
        key: &str,
        value: &T,
        ttl: impl Into<Option<Duration>>,
    ) -> Result<bool, ToolError> {
        let text = write(value)?;
        let ttl = ttl.into().unwrap_or(NO_TTL);
        self.store.compare_and_set(&self.key(key), None, text, ttl).await.map_err(unavailable)
    }

    /// Sets `key` to `value` (for `ttl`, or `None`: for ever) only if its live value is
    /// `expected` (`None`: if it holds none), atomically: of concurrent writers expecting the
    /// same value, exactly one gets `true`; the others read again and retry. Values compare
    /// as their JSON text, so store types that serialize the same way each time (structs,
    /// `BTreeMap`; not a `HashMap`).
    ///
    /// ```
    /// # use mcp_runtime::prelude::*;
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), ToolError> {
    /// # let ctx: Ctx = mcp_runtime::testing::TestCtx::new().build();
    /// let state = ctx.state();
    /// state.set("status", &"open", None).await?;
    /// assert!(state.compare_and_set("status", Some(&"open"), &"closed", None).await?);
    /// assert!(!state.compare_and_set("status", Some(&"open"), &"reopened", None).await?); // changed meanwhile
    /// # Ok(()) }
    /// ```
    pub async fn compare_and_set<T: Serialize + ?Sized>(
        &self,
        key: &str,
        expected: Option<&T>,
        value: &T,
        ttl: impl Into<Option<Duration>>,
    ) -> Result<bool, ToolError> {
        let expected = expected.map(write).transpose()?;
        let text = write(value)?;
        let ttl = ttl.into().unwrap_or(NO_TTL);
        self.store.compare_and_set(&self.key(key), expected.as_deref(), text, ttl).await.map_err(unavailable)
    }

    /// Adds `by` to the integer `key` holds (absent: 0) and gives the sum, atomically: of
    /// concurrent increments on any replica sharing the store, each gets a different sum (one
    /// `INCRBY` on Redis). The key keeps its time to live; one it creates never expires. Read
    /// it with `get::<i64>`. A key that holds something else is the server's bug: a
    /// non-retryable `state_unreadable` failure.
    ///
    /// ```
    /// # use mcp_runtime::prelude::*;
    /// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), ToolError> {
    /// # let ctx: Ctx = mcp_runtime::testing::TestCtx::new().build();
    /// let state = ctx.state();
    /// assert_eq!(state.increment("next_id", 1).await?, 1);
    /// assert_eq!(state.increment("next_id", 1).await?, 2);
    /// assert_eq!(state.get::<i64>("next_id").await?, Some(2));
    /// # Ok(()) }
    /// ```
    pub async fn increment(&self, key: &str, by: i64) -> Result<i64, ToolError> {
        self.store.increment(&self.key(key), by).await.map_err(|e| {
            if e.is_bad_value() {
                ToolError::internal("The server could not count: a stored value is not a number.")
                    .reason("state_unreadable")
                    .retryable(false)
                    .hint("Do not retry; report the request id to the server operator.")
                    .with_source(e)
            } else {
                unavailable(e)
            }
        })
    }

    /// Removes `key`: whether it was live.
    pub async fn delete(&self, key: &str) -> Result<bool, ToolError> {
        self.store.delete(&self.key(key)).await.map_err(unavailable)
    }

    /// The live keys that start with `prefix` (without the scope), sorted.
    pub async fn list(&self, prefix: &str) -> Result<Vec<String>, ToolError> {
        let keys = self.store.list(&self.key(prefix)).await.map_err(unavailable)?;
        Ok(keys.into_iter().filter_map(|k| k.strip_prefix(&self.scope).map(str::to_owned)).collect())
    }

    /// Removes `key` and gives its value, atomically: among any number of concurrent callers
    /// (on any replica sharing the store), exactly one gets `Some`.
    pub async fn take<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, ToolError> {
        match self.store.take(&self.key(key)).await.map_err(unavailable)? {
            Some(text) => read(key, &text).map(Some),
            None => Ok(None),
        }
    }
}

/// The failure of a store that did not answer.
pub(crate) fn unavailable(error: StoreError) -> ToolError {
    ToolError::service_unavailable("The server's state store is unavailable.")
        .reason("state_store_unavailable")
        .retryable(true)
        .hint("Retry the call in a few seconds; if it keeps failing, report the request id to the server operator.")
        .with_source(error)
}

/// `value` as the JSON text a store keeps.
fn write<T: Serialize + ?Sized>(value: &T) -> Result<String, ToolError> {
    serde_json::to_string(value).map_err(|e| {
        ToolError::internal("The server could not store a value.")
            .reason("state_unreadable")
            .retryable(false)
            .with_source(e)
    })
}

/// A stored value read as `T`: one that does not read is the server's bug (another type was
/// stored under the key).
fn read<T: DeserializeOwned>(key: &str, text: &str) -> Result<T, ToolError> {
    serde_json::from_str(text).map_err(|e| {
        ToolError::internal("The server could not read a value it stored.")
            .reason("state_unreadable")
            .retryable(false)
            .hint("Do not retry; report the request id to the server operator.")
            .with_source(StoreError::new(
                "value",
                format!("`{key}` does not read as {}: {e}", std::any::type_name::<T>()),
            ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn of_a_thousand_concurrent_takes_of_one_key_exactly_one_wins() {
        let store = Arc::new(MemoryStore::new());
        store.set("k", "\"v\"".into(), Duration::from_secs(60)).await.unwrap();
        let rt_tasks: Vec<_> = (0..1000)
            .map(|_| {
                let store = Arc::clone(&store);
                tokio::spawn(async move { store.take("k").await.unwrap() })
            })
            .collect();
        let mut won = 0;
        for task in rt_tasks {
            won += usize::from(task.await.unwrap().is_some());
        }
        assert_eq!(won, 1);
        assert_eq!(store.take("k").await.unwrap(), None, "a second take finds nothing");
    }

    #[tokio::test]
    async fn of_concurrent_writers_expecting_one_value_exactly_one_sets_it() {
        let store = Arc::new(MemoryStore::new());
        let ttl = Duration::from_secs(60);
        assert!(store.compare_and_set("k", None, "v0".into(), ttl).await.unwrap(), "absent: set");
        assert!(!store.compare_and_set("k", None, "again".into(), ttl).await.unwrap(), "present: not set");
        let writers: Vec<_> = (0..1000)
            .map(|i| {
                let store = Arc::clone(&store);
                tokio::spawn(async move {
                    store.compare_and_set("k", Some("v0"), format!("v{}", i + 1), ttl).await.unwrap()
                })
            })
            .collect();
        let mut won = 0;
        for writer in writers {
            won += usize::from(writer.await.unwrap());
        }
        assert_eq!(won, 1);
        let now = store.get("k").await.unwrap().unwrap();
        assert_ne!(now, "v0");
        assert!(!store.compare_and_set("k", Some("v0"), "late".into(), ttl).await.unwrap(), "stale: not set");
    }

    #[tokio::test(start_paused = true)]
    async fn expired_keys_are_absent_for_every_method() {
        let store = MemoryStore::new();
        store.set("a", "1".into(), Duration::from_secs(10)).await.unwrap();
        store.set("b", "2".into(), Duration::from_secs(30)).await.unwrap();
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(store.get("a").await.unwrap(), None);
        assert_eq!(store.take("a").await.unwrap(), None);
        assert!(!store.delete("a").await.unwrap());
        assert_eq!(store.list("").await.unwrap(), vec!["b".to_owned()]);
        assert_eq!(store.get("b").await.unwrap().as_deref(), Some("2"));
        // An expired key is absent for compare-and-set too: it does not match its old value,
        // and `None` finds it gone.
        store.set("c", "3".into(), Duration::from_secs(10)).await.unwrap();
        tokio::time::advance(Duration::from_secs(10)).await;
        assert!(!store.compare_and_set("c", Some("3"), "4".into(), Duration::from_secs(10)).await.unwrap());
        assert!(store.compare_and_set("c", None, "4".into(), Duration::from_secs(10)).await.unwrap());
        assert_eq!(store.get("c").await.unwrap().as_deref(), Some("4"));
    }

    #[tokio::test(start_paused = true)]
    async fn expired_entries_go_on_later_writes_without_a_read_of_them() {
        // Task records are written with compare-and-set only, and read no more once their
        // task is done: each later write drops some of the expired ones.
        let store = MemoryStore::new();
        for i in 0..100 {
            assert!(
                store.compare_and_set(&format!("task:{i}"), None, "{}".into(), Duration::from_secs(10)).await.unwrap()
            );
        }
        tokio::time::advance(Duration::from_secs(10)).await;
        assert!(store.compare_and_set("other", None, "0".into(), NO_TTL).await.unwrap());
        for i in 0..50 {
            let (now, next) = (i.to_string(), (i + 1).to_string());
            assert!(store.compare_and_set("other", Some(&now), next, NO_TTL).await.unwrap());
        }
        assert_eq!(store.entries().map.len(), 1, "the 100 expired entries are gone, the live one stays");
        assert_eq!(store.get("other").await.unwrap().as_deref(), Some("50"));
    }

    #[tokio::test]
    async fn tenants_and_namespaces_cannot_reach_each_other() {
        let stores = Stores::default();
        let a = State::new(&stores, "tenant-a");
        let b = State::new(&stores, "tenant-b");
        // A tenant whose name tries to reach into another's keys.
        let sly = State::new(&stores, "tenant-a:x");
        a.set("x:secret", &1, Duration::from_secs(60)).await.unwrap();
        assert_eq!(b.take::<i32>("x:secret").await.unwrap(), None);
        assert_eq!(sly.get::<i32>("secret").await.unwrap(), None);
        assert_eq!(b.list("").await.unwrap(), Vec::<String>::new());
        assert_eq!(a.list("x:").await.unwrap(), vec!["x:secret".to_owned()]);
        assert_eq!(a.take::<i32>("x:secret").await.unwrap(), Some(1));
    }

    #[tokio::test]
    async fn a_value_of_another_type_is_the_servers_bug_not_the_callers() {
        let stores = Stores::default();
        let state = State::new(&stores, "");
        state.set("n", "text", Duration::from_secs(60)).await.unwrap();
        let err = state.get::<u32>("n").await.unwrap_err();
        assert_eq!(err.reason_str(), Some("state_unreadable"));
        assert_eq!(err.is_retryable(), Some(false));
    }
}
