//! What a session has to send, waiting for its transport: responses and notifications as
//! JSON-RPC lines, in order. Handlers push from any thread; the transport takes them when it
//! can write.
//!
//! Bounded whatever the client does: responses are never dropped (there is at most one per
//! request, and requests stop being read while output is congested), but notifications
//! (progress, log messages) are dropped while more than [`NOTIFICATION_BUDGET`] bytes wait, so
//! a handler that reports in a tight loop to a client that does not read cannot grow the
//! server. Dropped notifications are counted and logged.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Instant;

use tokio::sync::Notify;

/// Bytes of waiting lines above which notifications are dropped.
pub(crate) const NOTIFICATION_BUDGET: usize = 1024 * 1024;

/// One line to write, and what it is.
pub(crate) struct Line {
    /// The JSON-RPC line, newline included (empty for the markers).
    pub(crate) bytes: Vec<u8>,
    pub(crate) kind: Kind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A response or error answer: it ends its request's stream.
    Answer,
    Notification,
    /// The handler asked to end the HTTP response it rides on now; the client resumes the
    /// stream later (`Last-Event-ID`). Ignored on stdio.
    Pause,
    /// The call ended without an answer (it was cancelled): its HTTP response ends.
    /// Ignored on stdio.
    Unanswered,
}

#[derive(Default)]
pub(crate) struct Outbox {
    inner: Mutex<Inner>,
    ready: Notify,
    /// For a session's standalone messages, which may wait long for a reader: a notification
    /// identical to one waiting is not queued again (list changes and resource updates say
    /// the same thing twice), and at most this many wait.
    coalesce: Option<usize>,
    /// Bytes of waiting lines above which notifications are dropped, when not
    /// [`NOTIFICATION_BUDGET`] (a test client's setting).
    budget: Option<usize>,
}

#[derive(Default)]
struct Inner {
    lines: VecDeque<Line>,
    bytes: usize,
    /// Notifications dropped since the last report.
    dropped: u64,
    /// Notifications dropped in all.
    dropped_total: u64,
    /// When the answer (or the end of an unanswered call) was queued: nothing follows it,
    /// whether or not anyone reads it.
    finished: Option<Instant>,
}

impl Inner {
    /// Once everything waiting is taken, says how many notifications were dropped meanwhile.
    fn report_caught_up(&mut self) {
        if self.lines.is_empty() && self.dropped > 0 {
            let dropped = std::mem::take(&mut self.dropped);
            tracing::warn!(target: "mcp_runtime::transport", dropped, "the client caught up; notifications were dropped meanwhile");
        }
    }
}

