//! A real `redis-server` for the tests that need a shared state store.
//!
//! [`Redis::shared`] is the one `scripts/test.sh` started (`MCP_TEST_REDIS_URL`), or, when the
//! tests run on their own, one started for the test. [`Redis::start`] always starts one of its
//! own, which a test may stop and start again on the same port. [`Redis::start_tls`] starts
//! one that speaks TLS only, with a CA and a certificate `openssl` makes for it;
//! [`Redis::start_cluster`], a Redis Cluster of three masters. Without `redis-server` on the
//! `PATH` (Debian: `apt-get install redis-server`), or `openssl` for TLS, they panic saying
//! so: these tests never pass by skipping.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` this process started (or several: a cluster's), killed when dropped.
pub struct Redis {
    port: u16,
    child: Option<Child>,
    /// Speaks TLS only, with the CA and certificate in `dir`.
    tls: bool,
    /// Over TLS, asks clients for a certificate.
    client_auth: bool,
    /// A temporary directory of its own (certificates, a cluster's node files), removed
    /// when dropped.
    dir: Option<PathBuf>,
    /// A cluster's other masters.
    others: Vec<Redis>,
    /// A cluster node's `nodes.conf`, which a restart keeps: the node comes back into the
    /// cluster with its slots (and no data).
    cluster_conf: Option<PathBuf>,
}

impl Redis {
    /// A fresh `redis-server` on a free loopback port, with no persistence.
    pub fn start() -> Redis {
        let mut redis = Redis {
            port: crate::http::free_port(),
            child: None,
            tls: false,
            client_auth: false,
            dir: None,
            others: Vec::new(),
            cluster_conf: None,
        };
        redis.restart();
        redis
    }

    /// A fresh `redis-server` that speaks TLS only (`rediss://`), with a certificate for
    /// 127.0.0.1 signed by a CA of its own ([`Redis::ca`]), made with `openssl` in a
    /// temporary directory. Clients need no certificate.
    pub fn start_tls() -> Redis {
        Redis::tls(false)
    }

    /// [`Redis::start_tls`]'s, but asking every client for a certificate its CA signed
    /// (`--tls-auth-clients yes`): [`Redis::client_certificate`] is one.
    pub fn start_tls_asking_for_client_certificates() -> Redis {
        Redis::tls(true)
    }

