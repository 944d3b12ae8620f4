//! The state store on Redis (feature `redis`): what several replicas of a server share.
//! `take` is one `GETDEL` (Redis ≥ 6.2), atomic on the server; `compare_and_set` is one Lua
//! script (`EVAL`), which Redis runs without interleaving any other command. A failed
//! command is never retried, since a `GETDEL` whose reply was lost may already have consumed
//! its key.
//!
//! The same Redis carries the bus's events between replicas ([`Link`]): one pub/sub channel
//! per namespace, a publisher task and a subscriber task per server, both started on first
//! use and ended with the server.
//!
//! `rediss://` (feature `redis-tls`) is rustls, with the system's roots or a given CA.
//!
//! On a Redis Cluster (feature `redis-cluster`), every command goes to the master of its
//! key's slot. A key of a handler's scope, `mcp:<namespace>:<tenant>:<rest>`, is stored as
//! `{mcp:<namespace>:<tenant>:}d<rest>` and listed in the sorted set
//! `{mcp:<namespace>:<tenant>:}i` (member `<rest>`, score its expiry): the hash tag keeps a
//! scope's keys and its index on one slot, so each write changes both in one script, and
//! `list` reads one index instead of a `SCAN`, which would reach one node only. Other keys
//! (tasks, rate limits) are stored as they are, spread over the cluster. The bus uses sharded
//! pub/sub (`SPUBLISH`, `SSUBSCRIBE` over RESP3), which stays on the channel's shard.

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

/// A [`StateStore`] on a Redis server, through one reconnecting, multiplexed connection, or
/// on a Redis Cluster (feature `redis-cluster`, [`RedisStore::open_cluster`]).
/// Connects on first use: a server starts while Redis is down, fails the calls that need it
/// with a retryable `state_store_unavailable`, and recovers when Redis returns. Every
/// command has at most 3 s, connecting included.
pub struct RedisStore {
    target: Target,
    /// `host:port` (never the password), for errors and logs; a cluster's nodes, by commas.
    address: String,
    connection: tokio::sync::OnceCell<Connection>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("address", &self.address).finish_non_exhaustive()
    }
}

/// Where a store's commands go. (One per store and per bus link: the size of a client does
/// not matter.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
enum Target {
    Single(redis::Client),
    #[cfg(feature = "redis-cluster")]
    Cluster(Arc<Cluster>),
}

/// A Redis Cluster: the nodes to learn it from, and the TLS settings for them.
#[cfg(feature = "redis-cluster")]
struct Cluster {
    nodes: Vec<redis::ConnectionInfo>,
    #[cfg(feature = "redis-tls")]
    certificates: Option<redis::TlsCertificates>,
}

#[cfg(feature = "redis-cluster")]
impl Cluster {
    /// A client with this module's timeouts and no retry (see the module's doc), except that
    /// the client follows a slot's redirection.
    fn builder(&self) -> redis::cluster::ClusterClientBuilder {
        let builder = redis::cluster::ClusterClientBuilder::new(self.nodes.clone())
            .connection_timeout(Duration::from_secs(1))
            .response_timeout(Duration::from_secs(2))
            .retries(0);
        #[cfg(feature = "redis-tls")]
        if let Some(certificates) = &self.certificates {
            return builder.certs(certificates.clone());
        }
        builder
    }
}

/// One multiplexed connection to a Redis, or one to every master of a cluster.
#[derive(Clone)]
enum Connection {
    Single(ConnectionManager),
    #[cfg(feature = "redis-cluster")]
    Cluster(redis::cluster_async::ClusterConnection),
}

impl Connection {
    async fn query<T: redis::FromRedisValue>(&mut self, command: &redis::Cmd) -> redis::RedisResult<T> {
        match self {
            Connection::Single(manager) => command.query_async(manager).await,
            #[cfg(feature = "redis-cluster")]
            Connection::Cluster(cluster) => command.query_async(cluster).await,
        }
    }
}

