//! One session over HTTP: its state (shared by the views each of its POSTs gets), the outbox
//! its standalone stream reads, and its request streams kept for resumption. The endpoint
//! keeps the sessions (`lifecycle`: minted, found, ended); `stream` serves what they keep.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::lock;
use super::stream::StreamLog;
use crate::features::Shared;
use crate::protocol::session::State;
use crate::rpc::outbox::Outbox;

/// Request streams kept for resumption per session, at most.
const MAX_STREAMS: usize = 1024;

/// How long a request stream stays resumable after its call ended.
const STREAM_RETENTION: Duration = Duration::from_secs(300);

/// A session over HTTP: its state, and its request streams kept for resumption.
pub(super) struct HttpSession {
    /// The binding of the principal that opened it (`principal::binding`): a request of
    /// another principal does not find it.
    pub(super) owner: String,
    /// Who holds it, for the cap on sessions per client: the principal, or the address of an
    /// unauthenticated caller.
    pub(super) client: Box<str>,
    pub(super) state: Arc<State>,
    /// Messages outside any request (resource updates), read by the standalone stream.
    pub(super) standalone: Arc<Outbox>,
    last_used: Mutex<Instant>,
    pub(super) streams: Mutex<HashMap<u64, Arc<StreamLog>>>,
    next_stream: AtomicU64,
    /// Times the session for `mcp.server.session.duration`, until it is dropped.
    clock: Option<crate::observe::SessionClock>,
}

impl Drop for HttpSession {
    fn drop(&mut self) {
        if let Some(clock) = self.clock.take() {
            clock.end(self.state.protocol_version());
        }
    }
}

impl HttpSession {
    pub(super) fn new(owner: String, client: Box<str>, shared: &Shared) -> Self {
        let standalone = Arc::new(Outbox::coalescing(shared.options.http.limits.max_detached_notifications));
        HttpSession {
            clock: Some(shared.observer.session(crate::rpc::channel::Transport::Http)),
            owner,
            client,
            state: Arc::new(State::with_standalone(Arc::clone(&standalone))),
            standalone,
            last_used: Mutex::new(Instant::now()),
            streams: Mutex::new(HashMap::new()),
            next_stream: AtomicU64::new(1),
        }
    }

    pub(super) fn touch(&self) {
        *lock(&self.last_used) = Instant::now();
    }

    pub(super) fn idle_for(&self) -> Duration {
        lock(&self.last_used).elapsed()
    }

    /// A new request stream whose first event is the priming one (an id to resume from, and
    /// how long to wait first: `retry_ms`); streams complete for longer than the retention are
    /// dropped. Its events count in `replay`, the bytes kept for replay over every session.
    pub(super) fn open_stream(&self, outbox: Arc<Outbox>, retry_ms: u64, replay: &Arc<AtomicUsize>) -> Arc<StreamLog> {
        let id = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let log = Arc::new(StreamLog::new(id, outbox, retry_ms, Arc::clone(replay)));
        self.prune_streams();
        let mut streams = lock(&self.streams);
        if streams.len() >= MAX_STREAMS {
            // The oldest goes: ids grow, so it has the smallest.
            if let Some(oldest) = streams.keys().min().copied() {
                streams.remove(&oldest);
            }
        }
        streams.insert(id, Arc::clone(&log));
        log
    }

    /// Drops the request streams complete for longer than the retention, read or not.
    pub(super) fn prune_streams(&self) {
        lock(&self.streams).retain(|_, s| s.outbox.finished().is_none_or(|at| at.elapsed() < STREAM_RETENTION));
    }

    /// Whether a request of this session runs or waits (its answer is not queued yet); an
    /// answer no one reads does not keep it busy.
    pub(super) fn busy(&self) -> bool {
        self.state.running()
    }

    /// The session ended (DELETE, idle, evicted): its calls are cancelled, its streams let go.
    pub(super) fn end(&self) {
        self.state.cancel_all();
        lock(&self.streams).clear();
    }
}