    fn tls(client_auth: bool) -> Redis {
        let port = crate::http::free_port();
        let dir = std::env::temp_dir().join(format!("mcp-redis-tls-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let openssl = |args: &str| {
            let args: Vec<&str> = args.split_whitespace().collect();
            let output =
                Command::new("openssl").args(&args).current_dir(&dir).output().unwrap_or_else(|e| {
                    panic!("cannot run openssl ({e}): install it (Debian: apt-get install openssl)")
                });
            assert!(output.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&output.stderr));
        };
        openssl("req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=mcp-test-CA -keyout ca.key -out ca.pem");
        std::fs::write(dir.join("server.ext"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
            .expect("write server.ext");
        std::fs::write(dir.join("client.ext"), "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n")
            .expect("write client.ext");
        for (name, subject) in [("server", "127.0.0.1"), ("client", "mcp-test-client")] {
            openssl(&format!("req -newkey rsa:2048 -nodes -subj /CN={subject} -keyout {name}.key -out {name}.csr"));
            openssl(&format!(
                "x509 -req -in {name}.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile {name}.ext -out {name}.pem"
            ));
        }
        let mut redis =
            Redis { port, child: None, tls: true, client_auth, dir: Some(dir), others: Vec::new(), cluster_conf: None };
        redis.restart();
        redis
    }

    /// A certificate and its key (PEM files) that a TLS Redis of this module accepts from a
    /// client.
    pub fn client_certificate(&self) -> Option<(PathBuf, PathBuf)> {
        self.dir.as_ref().filter(|_| self.tls).map(|dir| (dir.join("client.pem"), dir.join("client.key")))
    }

    /// A fresh Redis Cluster: three masters on free loopback ports, no replicas, every slot
    /// assigned (`redis-cli --cluster create`), answering `cluster_state:ok` on every node.
    /// [`Redis::url`] lists the three nodes, separated by commas.
    pub fn start_cluster() -> Redis {
        let dir =
            std::env::temp_dir().join(format!("mcp-redis-cluster-{}-{}", std::process::id(), crate::http::free_port()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let mut nodes: Vec<Redis> = (0..3)
            .map(|_| {
                let port = crate::http::free_port();
                let cluster_conf = Some(dir.join(format!("nodes-{port}.conf")));
                let mut node = Redis {
                    port,
                    child: None,
                    tls: false,
                    client_auth: false,
                    dir: None,
                    others: Vec::new(),
                    cluster_conf,
                };
                node.restart();
                node
            })
            .collect();
        let addresses: Vec<String> = nodes.iter().map(|n| format!("127.0.0.1:{}", n.port)).collect();
        let output = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .unwrap_or_else(|e| panic!("cannot run redis-cli ({e}): install redis-tools"));
        assert!(output.status.success(), "redis-cli --cluster create: {}", String::from_utf8_lossy(&output.stdout));
        let mut first = nodes.remove(0);
        first.others = nodes;
        first.dir = Some(dir);
        first.wait_until_cluster_ok();
        first
    }

    /// Waits until every node of a cluster says `cluster_state:ok` (20 s at most).
    fn wait_until_cluster_ok(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        for node in std::iter::once(self).chain(&self.others) {
            loop {
                let info = Command::new("redis-cli").args(["-p", &node.port.to_string(), "cluster", "info"]).output();
                if info.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("cluster_state:ok")) {
                    break;
                }
                assert!(Instant::now() < deadline, "the cluster was not ok within 20 s");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// The port (a cluster's: its first node's).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The PEM file of the CA that signed a TLS Redis's certificate ([`Redis::start_tls`]).
    pub fn ca(&self) -> Option<PathBuf> {
        self.dir.as_ref().filter(|_| self.tls).map(|dir| dir.join("ca.pem"))
    }

    /// What a `fixture-server` needs to use this Redis: `FIXTURE_STATE_STORE`, and
    /// `FIXTURE_REDIS_CA` for a TLS one.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let mut env = vec![("FIXTURE_STATE_STORE", self.url())];
        if let Some(ca) = self.ca() {
            env.push(("FIXTURE_REDIS_CA", ca.to_string_lossy().into_owned()));
        }
        env
    }

    /// A `RedisStore` on this Redis (trusting its CA, for a TLS one).
    pub fn store(&self) -> mcp_runtime::RedisStore {
        store(&self.url(), self.ca().as_deref()).unwrap_or_else(|e| panic!("a store on {}: {e}", self.url()))
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
            tls: false,
            client_auth: false,
            dir: None,
            others: Vec::new(),
            cluster_conf: None,
        }
    }

    /// `redis://127.0.0.1:<port>` (`rediss://` for a TLS Redis; a cluster's three nodes,
    /// separated by commas).
    pub fn url(&self) -> String {
        let scheme = if self.tls { "rediss" } else { "redis" };
        std::iter::once(self.port)
            .chain(self.others.iter().map(|n| n.port))
            .map(|port| format!("{scheme}://127.0.0.1:{port}"))
            .collect::<Vec<_>>()
            .join(",")
    }

    /// Stops the server (its data is gone: nothing is persisted). A shared Redis this process
    /// did not start is left alone.
    pub fn stop(&mut self) {
        for other in &mut self.others {
            other.stop();
        }
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

    /// Starts the server again on the same port, and waits until it answers (`PING`, or,
    /// over TLS, a TCP connection; a cluster: every node, and `cluster_state:ok`).
    pub fn restart(&mut self) {
        self.stop();
        for other in &mut self.others {
            other.restart();
        }
        let port = self.port.to_string();
        let mut args = vec!["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"];
        let conf = self.cluster_conf.as_ref().map(|c| c.to_string_lossy().into_owned());
        if let Some(conf) = &conf {
            args.extend(["--cluster-enabled", "yes", "--cluster-config-file", conf, "--cluster-node-timeout", "2000"]);
        }
        let files: Vec<String>;
        if let Some(dir) = self.dir.as_ref().filter(|_| self.tls) {
            files = ["server.pem", "server.key", "ca.pem"]
                .iter()
                .map(|f| dir.join(f).to_string_lossy().into_owned())
                .collect();
            args.extend([
                "--port",
                "0",
                "--tls-port",
                &port,
                "--tls-cert-file",
                &files[0],
                "--tls-key-file",
                &files[1],
            ]);
            args.extend([
                "--tls-ca-cert-file",
                &files[2],
                "--tls-auth-clients",
                if self.client_auth { "yes" } else { "no" },
            ]);
        } else {
            args.extend(["--port", &port]);
        }
        self.child = Some(spawn_redis(&args));
        self.wait_until_up();
        if !self.others.is_empty() {
            self.wait_until_cluster_ok();
        }
    }

    fn wait_until_up(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let up = if self.tls {
                TcpStream::connect(("127.0.0.1", self.port)).is_ok()
            } else {
                ping(&format!("redis://127.0.0.1:{}", self.port))
            };
            if up {
                return;
            }
            assert!(Instant::now() < deadline, "redis-server did not answer on port {} within 10 s", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A `redis-server` with these arguments, its output discarded.
fn spawn_redis(args: &[&str]) -> Child {
    Command::new("redis-server")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("cannot start redis-server ({e}): install it (Debian: apt-get install redis-server), or run scripts/test.sh, which does")
        })
}

/// The `RedisStore` of `url` (one Redis, or a cluster's nodes separated by commas), trusting
/// the CA in the PEM file `ca` if given: what `fixture-server` makes of `FIXTURE_STATE_STORE`
/// and `FIXTURE_REDIS_CA`.
pub fn store(url: &str, ca: Option<&Path>) -> Result<mcp_runtime::RedisStore, String> {
    let store = mcp_runtime::RedisStore::open(url).map_err(|e| e.to_string())?;
    let Some(ca) = ca else { return Ok(store) };
    let pem = std::fs::read(ca).map_err(|e| format!("cannot read the CA file {}: {e}", ca.display()))?;
    store.with_tls(&mcp_runtime::RedisTls::new().ca_pem(pem)).map_err(|e| e.to_string())
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
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
