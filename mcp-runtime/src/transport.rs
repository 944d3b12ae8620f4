//! stdio: newline-delimited JSON-RPC in and out, in one loop. The reader caps line length
//! without buffering an oversized line, runs each `tools/call` until it first waits and
//! then in its own task, and on EOF gives in-flight calls their grace before it flushes and
//! returns.
//!
//! Memory stays bounded whatever the client does. Reading pauses while 64 KiB of answers
//! wait to be written (a client that does not read its output is not answered faster than
//! it reads). Calls beyond the in-flight cap wait in a queue, and reading goes on (so a
//! cancellation still arrives) until the queued calls' lines add up to the line cap.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use crate::jsonrpc;
use crate::server::{Error, Server};
use crate::session::{Next, Session};

const BUFFER: usize = 64 * 1024;
/// The pause between flushing notifications and writing a response that follows them.
const NOTIFICATION_GAP: std::time::Duration = std::time::Duration::from_millis(2);

impl Server {
    /// Serves on stdin/stdout until EOF on stdin. Logs go to stderr.
    ///
    /// When stdin and stdout are pipes or sockets (as when a client launches the server),
    /// they are read and written directly by the runtime's event loop; otherwise (a
    /// terminal, a file) through tokio's blocking stdio.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let (input, output) = stdio()?;
        self.serve(input, output).await
    }

    /// Serves newline-delimited JSON-RPC on any byte streams until EOF on `input`.
    ///
    /// One loop reads lines and writes what the session queued, so an answer computed on
    /// the reader's turn goes out without waking another task.
    pub async fn serve<R, W>(self, input: R, output: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let options = self.shared.options.clone();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let session = Arc::new(Session::new(Arc::clone(&self.shared), Some(tx)));
        let slots = Arc::new(Semaphore::new(options.max_in_flight));
        let mut calls = JoinSet::new();
        let mut lines = LineReader::new(input, options.max_line_bytes);
        let mut out = Outgoing::new(output);
        // Calls read while every slot was taken, with the bytes of their lines.
        let mut queued = Queue::default();
        // Set at EOF: until then in-flight calls may finish.
        let mut grace_end: Option<tokio::time::Instant> = None;

        loop {
            if grace_end.is_some() && calls.is_empty() && queued.is_empty() && rx.is_empty() && out.is_idle() {
                break;
            }
            let gate = out.gate();
            let read = grace_end.is_none() && out.backlog() < BUFFER && queued.bytes < options.max_queued_bytes;
            tokio::select! {
                biased;
                line = lines.next(), if read => match line {
                    Ok(Line::Eof) => grace_end = Some(tokio::time::Instant::now() + options.eof_grace),
                    Ok(Line::TooLong) => session.send(jsonrpc::failure(
                        &Value::Null,
                        -32600,
                        &format!("Invalid request: line longer than {} bytes", options.max_line_bytes),
                    )),
                    Ok(Line::Blank) => {}
                    Ok(Line::Data) => {
                        if let Next::Call { id, req, cancel } = session.handle(lines.current()) {
                            let call = Box::pin(Arc::clone(&session).run_call(id, req, cancel));
                            match Arc::clone(&slots).try_acquire_owned() {
                                Ok(slot) if queued.is_empty() => start(call, slot, &mut calls).await,
                                _ => queued.push(call, lines.current().len()),
                            }
                        }
                    }
                    Err(e) => {
                        tracing::error!(error = %e, "reading stdin failed; shutting down");
                        grace_end = Some(tokio::time::Instant::now() + options.eof_grace);
                    }
                },
                Some(line) = rx.recv() => {
                    out.push(line);
                    while let Ok(line) = rx.try_recv() {
                        out.push(line);
                    }
                }
                written = out.write(), if out.has_work() => written?,
                () = tokio::time::sleep_until(gate.unwrap_or_else(tokio::time::Instant::now)), if gate.is_some() => {
                    out.release();
                }
                Ok(slot) = Arc::clone(&slots).acquire_owned(), if !queued.is_empty() => {
                    if let Some(call) = queued.pop() {
                        start(call, slot, &mut calls).await;
                    }
                }
                Some(_) = calls.join_next(), if !calls.is_empty() => {}
                () = tokio::time::sleep_until(grace_end.unwrap_or_else(tokio::time::Instant::now)),
                    if grace_end.is_some() && !(calls.is_empty() && queued.is_empty()) =>
                {
                    let unfinished = calls.len() + queued.calls.len();
                    tracing::warn!(unfinished, grace = ?options.eof_grace, "EOF grace over; dropping unfinished calls");
                    queued = Queue::default();
                    calls.shutdown().await;
                }
            }
        }
        Ok(())
    }
}

