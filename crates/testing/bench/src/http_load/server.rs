//! The `lightrag serve` process under test: spawned on a free loopback port with the scripted
//! LLM for chat and embeddings, watched through `/proc/<pid>/status`, stopped with SIGTERM.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::procstat::status_kib;

/// A running server; killed when dropped before [`ServerProcess::stop`].
pub struct ServerProcess {
    child: Child,
    base: String,
    log: PathBuf,
}

/// Where the server keeps its files and which model it talks to.
pub struct ServerSetup<'a> {
    /// The `lightrag` binary.
    pub bin: &'a Path,
    /// Holds `rag/` (WORKING_DIR), `inputs/` (INPUT_DIR), the HOME and `server.log`.
    pub dir: &'a Path,
    /// Base URL of the scripted OpenAI-compatible server.
    pub llm_base: &'a str,
    /// Embedding dimension the scripted server answers with.
    pub dim: usize,
    /// Extra settings, `NAME=VALUE`.
    pub sets: &'a [(String, String)],
}

impl ServerProcess {
    /// Spawns `bin serve` on a free port of 127.0.0.1 and waits (up to a minute) until `/health`
    /// answers.
    pub async fn start(setup: &ServerSetup<'_>, client: &reqwest::Client) -> Result<ServerProcess> {
        if !setup.bin.is_file() {
            bail!(
                "no lightrag binary at {}; build it (cargo build --release -p lightrag-cli) or pass --bin PATH",
                setup.bin.display()
            );
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .context("cannot find a free port on 127.0.0.1")?
            .port();
        let log = setup.dir.join("server.log");
        let log_file = File::create(&log).with_context(|| format!("cannot create {}", log.display()))?;
        let mut cmd = Command::new(setup.bin);
        cmd.current_dir(setup.dir)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", setup.dir)
            .env("LLM_BINDING", "openai")
            .env("LLM_BINDING_HOST", setup.llm_base)
            .env("LLM_MODEL", "scripted")
            .env("EMBEDDING_BINDING", "openai")
            .env("EMBEDDING_BINDING_HOST", setup.llm_base)
            .env("EMBEDDING_MODEL", "scripted")
            .env("EMBEDDING_DIM", setup.dim.to_string())
            .env("WORKING_DIR", setup.dir.join("rag"))
            .env("INPUT_DIR", setup.dir.join("inputs"));
        for (name, value) in setup.sets {
            cmd.env(name, value);
        }
        let child = cmd
            .args(["serve", "--host", "127.0.0.1", "--port", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log_file)
            .spawn()
            .with_context(|| format!("cannot start {}", setup.bin.display()))?;
        let mut server = ServerProcess { child, base: format!("http://127.0.0.1:{port}"), log };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if client.get(server.url("/health")).send().await.is_ok_and(|r| r.status().is_success()) {
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait().context("cannot wait for the server")? {
                bail!("the server exited at start ({status}); see {}", server.log.display());
            }
            if Instant::now() > deadline {
                bail!("the server did not answer /health within 60 s; see {}", server.log.display());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The server's stderr log.
    pub fn log(&self) -> &Path {
        &self.log
    }

    /// `None` while running, else how it ended.
    pub fn exited(&mut self) -> Option<String> {
        self.child.try_wait().ok().flatten().map(|s| s.to_string())
    }

    /// SIGTERM, then waits up to 30 s for the exit (killed after that). Returns the exit status.
    pub async fn stop(mut self) -> Result<String> {
        if let Some(status) = self.exited() {
            return Ok(format!("had exited before the stop: {status}"));
        }
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().context("cannot run kill")?;
        if !sent.success() {
            bail!("kill -TERM {pid} failed");
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = self.exited() {
                return Ok(status);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                bail!("the server did not stop within 30 s of SIGTERM (killed); see {}", self.log.display());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.exited().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Resident memory (`VmRSS`) of process `pid` in KiB, if `/proc` has it.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status_kib(&status, "VmRSS:")
}
