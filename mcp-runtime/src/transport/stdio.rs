//! stdio: newline-delimited JSON-RPC in and out, in one loop that reads lines, starts calls
//! and writes answers. Calls run in tasks of their own (blocking handlers on the blocking
//! pool), so the loop reads on, and a cancellation or EOF is seen whatever the handlers do.
//!
//! One exception, for speed: a tool written as a fn without `async` and without a time limit,
//! once 16 of its runs in a row each finished within the blocking limit (1 ms), runs on the
//! loop itself (no task, no thread hop; its answer goes out in the same write as the answers to
//! every other line that was already read). Should such a call turn slow, it holds the loop
//! for its duration, and the tool's calls run in tasks until it has run quickly twice as
//! many times in a row as it needed before: 32, then 64, and so on. So a tool slow once every
//! `n` calls holds the loop at most `log2(n / 16) + 1` times in all, once for `n` up to 32
//! (`features/tools/pace.rs`, `tests/tests/protocol/stdio_inline.rs`).
//!
//! Memory stays bounded by the configured limits whatever the client does:
//! - answers: while 64 KiB wait to be written, requests are not served but parked, and
//!   notifications beyond the session's budget are dropped (see `outbox`);
//! - calls beyond the in-flight cap wait in a queue as the bytes of their lines (not parsed),
//!   up to `max_queued_bytes`; past that a call is refused at once as `server_busy`
//!   (retryable). Reading stops only when the queue is full *and* output is congested;
//! - ids and progress tokens are at most 4 KiB each.
//!
//! On EOF, calls get `eof_grace` to finish, then what is left to write gets `flush_grace`,
//! then the loop returns, written or not.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::task::JoinSet;
use tokio::time::Instant;

use crate::protocol::session::{Admit, Next, Parked, Seen, Session, State};
use crate::rpc::channel::Channel;
use crate::rpc::jsonrpc;
use crate::rpc::outbox::{self, Outbox};
use crate::server::{Error, Server};

const BUFFER: usize = 64 * 1024;
/// The pause between writing notifications and writing a response that follows them.
const NOTIFICATION_GAP: Duration = Duration::from_millis(2);

