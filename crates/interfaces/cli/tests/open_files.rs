//! Regression (issue #26): `lightrag serve` and the open-file limit. The soft limit was raised at
//! start-up without a word in the log, and nothing related `MAX_CONNECTIONS` (512) to the limit
//! reached: under a lower limit, idle sockets used up the descriptors before the cap, accepting
//! failed, and `/health` stopped answering. The server runs under `ulimit` (a shell sets it and
//! execs the binary).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Kb;

/// How long a test waits for something that must happen.
const PATIENCE: Duration = Duration::from_secs(60);

/// `lightrag serve` under a `ulimit`, its log lines collected; killed when dropped.
struct Limited {
    child: Child,
    base: String,
    log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Limited {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Limited {
    /// Starts the server on a free port after `ulimit {ulimit}`, with `env` on top of the
    /// scripted models', and waits until it listens.
    async fn start(kb: &Kb, ulimit: &str, env: &[(&str, &str)]) -> Limited {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let lightrag = kb.cmd();
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!("ulimit {ulimit} && exec \"$0\" serve --host 127.0.0.1 --port {port}"))
            .arg(lightrag.get_program())
            .env_clear()
            .envs(lightrag.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(dir) = lightrag.get_current_dir() {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                lines.lock().unwrap().push(line);
            }
        });
        let mut server = Limited { child, base: format!("http://127.0.0.1:{port}"), log };
        let deadline = Instant::now() + PATIENCE;
        while !server.log().contains("listening on") {
            assert!(server.child.try_wait().unwrap().is_none(), "the server exited: {}", server.log());
            assert!(Instant::now() < deadline, "the server did not start: {}", server.log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        server
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().join("\n")
    }
}

/// The raise is logged with the limits before and after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_open_file_limit_is_raised_at_start_and_logged() {
    let kb = Kb::new();
    let server = Limited::start(&kb, "-S -n 256", &[]).await;
    let log = server.log();
    assert!(log.contains("raised the open-file limit from 256 to"), "{log}");
}

/// Under a hard limit of 256 descriptors, 300 idle sockets (`MAX_CONNECTIONS` 512, idle and
/// header timeouts far away) do not take the server off the air: connections are capped below
/// the limit (with a warning) and a new client's `/health` closes the one idle the longest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_cannot_use_up_a_low_open_file_limit() {
    let kb = Kb::new();
    let env = [("KEEPALIVE_TIMEOUT", "600"), ("REQUEST_HEADER_TIMEOUT", "600")];
    let server = Limited::start(&kb, "-n 256", &env).await;
    let log = server.log();
    assert!(log.contains("does not fit the open-file limit 256"), "{log}");
    let address = server.base.trim_start_matches("http://").to_string();
    let mut idle = Vec::new();
    for _ in 0..300 {
        idle.push(tokio::net::TcpStream::connect(&address).await.unwrap());
    }
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder().timeout(Duration::from_secs(15)).build().unwrap();
    let reply = client.get(format!("{}/health", server.base)).send().await;
    let status = reply.map(|r| r.status().as_u16());
    assert!(matches!(status, Ok(200)), "/health under 300 idle sockets: {status:?}\n{}", server.log());
    assert!(!server.log().contains("cannot accept connections"), "the server ran out of descriptors: {}", server.log());
}