impl Target {
    /// A connection: at once for one Redis (it connects on first use), after learning the
    /// slots for a cluster.
    #[cfg_attr(not(feature = "redis-cluster"), allow(clippy::unused_async))]
    async fn connect(&self) -> redis::RedisResult<Connection> {
        match self {
            Target::Single(client) => {
                ConnectionManager::new_lazy_with_config(client.clone(), manager_config()).map(Connection::Single)
            }
            #[cfg(feature = "redis-cluster")]
            Target::Cluster(cluster) => {
                Ok(Connection::Cluster(cluster.builder().build()?.get_async_connection().await?))
            }
        }
    }

    fn is_cluster(&self) -> bool {
        !matches!(self, Target::Single(_))
    }
}

/// What `rediss://` connections trust and present (feature `redis-tls`); give it to
/// [`RedisStore::with_tls`]. Without it, a `rediss://` URL checks the server against the
/// system's roots and presents no certificate.
#[cfg(feature = "redis-tls")]
#[derive(Clone, Default)]
pub struct RedisTls {
    ca: Option<Vec<u8>>,
    client: Option<(Vec<u8>, Vec<u8>)>,
}

#[cfg(feature = "redis-tls")]
impl std::fmt::Debug for RedisTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTls")
            .field("ca", &self.ca.as_ref().map(|_| "<PEM>"))
            .field("client_certificate", &self.client.is_some())
            .finish()
    }
}

#[cfg(feature = "redis-tls")]
impl RedisTls {
    /// The system's roots, no client certificate.
    pub fn new() -> RedisTls {
        RedisTls::default()
    }

    /// Trusts the CA certificates of this PEM text (a private CA) instead of the system's
    /// roots. Default: the system's roots.
    #[must_use]
    pub fn ca_pem(mut self, pem: impl Into<Vec<u8>>) -> RedisTls {
        self.ca = Some(pem.into());
        self
    }

    /// Presents this certificate chain and private key (PEM) to a Redis that asks for a
    /// client certificate (`tls-auth-clients yes`). Default: none.
    #[must_use]
    pub fn client_certificate(mut self, chain_pem: impl Into<Vec<u8>>, key_pem: impl Into<Vec<u8>>) -> RedisTls {
        self.client = Some((chain_pem.into(), key_pem.into()));
        self
    }

    fn certificates(&self) -> Result<redis::TlsCertificates, StoreError> {
        if let Some(ca) = &self.ca
            && !ca.windows(27).any(|w| w == b"-----BEGIN CERTIFICATE-----")
        {
            return Err(StoreError::new("redis", "the CA given for `rediss://` holds no PEM certificate"));
        }
        Ok(redis::TlsCertificates {
            client_tls: self
                .client
                .as_ref()
                .map(|(chain, key)| redis::ClientTlsConfig { client_cert: chain.clone(), client_key: key.clone() }),
            root_cert: self.ca.clone(),
        })
    }
}