impl Server {
    /// Serves on stdin/stdout until EOF on stdin, SIGTERM or SIGINT. Logs go to stderr.
    ///
    /// A signal ends the server as EOF does: no more requests are read, calls in flight may
    /// finish within the EOF grace, and every answer already made is written whole before
    /// the server returns (within the flush grace).
    ///
    /// When stdin and stdout are pipes or sockets (as when a client launches the server),
    /// they are read and written directly by the runtime's event loop; otherwise (a
    /// terminal, a file) through tokio's blocking stdio.
    ///
    /// The loop that reads and writes runs on a thread of its own (with its own event loop),
    /// and calls run on the runtime that called this: however handlers use the runtime's
    /// threads, requests, cancellations and EOF are read, and pings answered.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let calls = tokio::runtime::Handle::current();
        let flush_grace = self.shared.options.otel_flush_grace;
        let (done, served) = tokio::sync::oneshot::channel();
        std::thread::Builder::new().name("mcp-stdio".into()).spawn(move || {
            let result =
                tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(Error::from).and_then(
                    |io| {
                        let served = io.block_on(async {
                            let stop = crate::transport::stop_signal();
                            let (input, output) = stdio()?;
                            self.serve_on(input, output, &calls, async {
                                stop.await;
                            })
                            .await
                        });
                        // Stopped by a signal, a terminal's stdin may still be in a blocking
                        // read that nothing will end: do not wait for it.
                        io.shutdown_background();
                        served
                    },
                );
            let _ = done.send(result);
        })?;
        let served = served.await.unwrap_or_else(|_| Err(std::io::Error::other("the stdio thread panicked").into()));
        crate::transport::flush_telemetry(flush_grace).await;
        served
    }

    /// Serves newline-delimited JSON-RPC on any byte streams until EOF on `input`. The loop
    /// runs in the caller's task; calls run in tasks of their own on the same runtime.
    pub async fn serve<R, W>(self, input: R, output: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let flush_grace = self.shared.options.otel_flush_grace;
        let served = self.serve_on(input, output, &tokio::runtime::Handle::current(), std::future::pending()).await;
        crate::transport::flush_telemetry(flush_grace).await;
        served
    }

    /// The loop, spawning calls on `calls`, until EOF on `input` or `stop` resolves.
    async fn serve_on<R, W>(
        self,
        input: R,
        output: W,
        calls_on: &tokio::runtime::Handle,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<(), Error>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let options = self.shared.options.clone();
        let outbox = Arc::new(Outbox::default());
        // Turned on at EOF: listen streams end with their graceful result.
        let (closing, closing_rx) = tokio::sync::watch::channel(false);
        let (session, state) = self.connection(&outbox, closing_rx);
        let clock = self.shared.observer.session(crate::rpc::channel::Transport::Stdio);
        let mut calls = JoinSet::new();
        let mut lines = LineReader::new(input, options.max_line_bytes);
        let mut out = Outgoing::new(output);
        let mut queue = Queue::default();
        // Set at EOF: in-flight calls may finish until then.
        let mut grace_end: Option<Instant> = None;
        // Set when the grace is over: what is left to write may go out until then.
        let mut flush_end: Option<Instant> = None;
        let mut stop = std::pin::pin!(stop);

        loop {
            outbox.take(BUFFER.saturating_sub(out.backlog()), |line| out.push(line));
            // Parked requests go first, in order, as soon as they can be served.
            while let Some(parked) = queue.front() {
                let congested = out.backlog() + outbox.bytes() >= BUFFER;
                if congested || (parked.call && calls.len() >= options.max_in_flight) {
                    break;
                }
                let (line, parked) = queue.pop();
                let admit = Admit { answer: true, run: true, refuse: false };
                if let Next::Call { id, job, cancel } = session.handle(&line, admit, Seen::Parked(parked)) {
                    start(&session, &mut calls, calls_on, id, job, cancel);
                }
            }
            let settled = calls.is_empty() && queue.is_empty();
            if grace_end.is_some() && settled && outbox.bytes() == 0 && out.is_idle() {
                break;
            }
            if let Some(end) = grace_end
                && flush_end.is_none()
                && (settled || Instant::now() >= end)
            {
                if !settled {
                    let unfinished = calls.len() + queue.len();
                    tracing::warn!(unfinished, grace = ?options.eof_grace, "EOF grace over; dropping unfinished calls");
                    queue = Queue::default();
                    calls.abort_all();
                }
                flush_end = Some(Instant::now() + options.flush_grace);
            }
            if flush_end.is_some_and(|end| Instant::now() >= end) {
                tracing::warn!(
                    unsent = out.backlog() + outbox.bytes(),
                    "output not read within the flush grace; exiting"
                );
                break;
            }

            let congested = out.backlog() + outbox.bytes() >= BUFFER;
            let queue_full = queue.bytes >= options.max_queued_bytes;
            let read = grace_end.is_none() && !(congested && queue_full);
            let gate = out.gate();
            let deadline = flush_end.or(grace_end.filter(|_| !settled));
            // Unbiased: no branch can starve another (a client that reads fast must not stop
            // its cancellations from being read, nor one that writes fast its answers).
            tokio::select! {
                written = out.write(), if out.has_work() => written?,
                () = outbox.ready() => {}
                Some(_) = calls.join_next(), if !calls.is_empty() => {}
                () = tokio::time::sleep_until(gate.unwrap_or_else(Instant::now)), if gate.is_some() => out.release(),
                line = lines.next(), if read => match line {
                    Ok(Line::Eof) => stop_reading(&mut grace_end, &closing, options.eof_grace),
                    Ok(Line::TooLong) => session.send(jsonrpc::failure(
                        None,
                        -32600,
                        &format!("Invalid request: line longer than {} bytes", options.max_line_bytes),
                    )),
                    Ok(Line::Blank) => {}
                    // This line, then every whole line already read: one write answers the
                    // lot, as a client that pipelines sends them.
                    Ok(Line::Data) => loop {
                        let congested = out.backlog() + outbox.bytes() >= BUFFER;
                        let admit = Admit {
                            answer: !congested,
                            run: queue.is_empty() && calls.len() < options.max_in_flight,
                            refuse: queue.bytes >= options.max_queued_bytes,
                        };
                        match session.handle(lines.current(), admit, Seen::Fresh) {
                            Next::Call { id, job, cancel } => start(&session, &mut calls, calls_on, id, job, cancel),
                            Next::Park(parked) => queue.push(lines.current(), parked),
                            Next::Done => {}
                        }
                        let blocked = out.backlog() + outbox.bytes() >= BUFFER && queue.bytes >= options.max_queued_bytes;
                        if blocked || !lines.next_buffered() {
                            break;
                        }
                    },
                    Err(e) => {
                        tracing::error!(error = %e, "reading stdin failed; shutting down");
                        stop_reading(&mut grace_end, &closing, options.eof_grace);
                    }
                },
                () = tokio::time::sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {}
                () = &mut stop, if grace_end.is_none() => {
                    tracing::info!(grace = ?options.eof_grace, "stopping: no more requests are read; calls in flight may finish");
                    stop_reading(&mut grace_end, &closing, options.eof_grace);
                }
            }
        }
        clock.end(state.protocol_version());
        Ok(())
    }
}

