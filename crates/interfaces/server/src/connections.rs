//! The accept loop: serves each connection (HTTP/1.1 or HTTP/2, over TLS when configured) with
//! bounds a slow or idle client cannot outlast (issues #13 and #26):
//!
//! * at most `MAX_CONNECTIONS` open at once (fewer when the open-file limit cannot hold them,
//!   [`open_files`]), and `MAX_CONNECTIONS_PER_CLIENT` of one client address ([`clients`]). At
//!   a cap a new connection closes the connection idle the longest (of that client at its own
//!   cap), so idle sockets never lock a new client out. While every connection has a request in
//!   progress, nothing more is accepted until one ends (the operating system queues the
//!   others); a client whose every connection is busy has its new one closed at once. An accept
//!   error (too many open files…) is retried after a growing pause;
//! * `REQUEST_HEADER_TIMEOUT`: a request's headers must arrive within it, counted from the
//!   opening of the connection or the end of the previous response (hyper's header read timer;
//!   it also bounds a TLS handshake);
//! * `KEEPALIVE_TIMEOUT`: a connection without a request in progress for that long is closed
//!   (HTTP/2 too, and a connection that never sends anything);
//! * `LINGERING_CLOSE_TIMEOUT`: a request answered before its body was read (a 413) has the rest
//!   of its body read and discarded before the socket closes ([`linger`]), so every client gets
//!   the answer;
//! * shutdown: stop accepting, close idle connections, let requests in progress finish for up to
//!   the drain grace, then drop what is left.
//!
//! Handlers see the client's address as `ConnectInfo<SocketAddr>`, as with axum's own server.

mod clients;
mod linger;
mod open_files;

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use crate::guarded_body::Guarded;
use clients::{Admission, Client, ClientTable, Conn, InProgress, Registration};
pub(crate) use open_files::raise_open_file_limit;

/// The first pause after a failed accept; it doubles up to [`MAX_ACCEPT_PAUSE`].
const FIRST_ACCEPT_PAUSE: Duration = Duration::from_millis(10);
const MAX_ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// The connection bounds (from [`lightrag_config::RequestLimits`] and the open-file limit).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    pub max_connections: usize,
    /// `None`: no cap per client (`MAX_CONNECTIONS_PER_CLIENT` ≥ `max_connections`).
    pub max_per_client: Option<usize>,
    pub keepalive: Duration,
    pub header_timeout: Duration,
    pub lingering_close: Duration,
}

impl ConnectionLimits {
    /// The settings' bounds, `MAX_CONNECTIONS` lowered to what `open_files` (the open-file
    /// limit, `None` = unlimited) holds; logs the bounds in force.
    pub(crate) fn of(limits: &lightrag_config::RequestLimits, open_files: Option<u64>) -> Self {
        let max_connections = open_files::connection_cap(limits.max_connections, open_files);
        let per_client = limits.max_connections_per_client.unwrap_or(max_connections.div_ceil(2));
        let max_per_client = (per_client < max_connections).then_some(per_client);
        match max_per_client {
            Some(per_client) => tracing::info!(
                max_connections,
                per_client,
                "at most {max_connections} connections (MAX_CONNECTIONS), {per_client} per client address \
                 (MAX_CONNECTIONS_PER_CLIENT); at a cap the connection idle the longest is closed"
            ),
            None => tracing::info!(
                max_connections,
                "at most {max_connections} connections (MAX_CONNECTIONS), no cap per client address \
                 (MAX_CONNECTIONS_PER_CLIENT); at the cap the connection idle the longest is closed"
            ),
        }
        ConnectionLimits {
            max_connections,
            max_per_client,
            keepalive: Duration::from_secs(limits.keepalive_timeout_secs),
            header_timeout: Duration::from_secs(limits.header_timeout_secs),
            lingering_close: Duration::from_secs(limits.lingering_close_secs),
        }
    }
}

/// What every connection task shares.
struct Shared {
    builder: Builder<TokioExecutor>,
    router: Router,
    tls: Option<TlsAcceptor>,
    limits: ConnectionLimits,
    stop: CancellationToken,
}

/// Serves `listener` until `stop` is cancelled, then drains (see the module docs); returns once
/// every connection is closed or `drain` has passed.
pub(crate) async fn serve(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    router: Router,
    limits: ConnectionLimits,
    stop: CancellationToken,
    drain: Duration,
) {
    let mut builder = Builder::new(TokioExecutor::new());
    builder.http1().timer(TokioTimer::new()).header_read_timeout(limits.header_timeout).keep_alive(true);
    builder.http2().timer(TokioTimer::new());
    let shared = Arc::new(Shared { builder, router, tls, limits, stop: stop.clone() });
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let clients = ClientTable::new(limits.max_per_client);
    let mut connections = JoinSet::new();
    let mut pause = FIRST_ACCEPT_PAUSE;
    loop {
        while connections.try_join_next().is_some() {}
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, remote) = match accepted {
            Ok(accepted) => accepted,
            Err(e) if is_about_one_connection(&e) => continue,
            Err(e) => {
                tracing::warn!(error = %e, pause_ms = pause.as_millis() as u64, "cannot accept connections; retrying");
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(pause) => {}
                }
                pause = (pause * 2).min(MAX_ACCEPT_PAUSE);
                continue;
            }
        };
        pause = FIRST_ACCEPT_PAUSE;
        let client = Client::of(remote.ip());
        if let Admission::Refused { report } = clients.admit(client) {
            if let Some(refused) = report {
                tracing::warn!(
                    %client,
                    refused,
                    "refused {refused} connection(s) since the last report (the last from {client}): \
                     a client with MAX_CONNECTIONS_PER_CLIENT={} connections, each with a request in progress; raise \
                     MAX_CONNECTIONS_PER_CLIENT if one address serves many users (a reverse proxy)",
                    limits.max_per_client.unwrap_or(limits.max_connections)
                );
            }
            continue;
        }
        let Some(slot) = room(&slots, &clients, &stop, limits.max_connections).await else {
            break;
        };
        connections.spawn(connection(shared.clone(), stream, remote, slot, clients.register(client)));
    }
    drop(listener);
    let drained = tokio::time::timeout(drain, async { while connections.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        tracing::warn!(
            open = connections.len(),
            "requests still in progress after {} s of shutdown; closing their connections",
            drain.as_secs()
        );
        connections.shutdown().await;
    }
}