impl RedisStore {
    /// A store on the Redis at `url` (`redis://[user:password@]host[:port][/db]`, or
    /// `rediss://…` with feature `redis-tls`), or, with feature `redis-cluster`, on the
    /// Redis Cluster of the node URLs `url` lists, separated by commas (see
    /// [`RedisStore::open_cluster`]). Only parses the URL: nothing is connected until the
    /// first command.
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        if url.contains(',') {
            #[cfg(feature = "redis-cluster")]
            return RedisStore::open_cluster(&url.split(',').map(str::trim).collect::<Vec<_>>());
            #[cfg(not(feature = "redis-cluster"))]
            return Err(StoreError::new(
                "redis",
                "several Redis URLs (separated by commas) name a Redis Cluster: enable feature `redis-cluster` of mcp-runtime",
            ));
        }
        let client = redis::Client::open(url).map_err(|e| not_a_url(url, &e))?;
        let address = client.get_connection_info().addr().to_string();
        Ok(RedisStore::new(Target::Single(client), address))
    }

    /// A store on the Redis Cluster that `nodes` (`redis://…` or `rediss://…` URLs, one or
    /// more of its masters) belong to; the client learns the other nodes from them. Only
    /// parses the URLs: nothing is connected until the first command.
    #[cfg(feature = "redis-cluster")]
    pub fn open_cluster<U: AsRef<str>>(nodes: &[U]) -> Result<RedisStore, StoreError> {
        use redis::IntoConnectionInfo as _;
        let nodes = nodes
            .iter()
            .map(|url| url.as_ref().into_connection_info().map_err(|e| not_a_url(url.as_ref(), &e)))
            .collect::<Result<Vec<_>, _>>()?;
        if nodes.is_empty() {
            return Err(StoreError::new("redis", "a Redis Cluster needs the URL of at least one of its nodes"));
        }
        let address = nodes.iter().map(|n| n.addr().to_string()).collect::<Vec<_>>().join(",");
        let cluster = Cluster {
            nodes,
            #[cfg(feature = "redis-tls")]
            certificates: None,
        };
        cluster.builder().build().map_err(|e| StoreError::new("redis", format!("{address}: {}", e.kind_text())))?;
        Ok(RedisStore::new(Target::Cluster(Arc::new(cluster)), address))
    }

    /// This store with `rediss://` connections that trust and present what `tls` says (a
    /// private CA, a client certificate). Fails for a store whose URL is not `rediss://`,
    /// and for certificates or a key that do not parse.
    #[cfg(feature = "redis-tls")]
    pub fn with_tls(self, tls: &RedisTls) -> Result<RedisStore, StoreError> {
        let certificates = tls.certificates()?;
        let failed = |e: &redis::RedisError| StoreError::new("redis", format!("{}: {}", self.address, e.kind_text()));
        let target = match &self.target {
            Target::Single(client) => {
                if !matches!(client.get_connection_info().addr(), redis::ConnectionAddr::TcpTls { .. }) {
                    return Err(StoreError::new(
                        "redis",
                        format!("{}: TLS settings need a `rediss://` URL", self.address),
                    ));
                }
                Target::Single(
                    redis::Client::build_with_tls(client.get_connection_info().clone(), certificates)
                        .map_err(|e| failed(&e))?,
                )
            }
            #[cfg(feature = "redis-cluster")]
            Target::Cluster(cluster) => {
                let cluster = Cluster { nodes: cluster.nodes.clone(), certificates: Some(certificates) };
                cluster.builder().build().map_err(|e| failed(&e))?;
                Target::Cluster(Arc::new(cluster))
            }
        };
        Ok(RedisStore::new(target, self.address))
    }

    fn new(target: Target, address: String) -> RedisStore {
        RedisStore { target, address, connection: tokio::sync::OnceCell::new() }
    }

    async fn connection(&self) -> Result<Connection, StoreError> {
        let connection = self
            .connection
            .get_or_try_init(|| async { self.target.connect().await.map_err(|e| self.failed(&e)) })
            .await?;
        Ok(connection.clone())
    }

    /// Where this store's server links its bus (see [`Link`]).
    pub(crate) fn link_to(&self) -> LinkTo {
        LinkTo { target: self.target.clone(), address: self.address.clone() }
    }

    fn failed(&self, error: &redis::RedisError) -> StoreError {
        StoreError::new("redis", format!("{}: {}", self.address, error.kind_text()))
    }

    /// Runs one command within [`COMMAND_TIMEOUT`].
    async fn run<T: redis::FromRedisValue>(&self, command: redis::Cmd) -> Result<T, StoreError> {
        let work = async {
            let mut connection = self.connection().await?;
            connection.query::<T>(&command).await.map_err(|e| self.failed(&e))
        };
        tokio::time::timeout(COMMAND_TIMEOUT, work).await.map_err(|_| {
            StoreError::new("redis", format!("{}: no answer within {} s", self.address, COMMAND_TIMEOUT.as_secs()))
        })?
    }

    /// Where `key` is kept: as it is, or, on a cluster, in its scope's group.
    fn place<'k>(&self, key: &'k str) -> Place<'k> {
        match group(key) {
            Some(end) if self.target.is_cluster() => Place::Grouped {
                data: format!("{{{}}}d{}", &key[..end], &key[end..]),
                index: format!("{{{}}}i", &key[..end]),
                member: &key[end..],
            },
            _ => Place::Plain(key),
        }
    }
}

