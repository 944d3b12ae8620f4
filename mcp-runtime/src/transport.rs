//! stdio: newline-delimited JSON-RPC in, one writer task out. The reader caps line length
//! without buffering an oversized line, runs each `tools/call` until it first waits and
//! then in its own task (bounded by the in-flight cap: when it is reached, reading pauses),
//! and on EOF gives in-flight calls their grace before it flushes and returns.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
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
    pub async fn serve<R, W>(self, input: R, output: W) -> Result<(), Error>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let options = self.shared.options.clone();
        let (tx, rx) = mpsc::unbounded_channel();
        let writer = tokio::spawn(write_loop(output, rx));
        let session = Arc::new(Session::new(Arc::clone(&self.shared), Some(tx)));
        let slots = Arc::new(Semaphore::new(options.max_in_flight));
        let mut calls = JoinSet::new();
        let mut lines = LineReader::new(input, options.max_line_bytes);

        loop {
            let line = match lines.next().await {
                Ok(line) => line,
                Err(e) => {
                    tracing::error!(error = %e, "reading stdin failed; shutting down");
                    break;
                }
            };
            match line {
                Line::Eof => break,
                Line::TooLong => session.send(jsonrpc::failure(
                    &Value::Null,
                    -32600,
                    &format!("Invalid request: line longer than {} bytes", options.max_line_bytes),
                )),
                Line::Blank => {}
                Line::Data => {
                    if let Next::Call { id, req, cancel } = session.handle(lines.current()) {
                        let Ok(slot) = Arc::clone(&slots).acquire_owned().await else { break };
                        let mut call = Box::pin(Arc::clone(&session).run_call(id, req, cancel));
                        // Run the call here until it first waits: most calls never do, and
                        // are answered without a hand-off to another task. One that waits
                        // continues in its own task, so it blocks nothing.
                        if std::future::poll_fn(|cx| std::task::Poll::Ready(call.as_mut().poll(cx))).await.is_pending()
                        {
                            calls.spawn(async move {
                                let _slot = slot;
                                call.await;
                            });
                        }
                    }
                }
            }
            while calls.try_join_next().is_some() {}
        }

        let drained =
            tokio::time::timeout(options.eof_grace, async { while calls.join_next().await.is_some() {} }).await;
        if drained.is_err() {
            tracing::warn!(unfinished = calls.len(), grace = ?options.eof_grace, "EOF grace over; dropping unfinished calls");
            calls.shutdown().await;
        }
        drop(session);
        match writer.await {
            Ok(result) => result.map_err(Error::Io),
            Err(e) => Err(Error::Io(std::io::Error::other(e))),
        }
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

/// Writes every queued line, flushing when the queue is drained, so a burst of responses
/// costs one write. Notifications queued before a response are flushed on their own, and
/// the response follows a moment later: the TypeScript SDK client handles notifications in
/// a microtask but responses at once, so progress that arrives in the same read as its
/// response is dropped as "unknown token". Calls that send nothing pay nothing.
async fn write_loop<W: AsyncWrite + Unpin>(output: W, mut rx: mpsc::UnboundedReceiver<Vec<u8>>) -> std::io::Result<()> {
    let mut out = BufWriter::with_capacity(BUFFER, output);
    // When notifications were last flushed, while no response has followed them yet.
    let mut notified_at: Option<std::time::Instant> = None;
    while let Some(first) = rx.recv().await {
        let mut notified = false;
        let mut next = Some(first);
        while let Some(line) = next {
            let is_notification = line.starts_with(jsonrpc::NOTIFICATION_PREFIX);
            if !is_notification {
                if notified {
                    out.flush().await?;
                    notified_at = Some(std::time::Instant::now());
                    notified = false;
                }
                if let Some(at) = notified_at.take() {
                    let wait = NOTIFICATION_GAP.saturating_sub(at.elapsed());
                    if !wait.is_zero() {
                        tokio::time::sleep(wait).await;
                    }
                }
            }
            out.write_all(&line).await?;
            notified |= is_notification;
            next = rx.try_recv().ok();
        }
        out.flush().await?;
        if notified {
            notified_at = Some(std::time::Instant::now());
        }
    }
    out.flush().await
}

enum Line {
    Data,
    Blank,
    TooLong,
    Eof,
}

struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(input: R, max: usize) -> Self {
        LineReader { inner: BufReader::with_capacity(BUFFER, input), buf: Vec::new(), max }
    }

    fn current(&self) -> &[u8] {
        &self.buf
    }

    /// The next line into `self.buf`. A line over the limit is skipped to its newline
    /// without being kept.
    async fn next(&mut self) -> std::io::Result<Line> {
        self.buf.clear();
        let mut too_long = false;
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                return Ok(if too_long {
                    Line::TooLong
                } else if self.buf.is_empty() {
                    Line::Eof
                } else {
                    self.classify()
                });
            }
            let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
                Some(i) => (&available[..i], Some(i + 1)),
                None => (available, None),
            };
            if !too_long {
                if self.buf.len() + chunk.len() > self.max {
                    too_long = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = done.unwrap_or(available.len());
            self.inner.consume(used);
            if done.is_some() {
                return Ok(if too_long { Line::TooLong } else { self.classify() });
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
