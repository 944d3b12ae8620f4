//! A real nginx in front of replicas, for the deployment tests: `tests/deploy/nginx.conf`
//! (the file `docs/http.md` shows) with its ports replaced by the run's, in a main
//! configuration that keeps the pid file, the logs and the temporary files in a directory of
//! its own. Without nginx (Debian: `apt-get install nginx`), [`Nginx::start`] panics saying
//! so: these tests never pass by skipping.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The configuration CI runs, as `docs/http.md` shows it.
pub const CONFIG: &str = include_str!("../deploy/nginx.conf");

/// The addresses [`CONFIG`] is written with: where nginx listens, and the two replicas.
const LISTEN: &str = "listen 127.0.0.1:8080;";
const REPLICAS: [&str; 2] = ["server 127.0.0.1:8081 ", "server 127.0.0.1:8082 "];

/// An nginx this process started (master and workers), stopped when dropped.
pub struct Nginx {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl Nginx {
    /// nginx on a free loopback port, proxying `/mcp` to the replicas on loopback ports
    /// `replicas` with [`CONFIG`]. Waits until it accepts connections.
    pub fn start(replicas: [u16; 2]) -> Nginx {
        let port = crate::http::free_port();
        let dir = std::env::temp_dir().join(format!("mcp-nginx-{}-{port}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        std::fs::write(dir.join("mcp.conf"), config(port, replicas)).expect("write mcp.conf");
        let path = |name: &str| dir.join(name).display().to_string();
        let main = format!(
            "daemon off;\nworker_processes 2;\npid {pid};\nerror_log {error} notice;\nevents {{ worker_connections 1024; }}\n\
             http {{\n    log_format upstreams '$status $upstream_addr $upstream_status';\n    access_log {access} upstreams;\n\
             \x20   client_body_temp_path {temp}/body;\n    proxy_temp_path {temp}/proxy;\n    fastcgi_temp_path {temp}/fastcgi;\n\
             \x20   uwsgi_temp_path {temp}/uwsgi;\n    scgi_temp_path {temp}/scgi;\n    include {conf};\n}}\n",
            pid = path("nginx.pid"),
            error = path("error.log"),
            access = path("access.log"),
            temp = dir.display(),
            conf = path("mcp.conf"),
        );
        std::fs::write(dir.join("nginx.conf"), main).expect("write nginx.conf");
        let binary =
            ["/usr/sbin/nginx", "/usr/local/sbin/nginx"].into_iter().find(|p| Path::new(p).exists()).unwrap_or("nginx");
        let child = Command::new(binary)
            .args(["-p", &path(""), "-c", &path("nginx.conf"), "-e", &path("error.log")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start nginx ({e}): install it (Debian: apt-get install nginx), or run scripts/test.sh, which does")
            });
        let mut nginx = Nginx { port, dir, child: Some(child) };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            let exited = nginx.child.as_mut().and_then(|c| c.try_wait().ok().flatten());
            assert!(exited.is_none(), "nginx exited ({exited:?}); its error log:\n{}", nginx.error_log());
            assert!(Instant::now() < deadline, "nginx did not listen on {port} within 10 s:\n{}", nginx.error_log());
            std::thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    /// The port nginx listens on (loopback).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// nginx's error log so far.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
    }

    /// The access log so far: one line a request, `<status> <upstream_addr> <upstream_status>`
    /// (several upstreams, comma-separated, when nginx tried the next one).
    pub fn access_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("access.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGTERM: the master stops its workers (SIGKILL would leave them serving).
            let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
            let deadline = Instant::now() + Duration::from_secs(5);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// [`CONFIG`] listening on `port`, in front of `replicas`.
fn config(port: u16, replicas: [u16; 2]) -> String {
    let mut config = CONFIG.to_owned();
    let mut replace = |from: &str, to: String| {
        assert_eq!(config.matches(from).count(), 1, "tests/deploy/nginx.conf names {from:?} once");
        config = config.replace(from, &to);
    };
    replace(LISTEN, format!("listen 127.0.0.1:{port};"));
    for (from, replica) in REPLICAS.into_iter().zip(replicas) {
        replace(from, format!("server 127.0.0.1:{replica} "));
    }
    config
}