/// A key's names on the server.
enum Place<'k> {
    /// The key itself (one Redis, or a key of no scope on a cluster).
    Plain(&'k str),
    /// On a cluster: the hash-tagged name, the scope's index, and the key's member there.
    Grouped { data: String, index: String, member: &'k str },
}

impl Place<'_> {
    /// `script` run on this key (`KEYS[1]`, and on a cluster the index as `KEYS[2]`) with
    /// `args`, then the member as its last argument.
    fn eval(&self, script: &Script, args: impl FnOnce(&mut redis::Cmd)) -> redis::Cmd {
        let mut command = redis::cmd("EVAL");
        match self {
            Place::Plain(key) => {
                command.arg(script.plain).arg(1).arg(*key);
            }
            Place::Grouped { data, index, .. } => {
                command.arg(script.indexed).arg(2).arg(data).arg(index);
            }
        }
        args(&mut command);
        if let Place::Grouped { member, .. } = self {
            command.arg(*member);
        }
        command
    }

    fn name(&self) -> &str {
        match self {
            Place::Plain(key) => key,
            Place::Grouped { data, .. } => data,
        }
    }
}

/// The length of `key`'s scope, `mcp:<namespace>:<tenant>:` (the prefix of every key of a
/// handler's `ctx.state()`; `:` never occurs inside the namespace or the tenant): the group
/// a cluster keeps on one slot. `None` for a key of no scope.
fn group(key: &str) -> Option<usize> {
    if !key.starts_with("mcp:") {
        return None;
    }
    key.match_indices(':').nth(2).map(|(at, _)| at + 1)
}

fn not_a_url(url: &str, error: &redis::RedisError) -> StoreError {
    if url.starts_with("rediss://") && cfg!(not(feature = "redis-tls")) {
        return StoreError::new(
            "redis",
            format!("`{}`: `rediss://` needs feature `redis-tls` of mcp-runtime", redacted(url)),
        );
    }
    StoreError::new("redis", format!("`{}` is not a Redis URL: {}", redacted(url), error.kind_text()))
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
        // An I/O error's text says why a connection failed (refused, a certificate that
        // does not verify); it holds no command and no URL.
        match (self.detail(), std::error::Error::source(self)) {
            (Some(detail), _) => format!("{:?}: {detail}", self.kind()),
            (None, Some(source)) => format!("{:?}: {source}", self.kind()),
            (None, None) => format!("{:?}", self.kind()),
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

/// `ttl` in whole milliseconds, at least 1 (`PX 0` is an error, not "expire at once"); 0
/// for [`NO_TTL`].
fn millis(ttl: Duration) -> u64 {
    if ttl == NO_TTL { 0 } else { u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1) }
}

impl StateStore for RedisStore {
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<String>, StoreError>> {
        Box::pin(async move { self.run(redis::cmd("GET").arg(self.place(key).name()).clone()).await })
    }

    fn set<'a>(&'a self, key: &'a str, value: String, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        let command = match self.place(key) {
            Place::Plain(key) if ttl == NO_TTL => redis::cmd("SET").arg(key).arg(value).clone(),
            Place::Plain(key) => redis::cmd("SET").arg(key).arg(value).arg("PX").arg(millis(ttl)).clone(),
            grouped @ Place::Grouped { .. } => grouped.eval(&SET, |c| {
                c.arg(value).arg(millis(ttl));
            }),
        };
        Box::pin(async move { self.run::<redis::Value>(command).await.map(|_| ()) })
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let command = match self.place(key) {
            Place::Plain(key) => redis::cmd("DEL").arg(key).clone(),
            grouped @ Place::Grouped { .. } => grouped.eval(&DELETE, |_| {}),
        };
        Box::pin(async move { Ok(self.run::<u64>(command).await? > 0) })
    }

    fn list<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        Box::pin(async move {
            if self.target.is_cluster() {
                return self.list_group(prefix).await;
            }
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
        let command = match self.place(key) {
            Place::Plain(key) => redis::cmd("GETDEL").arg(key).clone(),
            grouped @ Place::Grouped { .. } => grouped.eval(&TAKE, |_| {}),
        };
        Box::pin(self.run(command))
    }

    fn compare_and_set<'a>(
        &'a self,
        key: &'a str,
        expected: Option<&'a str>,
        value: String,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let command = self.place(key).eval(&COMPARE_AND_SET, |c| {
            c.arg(if expected.is_some() { "1" } else { "0" }).arg(expected.unwrap_or("")).arg(value).arg(millis(ttl));
        });
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
        let command = self.place(key).eval(&TAKE_RATE, |c| {
            c.arg(interval).arg(burst.max(1));
        });
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
        let command = self.place(key).eval(&INCREMENT, |c| {
            c.arg(by);
        });
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

    /// `list` on a cluster: the live members of the prefix's scope's index that start with
    /// the rest of the prefix. A prefix shorter than a scope names no one index.
    async fn list_group(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let Place::Grouped { data, index, member } = self.place(prefix) else {
            return Err(StoreError::bad_value(
                "redis",
                format!(
                    "on a Redis Cluster, `list` answers for one scope: its prefix must start with `mcp:<namespace>:<tenant>:` (as every `ctx.state().list` does), and `{prefix}` does not"
                ),
            ));
        };
        let scope = &prefix[..prefix.len() - member.len()];
        let data = &data[..data.len() - member.len()];
        let command = redis::cmd("EVAL").arg(LIST).arg(1).arg(&index).arg(data).arg(member).clone();
        let mut keys: Vec<String> =
            self.run::<Vec<String>>(command).await?.into_iter().map(|rest| format!("{scope}{rest}")).collect();
        keys.sort();
        Ok(keys)
    }
}