type Call = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// Runs a call here until it first waits: most calls never do, and are answered without a
/// hand-off to another task. One that waits continues in its own task, holding its slot, so
/// it blocks nothing.
async fn start(mut call: Call, slot: tokio::sync::OwnedSemaphorePermit, calls: &mut JoinSet<()>) {
    let first = std::future::poll_fn(|cx| std::task::Poll::Ready(call.as_mut().poll(cx)));
    if first.await.is_pending() {
        calls.spawn(async move {
            let _slot = slot;
            call.await;
        });
    }
}

/// Calls waiting for a slot, oldest first, with the length of the lines they came from.
#[derive(Default)]
struct Queue {
    calls: std::collections::VecDeque<(Call, usize)>,
    bytes: usize,
}

impl Queue {
    fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    fn push(&mut self, call: Call, bytes: usize) {
        self.calls.push_back((call, bytes));
        self.bytes += bytes;
    }

    fn pop(&mut self) -> Option<Call> {
        let (call, bytes) = self.calls.pop_front()?;
        self.bytes -= bytes;
        Some(call)
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
/// Notifications followed by a response are written on their own, and the response (with
/// what follows it) is held back a moment: the TypeScript SDK client handles notifications
/// in a microtask but responses at once, so progress that arrives in the same read as its
/// response is dropped as "unknown token". Calls that send nothing pay nothing.
struct Outgoing<W> {
    sink: W,
    pending: Vec<u8>,
    written: usize,
    needs_flush: bool,
    /// `pending` holds a notification.
    pending_notifies: bool,
    /// When the last write carrying a notification finished.
    notified_at: Option<tokio::time::Instant>,
    /// Lines held back until the gap after notifications has passed.
    held: std::collections::VecDeque<Vec<u8>>,
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
            held: std::collections::VecDeque::new(),
        }
    }

    fn push(&mut self, line: Vec<u8>) {
        let notification = line.starts_with(jsonrpc::NOTIFICATION_PREFIX);
        let after_notifications =
            self.pending_notifies || self.notified_at.is_some_and(|at| at.elapsed() < NOTIFICATION_GAP);
        if !self.held.is_empty() || (!notification && after_notifications) {
            self.held.push_back(line);
            return;
        }
        self.pending.extend_from_slice(&line);
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
        self.pending.len() - self.written + self.held.iter().map(Vec::len).sum::<usize>()
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
                self.written = 0;
                self.needs_flush = true;
            }
            return Ok(());
        }
        self.sink.flush().await?;
        self.needs_flush = false;
        if std::mem::take(&mut self.pending_notifies) {
            self.notified_at = Some(tokio::time::Instant::now());
        }
        Ok(())
    }

    /// When held-back lines may go: once everything before them is out, the gap after the
    /// last notifications has passed.
    fn gate(&self) -> Option<tokio::time::Instant> {
        (!self.held.is_empty() && !self.has_work())
            .then(|| self.notified_at.map_or_else(tokio::time::Instant::now, |at| at + NOTIFICATION_GAP))
    }

    fn release(&mut self) {
        self.notified_at = None;
        for line in std::mem::take(&mut self.held) {
            self.push(line);
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

    fn classify(&mut self) -> Line {
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        if self.buf.iter().all(u8::is_ascii_whitespace) { Line::Blank } else { Line::Data }
    }
}