/// Starts a call: on the reader itself when its tool is a fn without `async` known to be
/// quick (`Registered::runs_inline`: no task, no thread hop; it finishes in this one poll,
/// unless it asks the client, and then it goes on as a task), otherwise in a task of its own
/// on the calls' runtime. Either way the call runs with that runtime entered, so what it
/// spawns or times runs there, never on the reader.
fn start(
    session: &Arc<Session>,
    calls: &mut JoinSet<()>,
    calls_on: &tokio::runtime::Handle,
    id: Box<serde_json::value::RawValue>,
    job: crate::protocol::session::Job,
    cancel: Arc<crate::context::ctx::CancelState>,
) {
    if !job.runs_inline(&session.shared) {
        calls.spawn_on(Arc::clone(session).run_call(id, job, cancel), calls_on);
        return;
    }
    let mut call = Box::pin(Arc::clone(session).run_call(id, job, cancel));
    let ready = {
        let _runtime = calls_on.enter();
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        std::future::Future::poll(call.as_mut(), &mut cx).is_ready()
    };
    if !ready {
        // Its first poll registered no waker that matters: the task polls it again at once.
        calls.spawn_on(call, calls_on);
    }
}

/// Stdio connections served by this process, for per-connection limits.
static CONNECTIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Server {
    /// The session of one stdio connection (numbered, for per-connection limits), writing to
    /// `outbox`, and its state.
    fn connection(
        &self,
        outbox: &Arc<Outbox>,
        closing: tokio::sync::watch::Receiver<bool>,
    ) -> (Arc<Session>, Arc<State>) {
        let number = CONNECTIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let channel = Channel::new(Some(Arc::clone(outbox)), None).on_connection(number);
        let state = Arc::new(State::new());
        (Arc::new(Session::new(Arc::clone(&self.shared), Arc::clone(&state), channel, Some(closing))), state)
    }
}

/// EOF, a read error or a signal: no more requests are read, calls in flight may finish
/// within `grace`, and listen streams end with their graceful result.
fn stop_reading(grace_end: &mut Option<Instant>, closing: &tokio::sync::watch::Sender<bool>, grace: Duration) {
    *grace_end = Some(Instant::now() + grace);
    closing.send_replace(true);
}

/// Requests that could not be served when they were read, oldest first: the bytes of their
/// lines (never parsed arguments), and what the session said of them.
#[derive(Default)]
struct Queue {
    lines: VecDeque<(Box<[u8]>, Parked)>,
    bytes: usize,
}

impl Queue {
    fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    fn len(&self) -> usize {
        self.lines.len()
    }

    fn front(&self) -> Option<Parked> {
        self.lines.front().map(|(_, p)| *p)
    }

    fn push(&mut self, line: &[u8], parked: Parked) {
        self.bytes += line.len();
        self.lines.push_back((line.into(), parked));
    }