/// A script that writes, as run on one Redis and on a cluster. Both start with
/// `index(ms)`: on a cluster (`KEYS[2]`, the scope's index, with the key's member as the last
/// `ARGV`), it records that the key lives `ms` more milliseconds (0: for ever) or, for
/// `nil`, that it is gone; drops the members whose time has passed; and lets the index
/// itself expire with its last member. On one Redis it does nothing, and is one line.
struct Script {
    plain: &'static str,
    indexed: &'static str,
}

macro_rules! with_index {
    ($body:literal) => {
        Script {
            plain: concat!("local function index(ms) end\n", $body),
            indexed: concat!(
                r"
local function index(ms)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
  if ms == nil then
    redis.call('ZREM', KEYS[2], ARGV[#ARGV])
  elseif ms == 0 then
    redis.call('ZADD', KEYS[2], 'inf', ARGV[#ARGV])
  else
    redis.call('ZADD', KEYS[2], now + ms, ARGV[#ARGV])
  end
  local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
  if #last == 0 then return end
  if last[2] == 'inf' then
    redis.call('PERSIST', KEYS[2])
  else
    redis.call('PEXPIREAT', KEYS[2], math.ceil(tonumber(last[2])) + 1)
  end
end
",
                $body
            ),
        }
    };
}

/// `set` on a cluster: `ARGV[1]` for `ARGV[2]` ms (0: for ever).
const SET: Script = with_index!(
    r"
if ARGV[2] == '0' then
  redis.call('SET', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
index(tonumber(ARGV[2]))
return 1
"
);

/// `delete` on a cluster: how many keys went (0 or 1).
const DELETE: Script = with_index!(
    r"
local gone = redis.call('DEL', KEYS[1])
index(nil)
return gone
"
);

/// `take` on a cluster: `GETDEL`, and the key leaves the index.
const TAKE: Script = with_index!(
    r"
local value = redis.call('GETDEL', KEYS[1])
index(nil)
return value
"
);

/// `list` on a cluster: of the index `KEYS[1]`, the members that start with `ARGV[2]` and
/// whose key (`ARGV[1]` and the member, on the index's slot) is live; members of keys gone
/// early (deleted elsewhere, evicted) are dropped.
const LIST: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local found = {}
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(member, 1, #ARGV[2]) == ARGV[2] then
    if redis.call('EXISTS', ARGV[1] .. member) == 1 then
      found[#found + 1] = member
    else
      redis.call('ZREM', KEYS[1], member)
    end
  end
end
return found
";

/// `INCRBY KEYS[1] ARGV[1]`: `{1, sum}`, or `{0, why}` for a value that is not an integer or a
/// sum past 64 bits. `INCRBY` keeps the key's time to live; a key it creates has none.
const INCREMENT: Script = with_index!(
    r"
local ok, sum = pcall(redis.call, 'INCRBY', KEYS[1], ARGV[1])
if not ok then return {0, tostring(sum.err or sum)} end
if #KEYS > 1 then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then index(left) else index(0) end
end
return {1, sum}
"
);

/// `compare_and_set` as one script: `ARGV[1]` says whether a value is expected (`ARGV[2]`);
/// the key is set to `ARGV[3]` for `ARGV[4]` ms (0: for ever) only when what it holds is that value (or
/// nothing, when none is expected). A missing key reads as `false` in Lua.
const COMPARE_AND_SET: Script = with_index!(
    r"
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
index(tonumber(ARGV[4]))
return 1
"
);

/// `take_rate` as one script, on the Redis server's clock (`TIME`, µs): GCRA with `KEYS[1]`
/// holding when the limit is next empty, a call `ARGV[1]` µs long, `ARGV[2]` at once. 0:
/// taken; otherwise the µs until a call fits. Lua's numbers are doubles, exact for µs since
/// the epoch (below 2^53) until the year 2255.
const TAKE_RATE: Script = with_index!(
    r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval = tonumber(ARGV[1])
local held = tonumber(redis.call('GET', KEYS[1]) or '') or now
if held < now then held = now end
local next = held + interval
local allowed_at = next - interval * tonumber(ARGV[2])
if allowed_at > now then return allowed_at - now end
local ms = math.max(1, math.ceil((next - now) / 1000))
redis.call('SET', KEYS[1], string.format('%.0f', next), 'PX', ms)
index(ms)
return 0
"
);

/// The Redis a server's bus links through, before the server (and so the channel) is known.
pub(crate) struct LinkTo {
    target: Target,
    address: String,
}

impl LinkTo {
    /// The link of the servers of `namespace`: they share the channel `mcp-events:<namespace>`.
    pub(crate) fn link(self, namespace: &str) -> Link {
        Link {
            target: self.target,
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
    target: Target,
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
                    self.target.clone(),
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
            self.target.clone(),
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

/// The publisher task: one `PUBLISH` (on a cluster, `SPUBLISH`) per event, in order, until
/// the link is dropped.
async fn publish(target: Target, address: Arc<str>, channel: Arc<str>, mut queue: mpsc::Receiver<String>) {
    let mut connection = None;
    let verb = if target.is_cluster() { "SPUBLISH" } else { "PUBLISH" };
    while let Some(payload) = queue.recv().await {
        if connection.is_none() {
            connection = match tokio::time::timeout(COMMAND_TIMEOUT, target.connect()).await {
                Ok(Ok(connection)) => Some(connection),
                Ok(Err(e)) => {
                    tracing::warn!(target: "mcp_runtime::bus", %address, error = %e.kind_text(), "cannot reach Redis to publish an event");
                    None
                }
                Err(_) => {
                    tracing::warn!(target: "mcp_runtime::bus", %address, "cannot reach Redis to publish an event: no answer");
                    None
                }
            };
        }
        let Some(connection) = connection.as_mut() else { continue };
        let command = redis::cmd(verb).arg(&*channel).arg(payload).clone();
        match tokio::time::timeout(COMMAND_TIMEOUT, connection.query::<i64>(&command)).await {
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
    target: Target,
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
        match tokio::time::timeout(COMMAND_TIMEOUT, subscribe(&target, &channel)).await {
            Ok(Ok(mut messages)) => {
                backoff = Duration::from_millis(250);
                warned = false;
                ready.send_replace(true);
                if was_up && let Some(local) = local.upgrade() {
                    // Whatever was published while the link was down is lost.
                    let _ = local.send(Event::Missed);
                }
                was_up = true;
                tracing::debug!(target: "mcp_runtime::bus", %address, %channel, "receiving the other replicas' events");
                loop {
                    match tokio::time::timeout(Duration::from_secs(30), messages.next()).await {
                        // Quiet: is anyone still listening?
                        Err(_) if local.upgrade().is_none() => return,
                        Err(_) => {}
                        Ok(None) => break,
                        Ok(Some(text)) => {
                            let Some(local) = local.upgrade() else { return };
                            let Some(text) = text else { continue };
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

/// The text of each message published on a channel (`None`: one that is not text), until
/// the connection is lost.
type Messages = std::pin::Pin<Box<dyn futures_util::Stream<Item = Option<String>> + Send>>;

/// A subscription to `channel`: `SUBSCRIBE` on one Redis; on a cluster, `SSUBSCRIBE` over
/// RESP3 on the master of the channel's slot, which ends when any of the client's
/// connections is lost (its nodes may have changed: subscribe again).
async fn subscribe(target: &Target, channel: &str) -> redis::RedisResult<Messages> {
    match target {
        Target::Single(client) => {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(channel).await?;
            Ok(Box::pin(pubsub.into_on_message().map(|m| m.get_payload::<String>().ok())))
        }
        #[cfg(feature = "redis-cluster")]
        Target::Cluster(cluster) => {
            let (pushes, received) = mpsc::unbounded_channel();
            let client = cluster.builder().use_protocol(redis::ProtocolVersion::RESP3).push_sender(pushes).build()?;
            let mut connection = client.get_async_connection().await?;
            connection.ssubscribe(channel).await?;
            // The connection lives as long as the stream.
            Ok(Box::pin(futures_util::stream::unfold(
                (received, connection),
                |(mut received, connection)| async move {
                    loop {
                        let push = received.recv().await?;
                        match push.kind {
                            redis::PushKind::SMessage => {
                                let text = push
                                    .data
                                    .into_iter()
                                    .nth(1)
                                    .and_then(|v| redis::from_redis_value::<String>(v).ok());
                                return Some((text, (received, connection)));
                            }
                            redis::PushKind::Disconnection => return None,
                            _ => {}
                        }
                    }
                },
            )))
        }
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
    fn a_cluster_keeps_together_the_keys_of_one_scope_only() {
        assert_eq!(group("mcp:ns:tenant:a:b"), Some("mcp:ns:tenant:".len()));
        assert_eq!(group("mcp:ns::next_id"), Some("mcp:ns::".len()));
        assert_eq!(group("mcp:ns%3Ax:t:"), Some("mcp:ns%3Ax:t:".len()));
        // Tasks, rate-limit budgets, and a prefix shorter than a scope: no group.
        assert_eq!(group("mcp-task:ns:0123"), None);
        assert_eq!(group("ns:rate:p:alice"), None);
        assert_eq!(group("mcp:ns:tenant"), None);
    }

    #[cfg(not(feature = "redis-tls"))]
    #[test]
    fn rediss_without_its_feature_names_the_feature() {
        let err = RedisStore::open("rediss://:hunter2@db:6380").unwrap_err();
        assert_eq!(
            err.to_string(),
            "state store (redis): `rediss://:***@db:6380`: `rediss://` needs feature `redis-tls` of mcp-runtime"
        );
    }

    #[cfg(not(feature = "redis-cluster"))]
    #[test]
    fn a_list_of_urls_without_the_cluster_feature_names_the_feature() {
        let err = RedisStore::open("redis://a:6379,redis://b:6379").unwrap_err();
        assert_eq!(
            err.to_string(),
            "state store (redis): several Redis URLs (separated by commas) name a Redis Cluster: enable feature `redis-cluster` of mcp-runtime"
        );
    }

    #[cfg(feature = "redis-tls")]
    #[test]
    fn tls_settings_need_a_rediss_url_and_a_ca_that_holds_a_certificate() {
        let plain = RedisStore::open("redis://127.0.0.1:6379").unwrap();
        let err = plain.with_tls(&RedisTls::new()).unwrap_err();
        assert_eq!(err.to_string(), "state store (redis): 127.0.0.1:6379: TLS settings need a `rediss://` URL");
        let tls = RedisStore::open("rediss://127.0.0.1:6379").unwrap();
        let err = tls.with_tls(&RedisTls::new().ca_pem("not a certificate")).unwrap_err();
        assert_eq!(err.to_string(), "state store (redis): the CA given for `rediss://` holds no PEM certificate");
    }

    #[test]
    fn scan_patterns_match_the_prefix_literally() {
        assert_eq!(pattern("mcp:a*b?[c]\\:"), "mcp:a\\*b\\?\\[c\\]\\\\:*");
    }
}
