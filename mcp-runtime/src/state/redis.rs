//! The state store on Redis (feature `redis`): what several replicas of a server share.
//! `take` is one `GETDEL` (Redis ≥ 6.2), atomic on the server; `compare_and_set` is one Lua
//! script (`EVAL`), which Redis runs without interleaving any other command. A failed
//! command is never retried, since a `GETDEL` whose reply was lost may already have consumed
//! its key.
//!
//! The same Redis carries the bus's events between replicas ([`Link`]): one pub/sub channel
//! per namespace, a publisher task and a subscriber task per server, both started on first
//! use and ended with the server.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::StreamExt as _;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::{broadcast, mpsc, watch};

use crate::state::bus::{Event, Link as BusLink};
use crate::state::store::{BoxFuture, NO_TTL, StateStore, StoreError};

/// How long one command may take, connecting included, before it fails as unavailable.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(3);

/// A [`StateStore`] on a Redis server, through one reconnecting, multiplexed connection.
/// Connects on first use: a server starts while Redis is down, fails the calls that need it
/// with a retryable `state_store_unavailable`, and recovers when Redis returns.
pub struct RedisStore {
    client: redis::Client,
    /// `host:port` (never the password), for errors and logs.
    address: String,
    manager: tokio::sync::OnceCell<ConnectionManager>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("address", &self.address).finish_non_exhaustive()
    }
}

impl RedisStore {
    /// A store on the Redis at `url` (`redis://[user:password@]host[:port][/db]`). Only parses
    /// the URL: nothing is connected until the first command.
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        let client = redis::Client::open(url).map_err(|e| {
            StoreError::new("redis", format!("`{}` is not a Redis URL: {}", redacted(url), e.kind_text()))
        })?;
        let address = client.get_connection_info().addr().to_string();
        Ok(RedisStore { client, address, manager: tokio::sync::OnceCell::new() })
    }

    async fn connection(&self) -> Result<ConnectionManager, StoreError> {
        let manager = self
            .manager
            .get_or_try_init(|| async {
                ConnectionManager::new_lazy_with_config(self.client.clone(), manager_config())
                    .map_err(|e| self.failed(&e))
            })
            .await?;
        Ok(manager.clone())
    }

    /// Where this store's server links its bus (see [`Link`]).
    pub(crate) fn link_to(&self) -> LinkTo {
        LinkTo { client: self.client.clone(), address: self.address.clone() }
    }

    fn failed(&self, error: &redis::RedisError) -> StoreError {
        StoreError::new("redis", format!("{}: {}", self.address, error.kind_text()))
    }

    /// Runs one command within [`COMMAND_TIMEOUT`].
    async fn run<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Result<T, StoreError> {
        let work = async {
            let mut connection = self.connection().await?;
            command.query_async::<T>(&mut connection).await.map_err(|e| self.failed(&e))
        };
        tokio::time::timeout(COMMAND_TIMEOUT, work).await.map_err(|_| {
            StoreError::new("redis", format!("{}: no answer within {} s", self.address, COMMAND_TIMEOUT.as_secs()))
        })?
    }
}

/// How every connection of this module reconnects and times out.
fn manager_config() -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(1)))
        .set_response_timeout(Some(Duration::from_secs(2)))
        .set_number_of_retries(1)
        .set_max_delay(Duration::from_millis(500))
}

/// A Redis error's kind and description, without the command's arguments or a URL.
trait KindText {
    fn kind_text(&self) -> String;
}

impl KindText for redis::RedisError {
    fn kind_text(&self) -> String {
        match self.detail() {
            Some(detail) => format!("{:?}: {detail}", self.kind()),
            None => format!("{:?}", self.kind()),
        }
    }
}

/// `url` with its password (if any) replaced by `***`.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else { return "<not a URL>".to_owned() };
    match rest.split_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            format!("{scheme}://{user}:***@{host}")
        }
        None => url.to_owned(),
    }
}

/// `prefix` with Redis glob characters escaped, then `*`: a `SCAN MATCH` pattern.
fn pattern(prefix: &str) -> String {
    let mut pattern = String::with_capacity(prefix.len() + 1);
    for c in prefix.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('*');
    pattern
}

