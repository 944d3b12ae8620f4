//! The SSE streams and their replay. A POST's answer that does not come first is streamed
//! from here: `plain` without resumption, or, for a request of a 2025 session, `resumable`
//! from a [`StreamLog`] that keeps its events; GET resumes one after `Last-Event-ID`
//! (`event_id`), and [`Budget`] bounds what is kept for it.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::response::Response;
use http::{HeaderValue, header};

use super::lock;
use crate::context::ctx::CancelState;
use crate::rpc::outbox::{Kind, Outbox};

/// Events kept per request stream for a client that resumes it.
const REPLAY_EVENTS: usize = 256;

/// A comment on idle standalone streams, so that proxies do not cut them.
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One request's stream: its outbox, and the events already sent, for a client that
/// resumes it. Ids are `<stream>-<seq>`; `<stream>-0` is the priming event.
///
/// Whichever attachment reads moves the outbox's lines into `events` under its lock, and every
/// attachment reads `events` from its own position: a line is never lost between a dropped
/// connection and the one that resumes it.
pub(super) struct StreamLog {
    id: u64,
    pub(super) outbox: Arc<Outbox>,
    events: Mutex<Events>,
    /// Bumped when a client attaches: an older attachment stops reading.
    generation: AtomicU64,
}

/// A stream's events, the last [`REPLAY_EVENTS`] of them, within the replay budgets once sent.
struct Events {
    kept: VecDeque<Event>,
    next_seq: u64,
    /// When the call was answered (or ended unanswered): the stream is complete.
    ended: Option<Instant>,
    /// Bytes of `kept`, counted in the endpoint's total too (given back on drop).
    bytes: usize,
    total: Arc<AtomicUsize>,
}