    fn pop(&mut self) -> (Box<[u8]>, Parked) {
        let (line, parked) = self.lines.pop_front().unwrap_or_else(|| unreachable!("popped after front()"));
        self.bytes -= line.len();
        (line, parked)
    }
}

type Input = Box<dyn AsyncRead + Unpin + Send>;
type Output = Box<dyn AsyncWrite + Unpin + Send>;

/// Stdin and stdout as async streams. A pipe or socket is registered with the event loop
/// (no thread hand-off per read or write, unlike tokio's stdio, which does each one on a
/// blocking thread).
#[cfg(unix)]
fn stdio() -> std::io::Result<(Input, Output)> {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;

    let input: Input = match unix_fd(std::io::stdin().as_fd())? {
        Fd::Pipe(file) => Box::new(pipe::Receiver::from_file(file)?),
        Fd::Socket(socket) => Box::new(socket),
        Fd::Other => Box::new(tokio::io::stdin()),
    };
    let output: Output = match unix_fd(std::io::stdout().as_fd())? {
        Fd::Pipe(file) => Box::new(pipe::Sender::from_file(file)?),
        Fd::Socket(socket) => Box::new(socket),
        Fd::Other => Box::new(tokio::io::stdout()),
    };
    Ok((input, output))
}

#[cfg(unix)]
enum Fd {
    Pipe(std::fs::File),
    Socket(tokio::net::UnixStream),
    Other,
}

/// What a standard stream is, with a duplicate of its descriptor to drive it.
#[cfg(unix)]
fn unix_fd(fd: std::os::fd::BorrowedFd<'_>) -> std::io::Result<Fd> {
    use std::os::unix::fs::FileTypeExt;
    let file = std::fs::File::from(fd.try_clone_to_owned()?);
    let kind = file.metadata()?.file_type();
    if kind.is_fifo() {
        Ok(Fd::Pipe(file))
    } else if kind.is_socket() {
        let socket = std::os::unix::net::UnixStream::from(std::os::fd::OwnedFd::from(file));
        socket.set_nonblocking(true)?;
        Ok(Fd::Socket(tokio::net::UnixStream::from_std(socket)?))
    } else {
        Ok(Fd::Other)
    }
}

#[cfg(not(unix))]
fn stdio() -> std::io::Result<(Input, Output)> {
    Ok((Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout())))
}

/// What is waiting to be written, in order. Writes are single `write` calls, so the loop
/// can read between them.
///
/// A response that follows notifications is held back a moment: the TypeScript SDK client
/// handles notifications in a microtask but responses at once, so progress that arrives in
/// the same read as its response is dropped as "unknown token". Held responses wait until
/// everything queued before them is written, then one gap, and go out together: one gap per
/// burst, not per response. Calls that send nothing pay nothing.
struct Outgoing<W> {
    sink: W,
    pending: Vec<u8>,
    written: usize,
    needs_flush: bool,
    /// `pending` holds a notification.
    pending_notifies: bool,
    /// When the last write carrying a notification finished.
    notified_at: Option<Instant>,
    /// Responses held back, with when they may go (`None`: once what is pending is out).
    held: VecDeque<(Vec<u8>, Option<Instant>)>,
    held_bytes: usize,
}

impl<W: AsyncWrite + Unpin> Outgoing<W> {
    fn new(sink: W) -> Self {
        Outgoing {
            sink,
            pending: Vec::with_capacity(BUFFER),
            written: 0,
            needs_flush: false,
            pending_notifies: false,
            notified_at: None,
            held: VecDeque::new(),
            held_bytes: 0,
        }
    }

    fn push(&mut self, line: outbox::Line) {
        let notification = match line.kind {
            outbox::Kind::Answer => false,
            outbox::Kind::Notification => true,
            // Markers for HTTP responses; a stdio stream has one connection.
            outbox::Kind::Pause | outbox::Kind::Unanswered => return,
        };
        let recent = self.notified_at.filter(|at| at.elapsed() < NOTIFICATION_GAP);
        if !notification && (self.pending_notifies || recent.is_some()) {
            let ready = if self.pending_notifies { None } else { recent.map(|at| at + NOTIFICATION_GAP) };
            self.held_bytes += line.bytes.len();
            self.held.push_back((line.bytes, ready));
            return;
        }
        self.pending.extend_from_slice(&line.bytes);
        self.pending_notifies |= notification;
    }

