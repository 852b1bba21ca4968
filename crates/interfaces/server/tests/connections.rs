//! The socket bounds of `lightrag serve` (issue #13: idle connections stayed open forever, and
//! enough of them used up the file descriptors until `/health` stopped answering; issue #26: at
//! `MAX_CONNECTIONS` idle sockets still locked new clients out, and a body over the limit was
//! refused by cutting the connection): the server runs on `127.0.0.1:0` and raw TCP clients play
//! the slow, idle and oversized parts.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use lightrag_scripted_llm::{ScriptConfig, ScriptedLlm, ScriptedServer};
use lightrag_server::ServerError;
use serde_json::{Value, json};
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
    response_with_body(stream).await.0
}

/// Reads one response (head and `Content-Length` body); returns its status line and body.
async fn response_with_body(stream: &mut TcpStream) -> (String, Vec<u8>) {
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
                let body = buf[end + 4..end + 4 + length].to_vec();
                return (head.lines().next().unwrap().to_string(), body);
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

/// The body a busy request is waiting for: a bypass query padded to its declared length.
const QUERY: &str = r#"{"query": "Who is Ada?", "mode": "bypass"}"#;
const QUERY_LENGTH: usize = 64;

/// A connection with a request in progress: a query whose head has been answered with
/// `100 Continue` (so the server is reading its body) and whose body has not been sent.
async fn busy(server: &Running) -> TcpStream {
    let mut stream = server.connect().await;
    let head = format!(
        "POST /query HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {QUERY_LENGTH}\r\n\
         Expect: 100-continue\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    assert_eq!(response(&mut stream).await, "HTTP/1.1 100 Continue", "the request did not begin");
    stream
}

/// Sends the body [`busy`] left out and reads the answer; the connection is then idle.
async fn finish(stream: &mut TcpStream) -> String {
    stream.write_all(format!("{QUERY:<QUERY_LENGTH$}").as_bytes()).await.unwrap();
    response(stream).await
}

/// At `MAX_CONNECTIONS` with a request in progress on every connection, a new connection waits
/// (the operating system queues it); once one of them has answered and is idle, it is closed
/// for the waiting one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_max_connections_a_connection_waits_while_every_connection_is_busy() {
    let server = Running::start(&[
        ("MAX_CONNECTIONS", "2"),
        ("MAX_CONNECTIONS_PER_CLIENT", "2"),
        ("KEEPALIVE_TIMEOUT", "600"),
        ("REQUEST_HEADER_TIMEOUT", "600"),
    ])
    .await;
    let mut first = busy(&server).await;
    let mut second = busy(&server).await;
    let mut third = server.connect().await;
    third.write_all(HEALTH).await.unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_secs(1), third.read(&mut byte)).await;
    assert!(early.is_err(), "a third connection was served while MAX_CONNECTIONS=2 were busy: {early:?}");
    assert_eq!(finish(&mut first).await, "HTTP/1.1 200 OK");
    assert_eq!(response(&mut third).await, "HTTP/1.1 200 OK");
    assert!(closed_within(&mut first, PATIENCE).await, "the idle connection was not closed for the new one");
    assert_eq!(finish(&mut second).await, "HTTP/1.1 200 OK", "a busy connection is never closed to make room");
    // shutdown closes the idle connections still open and returns
    server.stop().await;
}

/// Regression (#26): at `MAX_CONNECTIONS` nothing more was accepted until a connection closed,
/// so one client holding idle sockets (640 under a 1,024-descriptor limit) made `/health` time
/// out for everyone. Now a new connection closes the one idle the longest.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sockets_of_one_client_do_not_lock_out_others() {
    let server = Running::start(&[
        ("MAX_CONNECTIONS", "4"),
        ("MAX_CONNECTIONS_PER_CLIENT", "4"),
        ("KEEPALIVE_TIMEOUT", "600"),
        ("REQUEST_HEADER_TIMEOUT", "600"),
    ])
    .await;
    let mut idle = Vec::new();
    for i in 0..12 {
        let mut socket = server.connect().await;
        if i % 2 == 1 {
            // half a request head: still idle (no request in progress)
            socket.write_all(b"GET /health HTTP/1.1\r\nHo").await.unwrap();
        }
        idle.push(socket);
    }
    let mut client = server.connect().await;
    assert_eq!(health(&mut client).await, "HTTP/1.1 200 OK", "a new client was locked out by idle sockets");
    assert_eq!(health(&mut client).await, "HTTP/1.1 200 OK");
    for (i, socket) in idle.iter_mut().take(9).enumerate() {
        assert!(closed_within(socket, PATIENCE).await, "idle socket {i} (of the oldest) was kept open");
    }
    server.stop().await;
}

