//! Tasks: the `io.modelcontextprotocol/tasks` extension (SEP-2663), durable across replicas.
//!
//! A call of a `#[tool(task = ..)]` tool from a 2026-07-28 client that declared the
//! extension may go on as a task (`features::tools::task` decides and runs it). This layer holds
//! what every replica shares: the record of each task and how it changes (`record`), where
//! records live (`book`: the server's state store), and [`Tasks`], which answers
//! `tasks/get`, `tasks/update` and `tasks/cancel` on any replica, tells the bus of every
//! change, and wakes the runner of a task when another replica changed it.

pub(crate) mod book;
pub(crate) mod record;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use mcp_core::ToolError;
use serde_json::{Map, Value, json};
use tokio::sync::Notify;

use crate::auth::principal::Principal;
use crate::context::ctx::Notices;
use crate::rpc::envelope::{Origin, Site, display_name, fail_rpc};
use crate::rpc::era::Client;
use crate::rpc::jsonrpc::RpcError;
use crate::rpc::request_id::RequestId;
use crate::state::bus::Event;
use crate::state::store::{StateStore, StoreError};
use crate::tasks::book::Book;
use crate::tasks::record::Record;

/// The extension's identifier, in capabilities.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How this server's tasks behave (`ServerBuilder::task_*`).
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// An `optional` task tool's call that has not finished within this goes on as a task.
    pub(crate) after: Option<Duration>,
    /// How long a task lives from its creation (`ttlMs`).
    pub(crate) ttl: Duration,
    /// The polling interval clients are asked to keep (`pollIntervalMs`).
    pub(crate) poll: Duration,
    /// How long the replica running a task vouches for it between renewals.
    pub(crate) lease: Duration,
    /// Tasks this replica runs at once, in all and for one caller.
    pub(crate) max_running: usize,
    pub(crate) max_running_per_caller: usize,
}

/// One hour: long enough for a report or an import, short enough not to keep results forever.
pub(crate) const DEFAULT_TTL: Duration = Duration::from_secs(3600);
pub(crate) const DEFAULT_POLL: Duration = Duration::from_secs(1);
pub(crate) const DEFAULT_LEASE: Duration = Duration::from_secs(15);
pub(crate) const DEFAULT_MAX_RUNNING: usize = 1024;
pub(crate) const DEFAULT_MAX_RUNNING_PER_CALLER: usize = 64;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            after: None,
            ttl: DEFAULT_TTL,
            poll: DEFAULT_POLL,
            lease: DEFAULT_LEASE,
            max_running: DEFAULT_MAX_RUNNING,
            max_running_per_caller: DEFAULT_MAX_RUNNING_PER_CALLER,
        }
    }
}

/// Milliseconds of a duration, saturated.
pub(crate) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Now, in milliseconds since the Unix epoch (replicas compare leases on this clock: keep
/// their clocks in sync well within a lease).
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, millis)
}

/// A task id: 128 bits from the OS's cryptographic source, as 32 hex digits.
pub(crate) fn new_id() -> String {
    let mut bytes = [0_u8; 16];
    // The OS source does not fail on any platform this runs on; guessable task ids would be
    // worse than stopping.
    getrandom::fill(&mut bytes).expect("the OS random source failed");
    bytes.iter().fold(String::with_capacity(32), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

/// Whether this request's client declared the extension (`_meta` client capabilities,
/// `extensions["io.modelcontextprotocol/tasks"]`). Only a 2026-07-28 request can: a 2025
/// session's `initialize` never enables it.
pub(crate) fn declared(client: &Client) -> bool {
    matches!(client, Client::Modern(_))
        && client
            .capabilities()
            .and_then(|c| c.get("extensions"))
            .and_then(|e| e.get(EXTENSION))
            .is_some_and(Value::is_object)
}

/// `-32021` for a client that did not declare the extension, with what to declare.
pub(crate) fn missing_capability(what: &str) -> RpcError {
    RpcError {
        code: -32021,
        message: format!(
            "Missing required client capability: {what} needs the tasks extension; declare \"{EXTENSION}\": {{}} under `extensions` in `_meta` clientCapabilities"
        ),
        data: Some(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}})),
    }
}

