//! Where tasks are kept: one record per task in the server's state store (the memory store
//! of one process, or Redis for every replica), under `mcp-task:<namespace>:<id>`, which no
//! handler's `ctx.state()` key can reach (those all start with `mcp:`). Every change is
//! read, changed, and written back with compare-and-set, again until no other writer came in
//! between; the key lives until the task's TTL and a minute more, then the store purges it.

use std::sync::Arc;
use std::time::Duration;

use crate::state::store::{StateStore, StoreError};
use crate::tasks::record::Record;

/// How long a task is kept past its TTL, `failed` if it had not ended, before it is purged.
pub(crate) const RETENTION: Duration = Duration::from_secs(60);

/// Writes one record may lose to concurrent writers before the change gives up.
const MAX_TRIES: usize = 32;

/// The tasks of one server in its state store.
pub(crate) struct Book {
    store: Arc<dyn StateStore>,
    /// `mcp-task:<namespace>:`.
    prefix: String,
}

impl Book {
    pub(crate) fn new(store: Arc<dyn StateStore>, namespace: &str) -> Book {
        let mut prefix = String::with_capacity(namespace.len() + 10);
        prefix.push_str("mcp-task:");
        for c in namespace.chars() {
            match c {
                ':' => prefix.push_str("%3A"),
                '%' => prefix.push_str("%25"),
                c => prefix.push(c),
            }
        }
        prefix.push(':');
        Book { store, prefix }
    }

    fn key(&self, id: &str) -> String {
        format!("{}{id}", self.prefix)
    }

    /// How long the store keeps `record` from `now`: until its TTL ends, and
    /// [`RETENTION`] more.
    fn keep(record: &Record, now: u64) -> Duration {
        let until = record.expires_at().saturating_add(u64::try_from(RETENTION.as_millis()).unwrap_or(u64::MAX));
        Duration::from_millis(until.saturating_sub(now).max(1))
    }

    /// Writes a new task: `false` when its id is taken already.
    pub(crate) async fn create(&self, record: &Record, now: u64) -> Result<bool, StoreError> {
        let text = serde_json::to_string(record).map_err(|e| StoreError::new("task", e.to_string()))?;
        self.store.compare_and_set(&self.key(&record.id), None, text, Self::keep(record, now)).await
    }

    /// The task, as stored; `None` when there is none (never created, or purged).
    pub(crate) async fn read(&self, id: &str) -> Result<Option<Record>, StoreError> {
        Ok(self.read_raw(id).await?.map(|(_, record)| record))
    }

    async fn read_raw(&self, id: &str) -> Result<Option<(String, Record)>, StoreError> {
        let Some(text) = self.store.get(&self.key(id)).await? else { return Ok(None) };
        let record = serde_json::from_str(&text)
            .map_err(|e| StoreError::new("task", format!("the record of task {id} does not read: {e}")))?;
        Ok(Some((text, record)))
    }

    /// Applies `change` (at `now()`) to the stored task until the write goes through: the
    /// task as it is afterwards (changed or not), or `None` when there is none.
    pub(crate) async fn change(
        &self,
        id: &str,
        now: impl Fn() -> u64,
        mut change: impl FnMut(&mut Record, u64) -> bool,
    ) -> Result<Option<Record>, StoreError> {
        for _ in 0..MAX_TRIES {
            let Some((text, mut record)) = self.read_raw(id).await? else { return Ok(None) };
            let at = now();
            if !change(&mut record, at) {
                return Ok(Some(record));
            }
            record.rev += 1;
            let next = serde_json::to_string(&record).map_err(|e| StoreError::new("task", e.to_string()))?;
            if self.store.compare_and_set(&self.key(id), Some(&text), next, Self::keep(&record, at)).await? {
                return Ok(Some(record));
            }
        }
        Err(StoreError::new("task", format!("task {id} changed under every one of {MAX_TRIES} writes; try again")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::request_id::RequestId;
    use crate::state::store::MemoryStore;
    use crate::tasks::record::{Seed, Status};

    fn seed(id: &str, now: u64) -> Record {
        Record::new(Seed {
            id: id.into(),
            owner: String::new(),
            tool: "t",
            request_id: RequestId::generate(),
            runner: "r",
            now,
            ttl_ms: 1000,
            poll_ms: 100,
            lease_ms: 500,
        })
    }

    #[tokio::test]
    async fn concurrent_changes_all_land() {
        let book = Arc::new(Book::new(Arc::new(MemoryStore::new()), "ns:x"));
        assert!(book.create(&seed("a", 0), 0).await.unwrap());
        assert!(!book.create(&seed("a", 0), 0).await.unwrap(), "an id is created once");
        let changes: Vec<_> = (0..50_u64)
            .map(|i| {
                let book = Arc::clone(&book);
                tokio::spawn(async move { book.change("a", || 1, |r, _| r.renew(1000 + i)).await.unwrap() })
            })
            .collect();
        for change in changes {
            change.await.unwrap();
        }
        let record = book.read("a").await.unwrap().unwrap();
        assert_eq!(record.lease_until, 1049, "the longest lease wins");
        assert!(record.rev >= 1);
        assert!(book.change("gone", || 1, Record::cancelled).await.unwrap().is_none());
        let cancelled = book.change("a", || 5, Record::request_cancel).await.unwrap().unwrap();
        assert!(cancelled.cancel);
        let ended = book.change("a", || 6, Record::cancelled).await.unwrap().unwrap();
        assert_eq!(ended.status, Status::Cancelled);
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_is_purged_a_minute_after_its_ttl() {
        let book = Book::new(Arc::new(MemoryStore::new()), "ns");
        assert!(book.create(&seed("a", 0), 0).await.unwrap());
        tokio::time::advance(Duration::from_millis(999) + RETENTION).await;
        assert!(book.read("a").await.unwrap().is_some(), "kept through its TTL and the retention");
        tokio::time::advance(Duration::from_millis(1)).await;
        assert!(book.read("a").await.unwrap().is_none(), "then purged");
    }
}
