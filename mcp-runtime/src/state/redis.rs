//! The state store on Redis (feature `redis`): what several replicas of a server share.
//! `take` is one `GETDEL` (Redis ≥ 6.2), atomic on the server; `compare_and_set` is one Lua
//! script (`EVAL`), which Redis runs without interleaving any other command. A failed
//! command is never retried, since a `GETDEL` whose reply was lost may already have consumed
//! its key.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use crate::state::store::{BoxFuture, StateStore, StoreError};

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
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(Duration::from_secs(1)))
                    .set_response_timeout(Some(Duration::from_secs(2)))
                    .set_number_of_retries(1)
                    .set_max_delay(Duration::from_millis(500));
                ConnectionManager::new_lazy_with_config(self.client.clone(), config).map_err(|e| self.failed(&e))
            })
            .await?;
        Ok(manager.clone())
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
        let ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
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
}

/// `compare_and_set` as one script: `ARGV[1]` says whether a value is expected (`ARGV[2]`);
/// the key is set to `ARGV[3]` for `ARGV[4]` ms only when what it holds is that value (or
/// nothing, when none is expected). A missing key reads as `false` in Lua.
const COMPARE_AND_SET: &str = r"
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current ~= ARGV[2] then return 0 end
elseif current then
  return 0
end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4])
return 1
";

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