/// A `tasks/*` request, read.
pub(crate) struct TaskRequest {
    id: String,
    method: Method,
}

enum Method {
    Get,
    Update(Map<String, Value>),
    Cancel,
}

/// The longest task id read (ours are 32 characters).
const MAX_ID_CHARS: usize = 256;

/// Reads `tasks/get`, `tasks/update` or `tasks/cancel`: `-32601` on a server without task
/// tools, `-32021` for a client that did not declare the extension, `-32602` for params of
/// the wrong shape.
pub(crate) fn request(
    method: &str,
    client: &Client,
    served: bool,
    params: Option<&Value>,
) -> Result<TaskRequest, RpcError> {
    if !served {
        return Err(RpcError::method_not_found(method));
    }
    if !declared(client) {
        return Err(missing_capability(method));
    }
    let shape = || {
        let more = if method == "tasks/update" { ", inputResponses: {key: answer}" } else { "" };
        RpcError::invalid_params(format!("Invalid params: {method} needs params {{taskId: string{more}}}"))
    };
    let id = params.and_then(|p| p.get("taskId")).and_then(Value::as_str).ok_or_else(shape)?;
    if id.chars().count() > MAX_ID_CHARS {
        return Err(unknown(id));
    }
    let method = match method {
        "tasks/get" => Method::Get,
        "tasks/cancel" => Method::Cancel,
        _ => match params.and_then(|p| p.get("inputResponses")) {
            Some(Value::Object(responses)) => Method::Update(responses.clone()),
            _ => return Err(shape()),
        },
    };
    Ok(TaskRequest { id: id.to_owned(), method })
}

/// `-32602` for a task this caller cannot see: never created, another caller's, or purged.
/// One answer for all three, so that no caller learns another's task ids.
fn unknown(id: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "Invalid params: no task {:?} for this caller (it never existed, or expired and was purged); call the tool again",
        display_name(id)
    ))
}

/// The state store did not answer: `-32603`, retryable, in the envelope's terms.
pub(crate) fn unavailable(what: &str, error: StoreError) -> RpcError {
    let err = ToolError::service_unavailable("The server's state store is unavailable.")
        .reason("state_store_unavailable")
        .retryable(true)
        .hint("Retry in a few seconds; if it keeps failing, report the request id to the server operator.")
        .with_source(error);
    let site = Site::bare("task", what, crate::rpc::envelope::Drafts::default());
    fail_rpc(site, err, RequestId::generate(), Origin::Fault, Some(-32603))
}

/// Runners of this replica's tasks, woken when another request changed their record.
type Running = Mutex<HashMap<Arc<str>, Arc<Notify>>>;

/// The tasks this replica runs, in all and by caller (their owner binding).
#[derive(Default)]
struct Slots {
    total: usize,
    by_caller: HashMap<String, usize>,
}

/// A running task's place among [`Tasks::reserve`]'s slots, given back when dropped.
pub(crate) struct Slot {
    slots: Weak<Mutex<Slots>>,
    owner: String,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Some(slots) = self.slots.upgrade() else { return };
        let mut slots = slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.total = slots.total.saturating_sub(1);
        if let Some(n) = slots.by_caller.get_mut(&self.owner) {
            *n -= 1;
            if *n == 0 {
                slots.by_caller.remove(&self.owner);
            }
        }
    }
}

/// Why [`Tasks::reserve`] gave no slot.
pub(crate) enum Full {
    /// This replica runs `max_running` tasks.
    Replica(usize),
    /// This caller has `max_running_per_caller` tasks running here.
    Caller(usize),
}

/// The tasks of one server.
pub(crate) struct Tasks {
    pub(crate) book: Book,
    pub(crate) settings: Settings,
    notices: Arc<Notices>,
    /// This replica, in records and logs.
    pub(crate) replica: String,
    running: Arc<Running>,
    slots: Arc<Mutex<Slots>>,
    /// Started with the first runner: wakes runners on their task's events.
    pump: std::sync::Once,
}

impl Tasks {
    pub(crate) fn new(store: Arc<dyn StateStore>, namespace: &str, settings: Settings, notices: Arc<Notices>) -> Tasks {
        Tasks {
            book: Book::new(store, namespace),
            settings,
            notices,
            replica: new_id()[..12].to_owned(),
            running: Arc::default(),
            slots: Arc::default(),
            pump: std::sync::Once::new(),
        }
    }

