//! A real `redis-server` for the tests that need a shared state store.
//!
//! [`Redis::shared`] is the one `scripts/test.sh` started (`MCP_TEST_REDIS_URL`), or, when the
//! tests run on their own, one started for the test. [`Redis::start`] always starts one of its
//! own, which a test may stop and start again on the same port. Without `redis-server` on the
//! `PATH` (Debian: `apt-get install redis-server`), both panic saying so: these tests never
//! pass by skipping.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` this process started, killed when dropped.
pub struct Redis {
    port: u16,
    child: Option<Child>,
}

impl Redis {
    /// A fresh `redis-server` on a free loopback port, with no persistence.
    pub fn start() -> Redis {
        let mut redis = Redis { port: crate::http::free_port(), child: None };
        redis.restart();
        redis
    }

    /// A Redis for a test that only uses it: the one `scripts/test.sh` started
    /// (`MCP_TEST_REDIS_URL`, shared by every test, never stopped here), else one of its own
    /// (stopped when dropped, like [`Redis::start`]'s).
    pub fn shared() -> Redis {
        let Ok(url) = std::env::var("MCP_TEST_REDIS_URL") else { return Redis::start() };
        assert!(ping(&url), "MCP_TEST_REDIS_URL={url} does not answer PING");
        let port = url.rsplit(':').next().and_then(|p| p.trim_end_matches('/').parse().ok());
        Redis {
            port: port.unwrap_or_else(|| panic!("MCP_TEST_REDIS_URL={url} is not redis://127.0.0.1:<port>")),
            child: None,
        }
    }

    /// `redis://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Stops the server (its data is gone: nothing is persisted). A shared Redis this process
    /// did not start is left alone.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stalls the server (`SIGSTOP`): it holds its connections and answers nothing until
    /// [`Redis::resume`]. Only a server this process started can be paused.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused server go on (`SIGCONT`): it answers what it was sent meanwhile.
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, signal: &str) {
        let child = self.child.as_ref().expect("a redis-server this process started (Redis::start)");
        let status = Command::new("kill").args([signal, &child.id().to_string()]).status();
        assert!(
            status.as_ref().is_ok_and(std::process::ExitStatus::success),
            "kill {signal} redis-server failed: {status:?}"
        );
    }

    /// Starts the server again on the same port, and waits until it answers `PING`.
    pub fn restart(&mut self) {
        self.stop();
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start redis-server ({e}): install it (Debian: apt-get install redis-server), or run scripts/test.sh, which does")
            });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !ping(&self.url()) {
            assert!(Instant::now() < deadline, "redis-server did not answer PING on port {} within 10 s", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether the Redis at `url` (`redis://host:port`) answers `PING`.
pub fn ping(url: &str) -> bool {
    let address = url.trim_start_matches("redis://").split('/').next().unwrap_or_default();
    let Ok(mut stream) = TcpStream::connect(address) else { return false };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    if stream.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).is_ok() && line.starts_with("+PONG")
}