    fn has_work(&self) -> bool {
        self.written < self.pending.len() || self.needs_flush
    }

    fn is_idle(&self) -> bool {
        !self.has_work() && self.held.is_empty()
    }

    /// Bytes waiting to be written, held-back lines included.
    fn backlog(&self) -> usize {
        self.pending.len() - self.written + self.held_bytes
    }

    /// One write (or the flush after the last one).
    async fn write(&mut self) -> std::io::Result<()> {
        if self.written < self.pending.len() {
            let n = self.sink.write(&self.pending[self.written..]).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            self.written += n;
            if self.written == self.pending.len() {
                self.pending.clear();
                // One huge answer does not keep its buffer for the life of the connection.
                self.pending.shrink_to(4 * BUFFER);
                self.written = 0;
                self.needs_flush = true;
            }
            return Ok(());
        }
        self.sink.flush().await?;
        self.needs_flush = false;
        if std::mem::take(&mut self.pending_notifies) {
            let now = Instant::now();
            self.notified_at = Some(now);
            // Everything queued before the held responses is out: their gap starts now.
            for (_, ready) in &mut self.held {
                ready.get_or_insert(now + NOTIFICATION_GAP);
            }
        }
        Ok(())
    }

    /// When the first held response may go.
    fn gate(&self) -> Option<Instant> {
        self.held.front().and_then(|(_, ready)| *ready)
    }

    /// Moves every held response whose gap has passed to the lines being written.
    fn release(&mut self) {
        let now = Instant::now();
        while let Some((_, Some(ready))) = self.held.front()
            && *ready <= now
        {
            let Some((line, _)) = self.held.pop_front() else { break };
            self.held_bytes -= line.len();
            self.pending.extend_from_slice(&line);
        }
    }
}

enum Line {
    Data,
    Blank,
    TooLong,
    Eof,
}

/// Reads lines; `next` is cancel-safe (a line read halfway is kept for the next call).
struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    max: usize,
    /// The line being read is over the limit: it is skipped to its newline.
    too_long: bool,
    /// `buf` holds a line already returned.
    returned: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(input: R, max: usize) -> Self {
        LineReader {
            inner: BufReader::with_capacity(BUFFER, input),
            buf: Vec::new(),
            max,
            too_long: false,
            returned: false,
        }
    }

    fn current(&self) -> &[u8] {
        &self.buf
    }

    /// The next line into `self.buf`. A line over the limit is skipped to its newline
    /// without being kept.
    async fn next(&mut self) -> std::io::Result<Line> {
        if std::mem::take(&mut self.returned) {
            self.buf.clear();
            self.too_long = false;
        }
        loop {
            // The only await: state changes below happen together, after it.
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                let line = if self.too_long {
                    Line::TooLong
                } else if self.buf.is_empty() {
                    return Ok(Line::Eof);
                } else {
                    self.classify()
                };
                self.returned = true;
                return Ok(line);
            }
            let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !self.too_long {
                if self.buf.len() + chunk.len() > self.max {
                    self.too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = done.unwrap_or(available.len());
            self.inner.consume(used);
            if done.is_some() {
                self.returned = true;
                return Ok(if self.too_long { Line::TooLong } else { self.classify() });
            }
        }
    }

    /// Makes the next non-blank line current when it is already whole in the buffer (no
    /// read); whether there was one. A partial or over-long line is left for `next`.
    fn next_buffered(&mut self) -> bool {
        loop {
            if !self.returned || self.too_long {
                return false;
            }
            let available = self.inner.buffer();
            let Some(end) = available.iter().position(|&b| b == b'\n') else { return false };
            if end > self.max {
                return false;
            }
            self.buf.clear();
            self.buf.extend_from_slice(&available[..end]);
            self.inner.consume(end + 1);
            if let Line::Data = self.classify() {
                return true;
            }
        }
    }

    fn classify(&mut self) -> Line {
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        if self.buf.iter().all(u8::is_ascii_whitespace) { Line::Blank } else { Line::Data }
    }
}
