//! The socket bounds of `lightrag serve` (issue #13: idle connections stayed open forever, and
//! enough of them used up the file descriptors until `/health` stopped answering): the server
//! runs on `127.0.0.1:0` and raw TCP clients play the slow and idle parts.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer};
use lightrag_server::ServerError;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long a test waits for something that must happen (far above the timeouts under test).
const PATIENCE: Duration = Duration::from_secs(15);

struct Running {
    addr: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<Result<(), ServerError>>,
    _llm: ScriptedServer,
    _dir: tempfile::TempDir,
}

impl Running {
    async fn start(extra: &[(&str, &str)]) -> Running {
        let llm = ScriptedLlm::start(ScriptConfig::default()).await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let extra = extra.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let settings = crate::common::settings(&llm, dir.path(), extra);
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(lightrag_server::serve_on(listener, settings, async move {
            let _ = stopped.await;
        }));
        Running { addr, stop, task, _llm: llm, _dir: dir }
    }

    async fn connect(&self) -> TcpStream {
        TcpStream::connect(self.addr).await.unwrap()
    }

    /// Shuts the server down; it must return `Ok` with connections still open.
    async fn stop(self) {
        self.stop.send(()).unwrap();
        let result = tokio::time::timeout(PATIENCE, self.task).await.expect("the server did not stop");
        result.unwrap().unwrap();
    }
}

const HEALTH: &[u8] = b"GET /health HTTP/1.1\r\nHost: test\r\n\r\n";

/// Reads one response (head and `Content-Length` body); returns its status line.
async fn response(stream: &mut TcpStream) -> String {
    let mut buf = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let length = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_string()))
                .map_or(0, |v| v.parse::<usize>().unwrap());
            if buf.len() >= end + 4 + length {
                return head.lines().next().unwrap().to_string();
            }
        }
        let mut chunk = [0u8; 8192];
        let left = deadline.saturating_duration_since(Instant::now());
        let n = tokio::time::timeout(left, stream.read(&mut chunk)).await.expect("no response").unwrap();
        assert!(n > 0, "the connection closed before the response was complete");
        buf.extend_from_slice(&chunk[..n]);
    }
}

async fn health(stream: &mut TcpStream) -> String {
    stream.write_all(HEALTH).await.unwrap();
    response(stream).await
}

/// Whether the server closes the connection within `patience` (whatever it sends first).
async fn closed_within(stream: &mut TcpStream, patience: Duration) -> bool {
    let deadline = Instant::now() + patience;
    let mut chunk = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut chunk)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            Ok(Ok(_)) => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_connection_is_closed_after_the_idle_timeout() {
    let server = Running::start(&[("KEEPALIVE_TIMEOUT", "1"), ("REQUEST_HEADER_TIMEOUT", "600")]).await;
    let mut kept = server.connect().await;
    assert_eq!(health(&mut kept).await, "HTTP/1.1 200 OK");
    assert_eq!(health(&mut kept).await, "HTTP/1.1 200 OK", "the connection is kept alive between requests");
    assert!(closed_within(&mut kept, PATIENCE).await, "an idle keep-alive connection stayed open");
    // one that never sends a byte is closed as well
    let mut silent = server.connect().await;
    assert!(closed_within(&mut silent, PATIENCE).await, "a silent connection stayed open");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_half_a_header_is_dropped_after_the_header_timeout() {
    let server = Running::start(&[("REQUEST_HEADER_TIMEOUT", "1"), ("KEEPALIVE_TIMEOUT", "600")]).await;
    let mut half = server.connect().await;
    half.write_all(b"GET /health HTTP/1.1\r\nHost: te").await.unwrap();
    assert!(closed_within(&mut half, PATIENCE).await, "a half-sent header kept its connection");
    // trickling a byte at a time does not keep it open either: the timeout is for the whole head
    let mut drip = server.connect().await;
    drip.write_all(b"GET /health HTTP/1.1\r\n").await.unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        assert!(Instant::now() < deadline, "a trickled header kept its connection");
        if drip.write_all(b"X").await.is_err() || closed_within(&mut drip, Duration::from_millis(200)).await {
            break;
        }
    }
    // a normal client is still served
    let mut client = server.connect().await;
    assert_eq!(health(&mut client).await, "HTTP/1.1 200 OK");
    server.stop().await;
}

/// Regression guard for the TLS path: a client that opens a connection to the HTTPS server and
/// never completes its handshake (silent, or half a ClientHello) is dropped after
/// `REQUEST_HEADER_TIMEOUT`, not kept until the (here much longer) idle timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_handshake_that_never_completes_is_dropped_after_the_header_timeout() {
    let certs = tempfile::tempdir().unwrap();
    let cert = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let (cert_path, key_path) = (certs.path().join("cert.pem"), certs.path().join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    let server = Running::start(&[
        ("SSL", "true"),
        ("SSL_CERTFILE", &cert_path.to_string_lossy()),
        ("SSL_KEYFILE", &key_path.to_string_lossy()),
        ("REQUEST_HEADER_TIMEOUT", "1"),
        ("KEEPALIVE_TIMEOUT", "600"),
    ])
    .await;
    let mut silent = server.connect().await;
    // PATIENCE (15 s) is far below KEEPALIVE_TIMEOUT: only the handshake bound can close it in time
    assert!(closed_within(&mut silent, PATIENCE).await, "a connection without a handshake stayed open");
    // the first bytes of a ClientHello (record header announcing 512 bytes), then nothing
    let mut half = server.connect().await;
    half.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00]).await.unwrap();
    assert!(closed_within(&mut half, PATIENCE).await, "a half-sent ClientHello kept its connection");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_max_connections_a_connection_waits_until_one_closes() {
    let server = Running::start(&[("MAX_CONNECTIONS", "2"), ("KEEPALIVE_TIMEOUT", "600")]).await;
    let mut first = server.connect().await;
    let mut second = server.connect().await;
    assert_eq!(health(&mut first).await, "HTTP/1.1 200 OK");
    assert_eq!(health(&mut second).await, "HTTP/1.1 200 OK");
    let mut third = server.connect().await;
    third.write_all(HEALTH).await.unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_secs(1), third.read(&mut byte)).await;
    assert!(early.is_err(), "a third connection was served while MAX_CONNECTIONS=2 were open: {early:?}");
    drop(first);
    assert_eq!(response(&mut third).await, "HTTP/1.1 200 OK");
    drop(second);
    let mut fourth = server.connect().await;
    assert_eq!(health(&mut fourth).await, "HTTP/1.1 200 OK");
    // shutdown closes the idle connections still open and returns
    server.stop().await;
}