impl Drop for Events {
    fn drop(&mut self) {
        self.total.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

struct Event {
    seq: u64,
    /// Empty for the end of an unanswered call.
    bytes: Bytes,
    /// The answer, or the end of an unanswered call: nothing follows.
    last: bool,
}

impl StreamLog {
    /// A new request stream whose first event is the priming one: an id to resume from, and
    /// how long to wait first. Its bytes count in `total`, the endpoint's.
    pub(super) fn new(id: u64, outbox: Arc<Outbox>, retry_ms: u64, total: Arc<AtomicUsize>) -> Self {
        let priming =
            Event { seq: 0, bytes: Bytes::from(format!("id: {id}-0\nretry: {retry_ms}\ndata: \n\n")), last: false };
        total.fetch_add(priming.bytes.len(), Ordering::Relaxed);
        let events =
            Events { bytes: priming.bytes.len(), kept: VecDeque::from([priming]), next_seq: 1, ended: None, total };
        StreamLog { id, outbox, events: Mutex::new(events), generation: AtomicU64::new(0) }
    }

    /// Whether every event from `next` on is still kept or yet to come.
    pub(super) fn replayable_from(&self, next: u64) -> bool {
        let events = lock(&self.events);
        events.kept.front().map_or(events.next_seq, |e| e.seq) <= next
    }
}

/// How many bytes of sent events may be kept for replay: per stream, and in the process.
#[derive(Clone, Copy)]
pub(super) struct Budget {
    pub(super) per_stream: usize,
    pub(super) total: usize,
}

/// Cancels a call without a session when its response is dropped: the client closed the
/// stream.
pub(super) struct CancelOnDrop(pub(super) Arc<CancelState>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

pub(super) fn sse(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// An SSE body without resumption (stateless, and every modern request): the outbox's
/// lines as events without ids, until the answer; a keep-alive comment when nothing was
/// sent for a while (a listen stream may wait long). `guard` lives as long as the body.
pub(super) fn plain(outbox: Arc<Outbox>, guard: Option<CancelOnDrop>) -> Body {
    let body = futures_util::stream::unfold((outbox, guard, false), |(outbox, guard, done)| async move {
        if done {
            return None;
        }
        loop {
            let Some(line) = outbox.pop() else {
                if tokio::time::timeout(KEEP_ALIVE, outbox.ready()).await.is_err() {
                    return Some((
                        Ok::<_, Infallible>(Bytes::from_static(b": keep-alive\n\n")),
                        (outbox, guard, false),
                    ));
                }
                continue;
            };
            match line.kind {
                Kind::Pause => {}
                Kind::Unanswered => return None,
                Kind::Answer | Kind::Notification => {
                    let last = line.kind == Kind::Answer;
                    let event = Bytes::from([b"data: ", trimmed(&line.bytes), b"\n\n"].concat());
                    return Some((Ok::<_, Infallible>(event), (outbox, guard, last)));
                }
            }
        }
    });
    Body::from_stream(body)
}

/// A line without its newline.
pub(super) fn trimmed(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

/// `<stream>-<seq>` as this server writes event ids: the stream and the next event to send.
/// Digits only; an id past the last one there can be is not an id of this server.
pub(super) fn event_id(last: &str) -> Option<(u64, u64)> {
    let (stream, seq) = last.split_once('-')?;
    let number = |digits: &str| {
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u64>().ok()
    };
    Some((number(stream)?, number(seq)?.checked_add(1)?))
}

/// An attachment to a resumable stream, from event `next` on: it replays what is kept, then
/// follows the call, until its last event, a pause, or a newer attachment. Once sent, events
/// past the replay budget are let go.
pub(super) fn resumable(log: Arc<StreamLog>, next: u64, budget: Budget) -> Body {
    let mine = log.generation.fetch_add(1, Ordering::AcqRel) + 1;
    // An older attachment waiting for lines wakes, sees it is replaced, and passes the wake on.
    log.outbox.wake();
    let body = futures_util::stream::unfold((log, next, false), move |(log, mut next, done)| async move {
        if done {
            return None;
        }
        loop {
            let (batch, end) = {
                let mut events = lock(&log.events);
                if log.generation.load(Ordering::Acquire) != mine {
                    drop(events);
                    log.outbox.wake();
                    return None;
                }
                let paused = pump(&log, &mut events);
                let mut batch = Vec::new();
                let mut end = false;
                let from = next;
                for event in events.kept.iter().filter(|e| e.seq >= from) {
                    next = event.seq + 1;
                    batch.extend_from_slice(&event.bytes);
                    if event.last {
                        end = true;
                        break;
                    }
                }
                events.let_go(next, budget);
                // Nothing left to send: the call ended, or paused this attachment.
                let drained = next >= events.next_seq;
                (batch, end || (drained && (paused || events.ended.is_some())))
            };
            if !batch.is_empty() {
                return Some((Ok::<_, Infallible>(Bytes::from(batch)), (log, next, end)));
            }
            if end {
                return None;
            }
            log.outbox.ready().await;
        }
    });
    Body::from_stream(body)
}

impl Events {
    fn push(&mut self, event: Event) {
        self.bytes += event.bytes.len();
        self.total.fetch_add(event.bytes.len(), Ordering::Relaxed);
        self.kept.push_back(event);
    }

    fn pop(&mut self) {
        if let Some(event) = self.kept.pop_front() {
            self.bytes -= event.bytes.len();
            self.total.fetch_sub(event.bytes.len(), Ordering::Relaxed);
        }
    }

    /// Lets go of the oldest events sent (those before `sent`) while the stream or the process
    /// keeps more than its budget, or the stream more than [`REPLAY_EVENTS`].
    fn let_go(&mut self, sent: u64, budget: Budget) {
        while self.kept.front().is_some_and(|e| e.seq < sent)
            && (self.bytes > budget.per_stream
                || self.total.load(Ordering::Relaxed) > budget.total
                || self.kept.len() > REPLAY_EVENTS)
        {
            self.pop();
        }
    }
}

/// Moves the outbox's lines into the stream's events, up to a pause (which ends the
/// attachment reading now; the lines after it wait for the next one). Whether it paused.
fn pump(log: &StreamLog, events: &mut Events) -> bool {
    while let Some(line) = log.outbox.pop() {
        let (bytes, last) = match line.kind {
            Kind::Pause => return true,
            Kind::Unanswered => (Bytes::new(), true),
            Kind::Notification => (frame(log.id, events.next_seq, &line.bytes), false),
            Kind::Answer => (frame(log.id, events.next_seq, &line.bytes), true),
        };
        events.push(Event { seq: events.next_seq, bytes, last });
        events.next_seq += 1;
        if last {
            events.ended = Some(Instant::now());
        }
    }
    false
}

/// One message as an SSE event with its id.
fn frame(stream: u64, seq: u64, line: &[u8]) -> Bytes {
    Bytes::from([format!("id: {stream}-{seq}\ndata: ").as_bytes(), trimmed(line), b"\n\n"].concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_ids_are_read_strictly() {
        assert_eq!(event_id("3-0"), Some((3, 1)));
        assert_eq!(event_id("12-255"), Some((12, 256)));
        assert_eq!(event_id("1-18446744073709551615"), None, "no event follows the last id");
        assert_eq!(event_id("+1-+0"), None);
        assert_eq!(event_id("1-"), None);
        assert_eq!(event_id("-1"), None);
        assert_eq!(event_id("1-2-3"), None);
        assert_eq!(event_id("99999999999999999999-1"), None);
    }
}