impl StateStore for RedisStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(self.run(redis::cmd("GET").arg(key).clone()))
    }

    fn set<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        if ttl == NO_TTL {
            return Box::pin(self.run(redis::cmd("SET").arg(key).arg(value).clone()));
        }
        // At least one millisecond: `PX 0` is an error, not "expire at once".
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        Box::pin(self.run(redis::cmd("SET").arg(key).arg(value).arg("PX").arg(ms).clone()))
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move { Ok(self.run::<u64>(redis::cmd("DEL").arg(key).clone()).await? > 0) })
    }

    fn list<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            let pattern = pattern(prefix);
            let mut keys = Vec::new();
            let mut cursor: u64 = 0;
            loop {
                let command = redis::cmd("SCAN").arg(cursor).arg("MATCH").arg(&pattern).arg("COUNT").arg(1000).clone();
                let (next, batch): (u64, Vec<String>) = self.run(command).await?;
                keys.extend(batch);
                if next == 0 {
                    break;
                }
                cursor = next;
            }
            keys.sort();
            keys.dedup();
            Ok(keys)
        })
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(self.run(redis::cmd("GETDEL").arg(key).clone()))
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a str>,
        value: String,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        // 0: no expiry (`NO_TTL`).
        let ms = if ttl == NO_TTL { 0 } else { u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1) };
        let command = redis::cmd("EVAL")
            .arg(COMPARE_AND_SET)
            .arg(1)
            .arg(key)
            .arg(if expected.is_some() { "1" } else { "0" })
            .arg(expected.unwrap_or(""))
            .arg(value)
            .arg(ms)
            .clone();
        Box::pin(async move { Ok(self.run::<i64>(command).await? == 1) })
    }

    fn increment<'a>(&'a self, key: &'a str, by: i64) -> BoxFuture<'a, Result<i64, StoreError>> {
        Box::pin(self.increment_by(key, by))
    }

    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        interval: Duration,
        burst: u32,
    ) -> BoxFuture<'a, Result<Option<Duration>, StoreError>> {
        let interval = u64::try_from(interval.as_micros()).unwrap_or(u64::MAX).max(1);
        let command = redis::cmd("EVAL").arg(TAKE_RATE).arg(1).arg(key).arg(interval).arg(burst.max(1)).clone();
        Box::pin(async move {
            let wait = self.run::<u64>(command).await?;
            Ok((wait > 0).then(|| Duration::from_micros(wait)))
        })
    }
}

