//! `lightrag serve` as a real process on a free port, for the end-to-end tests.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Kb;

/// The server process; killed if the test fails half-way.
pub struct Server {
    pub child: Child,
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Starts `lightrag serve` on a free port with `args` and waits until `/health` answers.
    pub async fn start(kb: &Kb, args: &[&str], scheme: &str, client: &reqwest::Client) -> Server {
        Self::start_with_env(kb, args, &[], scheme, client).await
    }

    /// [`Server::start`] with extra environment variables for the server process.
    pub async fn start_with_env(
        kb: &Kb,
        args: &[&str],
        env: &[(&str, &str)],
        scheme: &str,
        client: &reqwest::Client,
    ) -> Server {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = kb
            .cmd()
            .envs(env.iter().copied())
            .args(["serve", "--host", "127.0.0.1", "--port", &port.to_string()])
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut server = Server { child, base: format!("{scheme}://127.0.0.1:{port}") };
        let deadline = Instant::now() + Duration::from_secs(60);
        while client.get(server.url("/health")).send().await.is_err() {
            assert!(server.child.try_wait().unwrap().is_none(), "server exited early");
            assert!(Instant::now() < deadline, "server did not come up");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        server
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// SIGTERM, then the exit status must be success within 30 s.
    pub async fn stop(mut self) {
        let pid = self.child.id().to_string();
        assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "server did not stop after SIGTERM");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert!(status.success(), "{status:?}");
    }
}

pub async fn get_json(client: &reqwest::Client, url: &str) -> Value {
    let reply = client.get(url).send().await.unwrap();
    assert!(reply.status().is_success(), "GET {url}: {}", reply.status());
    reply.json().await.unwrap()
}

/// A multipart body with one `file` field (reqwest is built without its multipart feature).
pub fn multipart(name: &str, content: &[u8]) -> (String, Vec<u8>) {
    let boundary = "lightrag-test-boundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: text/plain\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(content);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}