/// A connection slot: at once while one is free; at `MAX_CONNECTIONS`, once the connection
/// idle the longest has closed for it, or — while every connection has a request in progress —
/// once one ends or becomes idle. `None` when the server stops.
async fn room(
    slots: &Arc<Semaphore>,
    clients: &ClientTable,
    stop: &CancellationToken,
    max: usize,
) -> Option<OwnedSemaphorePermit> {
    loop {
        if let Ok(slot) = slots.clone().try_acquire_owned() {
            return Some(slot);
        }
        if let Some(closed) = clients.make_room() {
            tracing::warn!(
                closed,
                "MAX_CONNECTIONS={max} connections are open: closed {closed} idle connection(s) since the last \
                 report to admit new ones; raise MAX_CONNECTIONS if the machine has room"
            );
        }
        tokio::select! {
            () = stop.cancelled() => return None,
            slot = slots.clone().acquire_owned() => return slot.ok(),
            () = clients.became_idle() => {}
        }
    }
}

/// An accept error that concerns only the connection being accepted (try the next one at once).
fn is_about_one_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::Interrupted
    )
}

/// One connection, holding its `slot` of `MAX_CONNECTIONS` and its place in the client table
/// until it closes.
async fn connection(
    shared: Arc<Shared>,
    stream: TcpStream,
    remote: SocketAddr,
    _slot: OwnedSemaphorePermit,
    registration: Registration,
) {
    let conn = registration.conn();
    let Some(acceptor) = shared.tls.clone() else {
        return serve_connection(&shared, stream, remote, conn).await;
    };
    let handshake = tokio::select! {
        () = shared.stop.cancelled() => return,
        () = conn.evicted().cancelled() => return,
        handshake = tokio::time::timeout(shared.limits.header_timeout, acceptor.accept(stream)) => handshake,
    };
    match handshake {
        Ok(Ok(tls)) => serve_connection(&shared, tls, remote, conn).await,
        Ok(Err(e)) => tracing::debug!(%remote, error = %e, "TLS handshake failed"),
        Err(_) => tracing::debug!(%remote, "TLS handshake not finished within REQUEST_HEADER_TIMEOUT"),
    }
}

/// Serves the requests of one connection until the client closes it, it stays idle for
/// `KEEPALIVE_TIMEOUT`, a header timeout ends it, it is closed to make room, or the server
/// stops; lingers afterwards when its last request's body was left unread.
async fn serve_connection<I>(shared: &Shared, io: I, remote: SocketAddr, conn: &Arc<Conn>)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (io, returned) = linger::Returned::new(io);
    let unread = Arc::new(AtomicBool::new(false));
    let service = {
        let (conn, unread, router) = (conn.clone(), unread.clone(), shared.router.clone());
        hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let in_progress = InProgress::begin(&conn);
            unread.store(false, Relaxed);
            let mut request = request.map(|body| linger::Watched::new(body, unread.clone()));
            request.extensions_mut().insert(ConnectInfo(remote));
            let router = router.clone();
            async move {
                let response = router.oneshot(request).await?;
                Ok::<_, Infallible>(response.map(|body| Guarded::wrap(body, in_progress)))
            }
        })
    };
    let mut connection = Box::pin(shared.builder.serve_connection(TokioIo::new(io), service));
    let idle = idle_for(conn.watch_busy(), shared.limits.keepalive);
    tokio::pin!(idle);
    let mut closing = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(%remote, error = %e, "connection ended");
                }
                break;
            }
            () = shared.stop.cancelled(), if !closing => {
                if conn.is_idle() {
                    // hyper would wait for a half-sent request head until REQUEST_HEADER_TIMEOUT
                    return;
                }
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
            () = conn.evicted().cancelled(), if !closing => {
                if conn.is_idle() {
                    tracing::debug!(%remote, "closing the connection idle the longest to make room");
                    return;
                }
                // a request began as it was picked: it finishes first
                conn.busy_when_evicted();
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
            () = &mut idle, if !closing => {
                tracing::debug!(%remote, "closing a connection idle for KEEPALIVE_TIMEOUT");
                connection.as_mut().graceful_shutdown();
                closing = true;
            }
        }
    }
    drop(connection);
    if closing || !unread.load(Relaxed) {
        return;
    }
    let Ok(io) = returned.await else {
        return;
    };
    tokio::select! {
        () = shared.stop.cancelled() => {}
        () = conn.evicted().cancelled() => {}
        () = linger::discard(io, shared.limits.lingering_close, shared.limits.keepalive) => {}
    }
}

/// Resolves once no request has been in progress for `keepalive`.
async fn idle_for(mut busy: watch::Receiver<usize>, keepalive: Duration) {
    loop {
        if busy.wait_for(|n| *n == 0).await.is_err() {
            return std::future::pending().await;
        }
        match tokio::time::timeout(keepalive, busy.changed()).await {
            Err(_) => return,
            Ok(Ok(())) => {}
            Ok(Err(_)) => return std::future::pending().await,
        }
    }
}