// `increment`: one `INCRBY`, in a script so that a value it cannot add to comes back as an
// answer (a bad value), not as a failed command (an unavailable store).
impl RedisStore {
    async fn increment_by(&self, key: &str, by: i64) -> Result<i64, StoreError> {
        let command = redis::cmd("EVAL").arg(INCREMENT).arg(1).arg(key).arg(by).clone();
        match self.run::<(i64, redis::Value)>(command).await? {
            (1, redis::Value::Int(sum)) => Ok(sum),
            (_, why) => {
                let why = match why {
                    redis::Value::BulkString(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    redis::Value::SimpleString(text) => text,
                    other => format!("{other:?}"),
                };
                Err(StoreError::bad_value("redis", format!("`{key}` cannot be incremented: {why}")))
            }
        }
    }
}

/// `INCRBY KEYS[1] ARGV[1]`: `{1, sum}`, or `{0, why}` for a value that is not an integer or a
/// sum past 64 bits. `INCRBY` keeps the key's time to live; a key it creates has none.
const INCREMENT: &str = r"
local ok, sum = pcall(redis.call, 'INCRBY', KEYS[1], ARGV[1])
if ok then return {1, sum} end
return {0, tostring(sum.err or sum)}
";

/// `compare_and_set` as one script: `ARGV[1]` says whether a value is expected (`ARGV[2]`);
/// the key is set to `ARGV[3]` for `ARGV[4]` ms (0: for ever) only when what it holds is that value (or
/// nothing, when none is expected). A missing key reads as `false` in Lua.
const COMPARE_AND_SET: &str = r"
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
if ARGV[4] == '0' then
  redis.call('SET', KEYS[1], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
end
return 1
";

/// `take_rate` as one script, on the Redis server's clock (`TIME`, µs): GCRA with `KEYS[1]`
/// holding when the limit is next empty, a call `ARGV[1]` µs long, `ARGV[2]` at once. 0:
/// taken; otherwise the µs until a call fits. Lua's numbers are doubles, exact for µs since
/// the epoch (below 2^53) until the year 2255.
const TAKE_RATE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local held = tonumber(redis.call('GET', KEYS[1]) or '') or now
if held < now then held = now end
local next = held + interval
local allowed_at = next - interval * tonumber(ARGV[2])
if allowed_at > now then return allowed_at - now end
redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', math.max(1, math.ceil((next - now) / 1000)))
return 0
";

/// The Redis a server's bus links through, before the server (and so the channel) is known.
pub(crate) struct LinkTo {
    client: redis::Client,
    address: String,
}

impl LinkTo {
    /// The link of the servers of `namespace`: they share the channel `mcp-events:<namespace>`.
    pub(crate) fn link(self, namespace: &str) -> Link {
        Link {
            client: self.client,
            address: Arc::from(self.address),
            channel: Arc::from(format!("mcp-events:{namespace}")),
            origin: Arc::from(crate::state::bus::origin()),
            publisher: std::sync::OnceLock::new(),
            receiving: AtomicBool::new(false),
            ready: watch::Sender::new(false),
        }
    }
}

/// Events published here that wait for the publisher task, at most.
const PUBLISH_QUEUE: usize = 1024;
/// How long a listen stream waits for the link before it acknowledges anyway.
const READY_WAIT: Duration = Duration::from_secs(2);

/// The bus's link to the other replicas: `PUBLISH` on the namespace's channel, and a
/// subscription to it whose messages (other than this process's own) go to the local
/// listeners. After the subscription was lost and came back, they get `Event::Missed`.
pub(crate) struct Link {
    client: redis::Client,
    address: Arc<str>,
    channel: Arc<str>,
    /// Tags this process's messages, whose echoes are dropped.
    origin: Arc<str>,
    publisher: std::sync::OnceLock<mpsc::Sender<String>>,
    receiving: AtomicBool,
    /// `true` while the subscription is up.
    ready: watch::Sender<bool>,
}

impl BusLink for Link {
    /// Sends `event` to the other replicas, in order, from a task of its own (started on the
    /// first event; ended with the link). Dropped, with a warning, when no runtime runs or
    /// the queue is full.
    fn publish(&self, event: &Event) {
        let sender = if let Some(sender) = self.publisher.get() {
            sender
        } else {
            let Ok(runtime) = tokio::runtime::Handle::try_current() else {
                tracing::warn!(target: "mcp_runtime::bus", ?event, "no async runtime runs here: the event stays in this process");
                return;
            };
            self.publisher.get_or_init(|| {
                let (sender, queue) = mpsc::channel(PUBLISH_QUEUE);
                runtime.spawn(publish(
                    self.client.clone(),
                    Arc::clone(&self.address),
                    Arc::clone(&self.channel),
                    queue,
                ));
                sender
            })
        };
        if sender.try_send(event.encode(&self.origin)).is_err() {
            tracing::warn!(target: "mcp_runtime::bus", ?event, "events come faster than Redis takes them: this one reaches only this process");
        }
    }

    /// Starts (once) the task that receives the other replicas' events into `local`.
    fn receive_into(&self, local: &broadcast::Sender<Event>) {
        if self.receiving.swap(true, Ordering::AcqRel) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.receiving.store(false, Ordering::Release);
            return;
        };
        runtime.spawn(receive(
            self.client.clone(),
            Arc::clone(&self.address),
            Arc::clone(&self.channel),
            Arc::clone(&self.origin),
            local.downgrade(),
            self.ready.clone(),
        ));
    }

    /// Resolves when the subscription is up, or after [`READY_WAIT`].
    fn ready(&self) -> BoxFuture<'_, ()> {
        let mut ready = self.ready.subscribe();
        Box::pin(async move {
            let _ = tokio::time::timeout(READY_WAIT, ready.wait_for(|up| *up)).await;
        })
    }
}