    /// A slot for one more running task of `owner` (a principal's binding) on this replica,
    /// unless the replica or the caller is at its cap.
    pub(crate) fn reserve(&self, owner: &str) -> Result<Slot, Full> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if slots.total >= self.settings.max_running {
            return Err(Full::Replica(self.settings.max_running));
        }
        let mine = slots.by_caller.get(owner).copied().unwrap_or(0);
        if mine >= self.settings.max_running_per_caller {
            return Err(Full::Caller(self.settings.max_running_per_caller));
        }
        slots.total += 1;
        *slots.by_caller.entry(owner.to_owned()).or_default() += 1;
        Ok(Slot { slots: Arc::downgrade(&self.slots), owner: owner.to_owned() })
    }

    /// Tells every replica's listeners and runners that the task changed.
    pub(crate) fn changed(&self, id: &str) {
        self.notices.bus.publish(Event::Task(Arc::from(id)));
    }

    /// Registers the runner of task `id` on this replica: the returned wake-up fires when
    /// the task's record changes (here or on another replica). Unregistered when dropped.
    pub(crate) fn register(&self, id: &str) -> Registration {
        self.pump.call_once(|| {
            let mut events = self.notices.bus.subscribe();
            let running = Arc::downgrade(&self.running);
            tokio::spawn(async move {
                loop {
                    let event = crate::state::bus::recv(&mut events).await;
                    let Some(running) = running.upgrade() else { return };
                    let running = running.lock().unwrap_or_else(PoisonError::into_inner);
                    match event {
                        Some(Event::Task(id)) => {
                            if let Some(wake) = running.get(&id) {
                                wake.notify_one();
                            }
                        }
                        // Events were missed: every runner reads its record again.
                        Some(Event::Missed) => running.values().for_each(|w| w.notify_one()),
                        Some(_) => {}
                        None => return,
                    }
                }
            });
        });
        let id: Arc<str> = Arc::from(id);
        let wake = Arc::new(Notify::new());
        self.running.lock().unwrap_or_else(PoisonError::into_inner).insert(Arc::clone(&id), Arc::clone(&wake));
        Registration { id, wake, running: Arc::downgrade(&self.running) }
    }

    /// How many tasks this replica runs now.
    #[cfg(feature = "http")]
    pub(crate) fn running(&self) -> usize {
        self.running.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Releases every task this replica still runs as `failed`, retryable, reason
    /// `replica_shutdown` (the replica shuts down): no client waits for its lease to lapse.
    /// Their runners see the record ended and stop. How many were released.
    #[cfg(feature = "http")]
    pub(crate) async fn release_running(&self) -> usize {
        let ids: Vec<Arc<str>> = self.running.lock().unwrap_or_else(PoisonError::into_inner).keys().cloned().collect();
        let released = futures_util::future::join_all(ids.iter().map(|id| async move {
            let mut failed = false;
            let changed = self
                .book
                .change(id, now_ms, |r, at| {
                    let error = r.shut_down();
                    failed = r.fail(error, at);
                    failed
                })
                .await;
            match changed {
                Ok(Some(_)) if failed => {
                    self.changed(id);
                    true
                }
                Ok(_) => false,
                Err(e) => {
                    tracing::warn!(target: "mcp_runtime::tasks", task = %id, error = %e, "cannot release a task at shutdown; it fails once its lease lapses");
                    false
                }
            }
        }))
        .await;
        released.into_iter().filter(|r| *r).count()
    }

    /// Whether this replica runs task `id` (its runner is registered here).
    fn runs(&self, id: &str) -> bool {
        self.running.lock().unwrap_or_else(PoisonError::into_inner).contains_key(id)
    }

    /// Answers a `tasks/*` request of `principal` on this replica: the `DetailedTask` of
    /// `tasks/get`, an empty acknowledgement of `tasks/update` and `tasks/cancel`.
    pub(crate) async fn answer(
        &self,
        request: TaskRequest,
        principal: Option<&Principal>,
    ) -> Result<Map<String, Value>, RpcError> {
        let owner = crate::auth::principal::binding(principal);
        let TaskRequest { id, method } = request;
        let what = match method {
            Method::Get => "tasks/get",
            Method::Update(_) => "tasks/update",
            Method::Cancel => "tasks/cancel",
        };
        let mut announce = false;
        let runs_here = self.runs(&id);
        let found = self
            .book
            .change(&id, now_ms, |record, now| {
                if record.owner != owner {
                    return false;
                }
                // Past its TTL, failed; past its lease too, unless this replica runs it (a
                // lease lapses here only when the store stalled: its runner is alive).
                let settled = if runs_here { record.expire(now) } else { record.settle(now) };
                let changed = match &method {
                    Method::Get => false,
                    Method::Update(responses) => record.answer(responses.clone(), now),
                    Method::Cancel => record.request_cancel(now),
                };
                announce = settled || changed;
                announce
            })
            .await
            .map_err(|e| unavailable(what, e))?;
        let Some(record) = found.filter(|r| r.owner == owner) else { return Err(unknown(&id)) };
        if announce {
            self.changed(&id);
        }
        Ok(match method {
            Method::Get => record.detailed(),
            Method::Update(_) | Method::Cancel => Map::new(),
        })
    }

    /// Task `id` of `principal`: `None` when this caller has no such task.
    pub(crate) async fn find(&self, id: &str, principal: Option<&Principal>) -> Result<Option<Record>, StoreError> {
        let owner = crate::auth::principal::binding(principal);
        Ok(self.book.read(id).await?.filter(|r| r.owner == owner))
    }

    /// The `DetailedTask` of task `id` for `principal`, for a listen stream; `None` when
    /// this caller has no such task (or the store did not answer).
    pub(crate) async fn detailed(&self, id: &str, principal: Option<&Principal>) -> Option<Record> {
        match self.find(id, principal).await {
            Ok(record) => record,
            Err(e) => {
                tracing::warn!(target: "mcp_runtime::tasks", task = id, error = %e, "cannot read a task for a listen stream");
                None
            }
        }
    }
}

