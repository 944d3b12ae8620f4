//! Lines written to a blocking writer (stderr, a file) without ever waiting for it: a thread
//! of their own writes them, through a bounded queue. The server's log records to stderr
//! (`context::logging`) and `Audit`'s JSON lines go this way, so that a client that pipes the
//! server's stderr and never reads it cannot stop the server. While the queue is full, lines
//! are dropped and counted; once the writer takes lines again, a line says how many.

use std::io::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// Lines waiting for a writer's thread, at most.
const QUEUE: usize = 4096;

/// How long a [`Lines`] being dropped waits for its thread to write what is queued.
const DROP_FLUSH: Duration = Duration::from_millis(500);

/// The line that says how many lines were dropped.
pub(crate) type Report = fn(u64) -> Vec<u8>;

/// A writer of whole lines that never blocks its caller (see the module's documentation).
pub(crate) struct Lines {
    /// `None` when the thread could not start: lines are then written by their sender.
    tx: Option<SyncSender<Vec<u8>>>,
    counts: Arc<Counts>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
}

/// What a [`Lines`] and its thread share.
#[derive(Default)]
struct Counts {
    /// Lines sent and not yet written.
    waiting: AtomicUsize,
    /// Lines dropped since the last report.
    dropped: AtomicU64,
}

/// Every live queue, for [`flush_all`].
static LIVE: Mutex<Vec<Weak<Counts>>> = Mutex::new(Vec::new());

impl Lines {
    /// Lines to `writer`, by a thread named `name`; `report` is the line written once lines
    /// were dropped. Should the thread not start, each line is written by its sender.
    pub(crate) fn new(name: &str, writer: Box<dyn Write + Send>, report: Report) -> Lines {
        let (tx, rx) = sync_channel::<Vec<u8>>(QUEUE);
        let counts = Arc::new(Counts::default());
        let writer = Arc::new(Mutex::new(writer));
        let (theirs, out) = (Arc::clone(&counts), Arc::clone(&writer));
        let spawned = std::thread::Builder::new().name(name.into()).spawn(move || {
            for line in rx {
                let mut out = out.lock().unwrap_or_else(PoisonError::into_inner);
                let _ = out.write_all(&line);
                let dropped = theirs.dropped.swap(0, Ordering::Relaxed);
                if dropped > 0 {
                    let _ = out.write_all(&report(dropped));
                }
                if theirs.waiting.load(Ordering::Acquire) == 1 {
                    // The last line waiting: what the writer buffers goes out now.
                    let _ = out.flush();
                }
                drop(out);
                theirs.waiting.fetch_sub(1, Ordering::Release);
            }
        });
        let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
        live.retain(|c| c.strong_count() > 0);
        live.push(Arc::downgrade(&counts));
        Lines { tx: spawned.ok().map(|_| tx), counts, writer }
    }

    /// Queues a line (its `\n` included); dropped and counted while the queue is full.
    pub(crate) fn send(&self, line: Vec<u8>) {
        let Some(tx) = &self.tx else {
            let mut out = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
            let _ = out.write_all(&line).and_then(|()| out.flush());
            return;
        };
        self.counts.waiting.fetch_add(1, Ordering::AcqRel);
        if tx.try_send(line).is_err() {
            self.counts.waiting.fetch_sub(1, Ordering::AcqRel);
            self.counts.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Waits up to `limit` for the thread to write what is queued.
    pub(crate) fn flush(&self, limit: Duration) {
        wait(&self.counts, Instant::now() + limit);
    }
}

impl Drop for Lines {
    /// What is queued is written first (within [`DROP_FLUSH`]: a writer nobody drains is
    /// not waited for longer); then the thread ends.
    fn drop(&mut self) {
        self.flush(DROP_FLUSH);
    }
}

/// Waits up to `limit` for every queue's thread to write what is queued (a server that
/// stops, before its process exits).
pub(crate) fn flush_all(limit: Duration) {
    let end = Instant::now() + limit;
    let live: Vec<Arc<Counts>> =
        LIVE.lock().unwrap_or_else(PoisonError::into_inner).iter().filter_map(Weak::upgrade).collect();
    for counts in &live {
        wait(counts, end);
    }
}

/// Whether some queue holds lines not yet written.
pub(crate) fn waiting() -> bool {
    LIVE.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .any(|c| c.upgrade().is_some_and(|c| c.waiting.load(Ordering::Acquire) > 0))
}

fn wait(counts: &Counts, end: Instant) {
    while counts.waiting.load(Ordering::Acquire) > 0 && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that blocks until told to go on, then keeps what it is given.
    #[derive(Clone, Default)]
    struct Gate {
        /// Whether a write began; whether writes may go on.
        state: Arc<(Mutex<(bool, bool)>, std::sync::Condvar)>,
        written: Arc<Mutex<Vec<u8>>>,
    }

    impl Gate {
        fn set(&self, change: impl FnOnce(&mut (bool, bool))) {
            let (state, changed) = &*self.state;
            change(&mut state.lock().unwrap());
            changed.notify_all();
        }

        fn until(&self, done: impl Fn(&(bool, bool)) -> bool) {
            let (state, changed) = &*self.state;
            let mut state = state.lock().unwrap();
            while !done(&state) {
                state = changed.wait(state).unwrap();
            }
        }
    }

    impl Write for Gate {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.set(|s| s.0 = true);
            self.until(|s| s.1);
            self.written.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_stuck_writer_never_blocks_the_sender_and_the_dropped_lines_are_reported() {
        let gate = Gate::default();
        let lines = Lines::new("test-lines", Box::new(gate.clone()), |n| format!("{n} dropped\n").into_bytes());
        lines.send(b"0\n".to_vec());
        // The thread took line 0 and is stuck writing it: the queue holds the next 4096.
        gate.until(|s| s.0);
        let started = Instant::now();
        for i in 1..=QUEUE + 100 {
            lines.send(format!("{i}\n").into_bytes());
        }
        assert!(started.elapsed() < Duration::from_secs(5), "sending waited for the writer");
        gate.set(|s| s.1 = true);
        lines.flush(Duration::from_secs(10));
        let written = String::from_utf8(gate.written.lock().unwrap().clone()).unwrap();
        let expected: String =
            ["0\n100 dropped\n".to_owned()].into_iter().chain((1..=QUEUE).map(|i| format!("{i}\n"))).collect();
        assert!(written == expected, "{} lines written, starting {:?}", written.lines().count(), &written[..40]);
    }
}