/// The publisher task: one `PUBLISH` per event, in order, until the link is dropped.
async fn publish(client: redis::Client, address: Arc<str>, channel: Arc<str>, mut queue: mpsc::Receiver<String>) {
    let mut connection = None;
    while let Some(payload) = queue.recv().await {
        if connection.is_none() {
            connection = ConnectionManager::new_lazy_with_config(client.clone(), manager_config())
                .map_err(|e| tracing::warn!(target: "mcp_runtime::bus", %address, error = %e.kind_text(), "cannot reach Redis to publish an event"))
                .ok();
        }
        let Some(manager) = connection.as_mut() else { continue };
        let command = redis::cmd("PUBLISH").arg(&*channel).arg(payload).clone();
        match tokio::time::timeout(COMMAND_TIMEOUT, command.query_async::<i64>(manager)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                tracing::warn!(target: "mcp_runtime::bus", %address, error = %e.kind_text(), "an event did not reach the other replicas");
            }
            Err(_) => {
                tracing::warn!(target: "mcp_runtime::bus", %address, "an event did not reach the other replicas: Redis did not answer");
            }
        }
    }
}

/// The subscriber task: subscribes, hands other replicas' events to the local listeners,
/// and subscribes again (backing off up to 5 s) when the connection is lost, until the bus
/// is dropped.
async fn receive(
    client: redis::Client,
    address: Arc<str>,
    channel: Arc<str>,
    origin: Arc<str>,
    local: broadcast::WeakSender<Event>,
    ready: watch::Sender<bool>,
) {
    let mut backoff = Duration::from_millis(250);
    let mut was_up = false;
    let mut warned = false;
    loop {
        if local.upgrade().is_none() {
            return;
        }
        let subscribed = async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(&*channel).await?;
            Ok::<_, redis::RedisError>(pubsub)
        };
        match tokio::time::timeout(COMMAND_TIMEOUT, subscribed).await {
            Ok(Ok(pubsub)) => {
                backoff = Duration::from_millis(250);
                warned = false;
                ready.send_replace(true);
                if was_up && let Some(local) = local.upgrade() {
                    // Whatever was published while the link was down is lost.
                    let _ = local.send(Event::Missed);
                }
                was_up = true;
                tracing::debug!(target: "mcp_runtime::bus", %address, %channel, "receiving the other replicas' events");
                let mut messages = pubsub.into_on_message();
                loop {
                    match tokio::time::timeout(Duration::from_secs(30), messages.next()).await {
                        // Quiet: is anyone still listening?
                        Err(_) if local.upgrade().is_none() => return,
                        Err(_) => {}
                        Ok(None) => break,
                        Ok(Some(message)) => {
                            let Some(local) = local.upgrade() else { return };
                            let Ok(text) = message.get_payload::<String>() else { continue };
                            match Event::decode(&text) {
                                Some((from, event)) if *from != *origin => {
                                    let _ = local.send(event);
                                }
                                Some(_) => {}
                                None => {
                                    tracing::debug!(target: "mcp_runtime::bus", %channel, "a message that is no event; ignored");
                                }
                            }
                        }
                    }
                }
                ready.send_replace(false);
                tracing::warn!(target: "mcp_runtime::bus", %address, "lost the connection that receives the other replicas' events; reconnecting");
            }
            failed => {
                let why = match failed {
                    Ok(Err(e)) => e.kind_text(),
                    _ => format!("no answer within {} s", COMMAND_TIMEOUT.as_secs()),
                };
                if !warned {
                    tracing::warn!(target: "mcp_runtime::bus", %address, error = %why, "cannot receive the other replicas' events; retrying");
                    warned = true;
                }
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(Duration::from_secs(5));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_an_error() {
        assert_eq!(redacted("redis://user:hunter2@db:6379/0"), "redis://user:***@db:6379/0");
        assert_eq!(redacted("redis://:hunter2@db"), "redis://:***@db");
        assert_eq!(redacted("redis://db:6379"), "redis://db:6379");
        let store = RedisStore::open("redis://:hunter2@127.0.0.1:1").unwrap();
        assert!(!format!("{store:?}").contains("hunter2"));
    }

    #[test]
    fn scan_patterns_match_the_prefix_literally() {
        assert_eq!(pattern("mcp:a*b?[c]\\:"), "mcp:a\\*b\\?\\[c\\]\\\\:*");
    }
}