/// Regression (#26): one address could hold every connection. Past `MAX_CONNECTIONS_PER_CLIENT`
/// a client's new connection closes that client's own connection idle the longest; its busy
/// connections are left to finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_past_its_connection_cap_loses_its_own_longest_idle_connection() {
    let server = Running::start(&[
        ("MAX_CONNECTIONS", "16"),
        ("MAX_CONNECTIONS_PER_CLIENT", "3"),
        ("KEEPALIVE_TIMEOUT", "600"),
        ("REQUEST_HEADER_TIMEOUT", "600"),
    ])
    .await;
    let mut working = busy(&server).await;
    let mut oldest = server.connect().await;
    let mut older = server.connect().await;
    let mut newest = server.connect().await;
    assert_eq!(health(&mut newest).await, "HTTP/1.1 200 OK");
    assert!(closed_within(&mut oldest, PATIENCE).await, "the client's connection idle the longest was kept");
    let mut another = server.connect().await;
    assert_eq!(health(&mut another).await, "HTTP/1.1 200 OK");
    assert!(closed_within(&mut older, PATIENCE).await, "the next idle one was kept");
    assert_eq!(finish(&mut working).await, "HTTP/1.1 200 OK", "a busy connection was closed to make room");
    server.stop().await;
}

/// Past `MAX_CONNECTIONS_PER_CLIENT`, while each of the client's connections has a request in
/// progress, its new connection is closed at once; once one of them is idle, it makes room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_whose_connections_are_all_busy_has_its_new_one_closed() {
    let server = Running::start(&[
        ("MAX_CONNECTIONS", "16"),
        ("MAX_CONNECTIONS_PER_CLIENT", "2"),
        ("KEEPALIVE_TIMEOUT", "600"),
        ("REQUEST_HEADER_TIMEOUT", "600"),
    ])
    .await;
    let mut first = busy(&server).await;
    let mut second = busy(&server).await;
    let mut refused = server.connect().await;
    assert!(closed_within(&mut refused, PATIENCE).await, "a connection past the client's cap was kept");
    assert_eq!(finish(&mut first).await, "HTTP/1.1 200 OK");
    let mut next = server.connect().await;
    assert_eq!(health(&mut next).await, "HTTP/1.1 200 OK");
    assert!(closed_within(&mut first, PATIENCE).await, "the idle connection was not closed for the new one");
    assert_eq!(finish(&mut second).await, "HTTP/1.1 200 OK");
    server.stop().await;
}

const MB: usize = 1_000_000;

/// Writes a whole request (head, then all of `body`) before reading anything, as Python's
/// `http.client` and `requests` do; returns the status line and the JSON body of the answer.
async fn post_then_read(
    server: &Running,
    route: &str,
    content_type: &str,
    body: &[u8],
    chunked: bool,
) -> (String, Value) {
    let mut stream = server.connect().await;
    let framing =
        if chunked { "Transfer-Encoding: chunked".to_string() } else { format!("Content-Length: {}", body.len()) };
    let head = format!("POST {route} HTTP/1.1\r\nHost: test\r\nContent-Type: {content_type}\r\n{framing}\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    let written = if chunked {
        stream.write_all(format!("{:x}\r\n", body.len()).as_bytes()).await.unwrap();
        stream.write_all(body).await.and(stream.write_all(b"\r\n0\r\n\r\n").await)
    } else {
        stream.write_all(body).await
    };
    if let Err(e) = written {
        panic!("{route}: the server cut the connection while the body was being sent: {e}");
    }
    let (status, body) = response_with_body(&mut stream).await;
    let json = serde_json::from_slice(&body)
        .unwrap_or_else(|e| panic!("{route}: not JSON ({e}): {}", String::from_utf8_lossy(&body)));
    (status, json)
}

/// Regression (#26): a body over the limit was refused by closing the socket with the rest of
/// the body unread: the reset it caused reached a client still writing (Python's `http.client`,
/// `requests`) as a broken pipe, without the 413. Now the rest is read and discarded and every
/// client gets the JSON 413.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_body_sent_in_full_before_reading_gets_the_json_413() {
    let server = Running::start(&[]).await;
    let description = "d".repeat(20 * MB);
    let edit = json!({"entity_name": "Ada", "updated_data": {"description": description}}).to_string();
    let form = format!("username=a&password={}", "p".repeat(20 * MB));
    let cases = [
        ("/graph/entity/edit", "application/json", edit.as_bytes(), false),
        ("/login", "application/x-www-form-urlencoded", form.as_bytes(), false),
        // without a declared length the form reader stops at the limit, with the rest unread
        ("/login", "application/x-www-form-urlencoded", form.as_bytes(), true),
    ];
    for (route, content_type, body, chunked) in cases {
        let (status, json) = post_then_read(&server, route, content_type, body, chunked).await;
        assert_eq!(status, "HTTP/1.1 413 Payload Too Large", "{route} (chunked: {chunked}): {json}");
        let detail = json["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("MAX_JSON_BODY_SIZE"), "{route} (chunked: {chunked}): {json}");
    }
    // the server still answers afterwards
    let mut client = server.connect().await;
    assert_eq!(health(&mut client).await, "HTTP/1.1 200 OK");
    server.stop().await;
}