/// A runner's place in [`Tasks`]: its wake-up, removed when dropped.
pub(crate) struct Registration {
    id: Arc<str>,
    pub(crate) wake: Arc<Notify>,
    running: Weak<Running>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some(running) = self.running.upgrade() {
            running.lock().unwrap_or_else(PoisonError::into_inner).remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::era::Envelope;
    use crate::state::store::MemoryStore;
    use crate::tasks::record::{Seed, Status};

    fn client(capabilities: Value) -> Client {
        Client::Modern(Arc::new(Envelope { version: "2026-07-28", capabilities, info: None, log_level: None }))
    }

    fn declaring() -> Client {
        client(json!({"extensions": {EXTENSION: {}}}))
    }

    fn tasks() -> Tasks {
        Tasks::new(Arc::new(MemoryStore::new()), "test", Settings::default(), Arc::default())
    }

    async fn seeded(tasks: &Tasks, owner: &str, now: u64) -> String {
        let id = new_id();
        let record = Record::new(Seed {
            id: id.clone(),
            owner: owner.to_owned(),
            tool: "slow_job",
            request_id: RequestId::generate(),
            runner: &tasks.replica,
            now,
            ttl_ms: 60_000,
            poll_ms: 1000,
            lease_ms: 15_000,
        });
        assert!(tasks.book.create(&record, now).await.unwrap());
        id
    }

    fn req(method: &str, params: Value) -> Result<TaskRequest, RpcError> {
        request(method, &declaring(), true, Some(&params))
    }

    #[test]
    fn ids_are_128_random_bits() {
        let (a, b) = (new_id(), new_id());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn only_a_declaring_2026_client_reaches_the_methods() {
        let params = json!({"taskId": "x"});
        assert_eq!(request("tasks/get", &declaring(), false, Some(&params)).err().unwrap().code, -32601);
        let refused = request("tasks/get", &client(json!({})), true, Some(&params)).err().unwrap();
        assert_eq!(refused.code, -32021);
        assert_eq!(refused.data, Some(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}})));
        let legacy = Client::Legacy(Arc::default());
        assert_eq!(request("tasks/cancel", &legacy, true, Some(&params)).err().unwrap().code, -32021);
        assert!(req("tasks/get", params.clone()).is_ok());
        assert_eq!(req("tasks/get", json!({})).err().unwrap().code, -32602);
        assert_eq!(req("tasks/update", params).err().unwrap().code, -32602, "inputResponses is required");
        assert!(req("tasks/update", json!({"taskId": "x", "inputResponses": {}})).is_ok());
    }

    #[tokio::test]
    async fn another_callers_task_is_unknown_and_cancel_on_a_terminal_task_is_an_empty_ack() {
        let tasks = tasks();
        let alice = Principal::new("alice");
        let id = seeded(&tasks, &alice.binding(), now_ms()).await;
        let get = |params: Value| req("tasks/get", params).unwrap();
        let mine = tasks.answer(get(json!({"taskId": id})), Some(&alice)).await.unwrap();
        assert_eq!(mine["status"], "working");
        let bob = Principal::new("bob");
        let theirs = tasks.answer(get(json!({"taskId": id})), Some(&bob)).await.unwrap_err();
        let never = tasks.answer(get(json!({"taskId": "nope"})), Some(&bob)).await.unwrap_err();
        assert_eq!((theirs.code, never.code), (-32602, -32602));
        assert_eq!(theirs.message.replace(&id, "nope"), never.message, "nothing tells the two apart");
        let cancel = req("tasks/cancel", json!({"taskId": id})).unwrap();
        assert!(tasks.answer(cancel, Some(&bob)).await.is_err(), "nor can another caller cancel it");

        tasks.book.change(&id, now_ms, |r, at| r.complete(json!({"content": []}), at)).await.unwrap();
        for _ in 0..2 {
            let cancel = req("tasks/cancel", json!({"taskId": id})).unwrap();
            assert_eq!(tasks.answer(cancel, Some(&alice)).await.unwrap(), Map::new());
        }
        assert_eq!(tasks.book.read(&id).await.unwrap().unwrap().status, Status::Completed);
    }

    #[tokio::test]
    async fn a_reader_fails_a_task_whose_runner_stopped_renewing() {
        let tasks = tasks();
        let id = seeded(&tasks, "", now_ms() - 20_000).await;
        let got = tasks.answer(req("tasks/get", json!({"taskId": id})).unwrap(), None).await.unwrap();
        assert_eq!(got["status"], "failed");
        assert_eq!(got["error"]["data"]["reason"], "task_lost");
        assert_eq!(tasks.book.read(&id).await.unwrap().unwrap().status, Status::Failed, "and it is written");
    }

    #[tokio::test]
    async fn the_replica_running_a_task_never_reads_it_lost_another_does() {
        let tasks = tasks();
        // Seeded 20 s ago with a 15 s lease: as after a store stall longer than the lease.
        let id = seeded(&tasks, "", now_ms() - 20_000).await;
        let registration = tasks.register(&id);
        let got = tasks.answer(req("tasks/get", json!({"taskId": id})).unwrap(), None).await.unwrap();
        assert_eq!(got["status"], "working", "its runner is here and alive: {got:?}");
        drop(registration);
        let got = tasks.answer(req("tasks/get", json!({"taskId": id})).unwrap(), None).await.unwrap();
        assert_eq!(got["error"]["data"]["reason"], "task_lost", "no runner here: the lease says it stopped");
    }

    #[tokio::test]
    async fn an_update_from_another_request_wakes_the_runner() {
        let tasks = tasks();
        let id = seeded(&tasks, "", now_ms()).await;
        let registration = tasks.register(&id);
        tasks
            .book
            .change(&id, now_ms, |r, at| r.ask(vec![("k".into(), json!({"method": "roots/list"}))], None, at))
            .await
            .unwrap();
        let woken = registration.wake.notified();
        let update = req("tasks/update", json!({"taskId": id, "inputResponses": {"k": {"roots": []}}})).unwrap();
        tasks.answer(update, None).await.unwrap();
        tokio::time::timeout(Duration::from_secs(5), woken).await.expect("woken by the bus");
        assert!(tasks.book.read(&id).await.unwrap().unwrap().ready);
        drop(registration);
        assert!(tasks.running.lock().unwrap().is_empty());
    }
}