impl Outbox {
    /// An outbox for messages outside any request, read when a client attaches: identical
    /// notifications are coalesced, and at most `max` wait.
    #[cfg(feature = "http")]
    pub(crate) fn coalescing(max: usize) -> Self {
        Outbox { coalesce: Some(max), ..Outbox::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues a response (or an error answer): never dropped.
    pub(crate) fn response(&self, bytes: Vec<u8>) {
        let mut inner = self.lock();
        inner.bytes += bytes.len();
        inner.lines.push_back(Line { bytes, kind: Kind::Answer });
        inner.finished.get_or_insert_with(Instant::now);
        drop(inner);
        self.ready.notify_one();
    }

    /// Queues a request to the client (a leg of the legacy shim): never dropped, and like a
    /// notification it does not end its request's stream.
    pub(crate) fn request(&self, bytes: Vec<u8>) {
        let mut inner = self.lock();
        inner.bytes += bytes.len();
        inner.lines.push_back(Line { bytes, kind: Kind::Notification });
        drop(inner);
        self.ready.notify_one();
    }

    /// Queues a marker (see [`Kind`]).
    pub(crate) fn mark(&self, kind: Kind) {
        let mut inner = self.lock();
        inner.lines.push_back(Line { bytes: Vec::new(), kind });
        if kind == Kind::Unanswered {
            inner.finished.get_or_insert_with(Instant::now);
        }
        drop(inner);
        self.ready.notify_one();
    }

    /// An outbox that drops notifications only past `budget` bytes waiting.
    pub(crate) fn with_budget(budget: usize) -> Self {
        Outbox { budget: Some(budget), ..Outbox::default() }
    }

    /// How many notifications were dropped in all.
    pub(crate) fn dropped_total(&self) -> u64 {
        self.lock().dropped_total
    }

    /// When the call this outbox carries was answered or ended unanswered, if it was.
    #[cfg(feature = "http")]
    pub(crate) fn finished(&self) -> Option<Instant> {
        self.lock().finished
    }

    /// Queues a notification, unless the budget is spent; whether it was queued.
    pub(crate) fn notification(&self, bytes: Vec<u8>) -> bool {
        let mut inner = self.lock();
        if let Some(max) = self.coalesce {
            if inner.lines.iter().any(|line| line.kind == Kind::Notification && line.bytes == bytes) {
                return true;
            }
            if inner.lines.len() >= max {
                inner.dropped += 1;
                inner.dropped_total += 1;
                if inner.dropped == 1 {
                    tracing::warn!(target: "mcp_runtime::transport", waiting = inner.lines.len(), "a session's standalone stream is not open: dropping notifications until it is");
                }
                return false;
            }
        }
        if inner.bytes + bytes.len() > self.budget.unwrap_or(NOTIFICATION_BUDGET) {
            inner.dropped += 1;
            inner.dropped_total += 1;
            if inner.dropped == 1 {
                tracing::warn!(
                    target: "mcp_runtime::transport",
                    waiting = inner.bytes,
                    "the client is not reading fast enough: dropping notifications until it catches up"
                );
            }
            return false;
        }
        inner.bytes += bytes.len();
        inner.lines.push_back(Line { bytes, kind: Kind::Notification });
        drop(inner);
        self.ready.notify_one();
        true
    }

    /// The kind of the oldest waiting line.
    #[cfg(feature = "http")]
    pub(crate) fn peek(&self) -> Option<Kind> {
        self.lock().lines.front().map(|line| line.kind)
    }

    /// The oldest waiting line.
    #[cfg(feature = "http")]
    pub(crate) fn pop(&self) -> Option<Line> {
        let mut inner = self.lock();
        let line = inner.lines.pop_front()?;
        inner.bytes -= line.bytes.len();
        inner.report_caught_up();
        Some(line)
    }

    /// Bytes waiting.
    pub(crate) fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// Takes every waiting line, oldest first, into `into` while it holds fewer than `room`
    /// bytes.
    pub(crate) fn take(&self, room: usize, mut into: impl FnMut(Line)) {
        let mut inner = self.lock();
        let mut taken = 0;
        while taken < room {
            let Some(line) = inner.lines.pop_front() else { break };
            inner.bytes -= line.bytes.len();
            taken += line.bytes.len();
            into(line);
        }
        inner.report_caught_up();
    }

    /// Wakes a reader waiting in [`Outbox::ready`] (or the next one to wait).
    #[cfg(feature = "http")]
    pub(crate) fn wake(&self) {
        self.ready.notify_one();
    }

    /// Waits until a line is queued (returns at once if one was queued since the last wait).
    pub(crate) async fn ready(&self) {
        self.ready.notified().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notifications_are_dropped_past_the_budget_and_responses_never() {
        let outbox = Outbox::default();
        let big = vec![b'x'; NOTIFICATION_BUDGET / 2];
        assert!(outbox.notification(big.clone()));
        assert!(outbox.notification(big.clone()));
        assert!(!outbox.notification(vec![b'y'; 10]));
        outbox.response(big.clone());
        assert_eq!(outbox.bytes(), 3 * big.len());
        let mut kinds = Vec::new();
        outbox.take(usize::MAX, |line| kinds.push(line.kind));
        assert_eq!(kinds, [Kind::Notification, Kind::Notification, Kind::Answer]);
        assert_eq!(outbox.bytes(), 0);
    }

    #[test]
    #[cfg(feature = "http")]
    fn a_coalescing_outbox_keeps_one_of_each_notification_and_at_most_its_cap() {
        let outbox = Outbox::coalescing(3);
        for _ in 0..1000 {
            assert!(outbox.notification(b"tools changed\n".to_vec()));
            assert!(outbox.notification(b"updated a\n".to_vec()));
        }
        assert!(outbox.notification(b"updated b\n".to_vec()));
        assert!(!outbox.notification(b"updated c\n".to_vec()), "past the cap");
        let mut lines = Vec::new();
        outbox.take(usize::MAX, |line| lines.push(line.bytes));
        assert_eq!(lines, [&b"tools changed\n"[..], b"updated a\n", b"updated b\n"]);
        // Once read, the same notification queues again.
        assert!(outbox.notification(b"tools changed\n".to_vec()));
        assert_eq!(outbox.bytes(), 14);
    }

    #[test]
    #[cfg(feature = "http")]
    fn an_outbox_is_finished_once_its_answer_is_queued_read_or_not() {
        let outbox = Outbox::default();
        outbox.notification(b"progress\n".to_vec());
        assert!(outbox.finished().is_none());
        outbox.response(b"answer\n".to_vec());
        assert!(outbox.finished().is_some());
        let cancelled = Outbox::default();
        cancelled.mark(Kind::Unanswered);
        assert!(cancelled.finished().is_some());
    }
}
