//! The accept loop: serves each connection (HTTP/1.1 or HTTP/2, over TLS when configured) with
//! bounds a slow or idle client cannot outlast (issue #13):
//!
//! * at most `MAX_CONNECTIONS` open at once: at the cap nothing more is accepted until one closes
//!   (the operating system queues the others), so the server never runs out of file
//!   descriptors; an accept error (too many open files…) is retried after a growing pause;
//! * `REQUEST_HEADER_TIMEOUT`: a request's headers must arrive within it, counted from the
//!   opening of the connection or the end of the previous response (hyper's header read timer;
//!   it also bounds a TLS handshake);
//! * `KEEPALIVE_TIMEOUT`: a connection without a request in progress for that long is closed
//!   (HTTP/2 too, and a connection that never sends anything);
//! * shutdown: stop accepting, close idle connections, let requests in progress finish for up to
//!   the drain grace, then drop what is left.
//!
//! Handlers see the client's address as `ConnectInfo<SocketAddr>`, as with axum's own server.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
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

/// The first pause after a failed accept; it doubles up to [`MAX_ACCEPT_PAUSE`].
const FIRST_ACCEPT_PAUSE: Duration = Duration::from_millis(10);
const MAX_ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// The connection bounds (from [`lightrag_app::RequestLimits`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionLimits {
    pub max_connections: usize,
    pub keepalive: Duration,
    pub header_timeout: Duration,
}

impl ConnectionLimits {
    pub(crate) fn of(limits: &lightrag_app::RequestLimits) -> Self {
        ConnectionLimits {
            max_connections: limits.max_connections,
            keepalive: Duration::from_secs(limits.keepalive_timeout_secs),
            header_timeout: Duration::from_secs(limits.header_timeout_secs),
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
    let mut connections = JoinSet::new();
    let mut pause = FIRST_ACCEPT_PAUSE;
    loop {
        while connections.try_join_next().is_some() {}
        let slot = tokio::select! {
            () = stop.cancelled() => break,
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
        };
        let accepted = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, remote)) => {
                pause = FIRST_ACCEPT_PAUSE;
                connections.spawn(connection(shared.clone(), stream, remote, slot));
            }
            Err(e) if is_about_one_connection(&e) => {}
            Err(e) => {
                tracing::warn!(error = %e, pause_ms = pause.as_millis() as u64, "cannot accept connections; retrying");
                tokio::select! {
                    () = stop.cancelled() => break,
                    () = tokio::time::sleep(pause) => {}
                }
                pause = (pause * 2).min(MAX_ACCEPT_PAUSE);
            }
        }
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

/// One connection, holding its `slot` of `MAX_CONNECTIONS` until it closes.
async fn connection(shared: Arc<Shared>, stream: TcpStream, remote: SocketAddr, _slot: OwnedSemaphorePermit) {
    let Some(acceptor) = shared.tls.clone() else {
        return serve_connection(&shared, stream, remote).await;
    };
    let handshake = tokio::select! {
        () = shared.stop.cancelled() => return,
        handshake = tokio::time::timeout(shared.limits.header_timeout, acceptor.accept(stream)) => handshake,
    };
    match handshake {
        Ok(Ok(tls)) => serve_connection(&shared, tls, remote).await,
        Ok(Err(e)) => tracing::debug!(%remote, error = %e, "TLS handshake failed"),
        Err(_) => tracing::debug!(%remote, "TLS handshake not finished within REQUEST_HEADER_TIMEOUT"),
    }
}

/// Serves the requests of one connection until the client closes it, it stays idle for
/// `KEEPALIVE_TIMEOUT`, a header timeout ends it, or the server stops.
async fn serve_connection<I>(shared: &Shared, io: I, remote: SocketAddr)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (busy, watch_busy) = watch::channel(0usize);
    let busy = Arc::new(busy);
    let router = shared.router.clone();
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(remote));
        let in_progress = InProgress::begin(busy.clone());
        let router = router.clone();
        async move {
            let response = router.oneshot(request).await?;
            Ok::<_, Infallible>(response.map(|body| Guarded::wrap(body, in_progress)))
        }
    });
    let connection = shared.builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(connection);
    let idle = idle_for(watch_busy, shared.limits.keepalive);
    tokio::pin!(idle);
    let mut closing = false;
    loop {
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(%remote, error = %e, "connection ended");
                }
                return;
            }
            () = shared.stop.cancelled(), if !closing => {
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
}

/// Marks one request of a connection as in progress until dropped (with its response body).
struct InProgress(Arc<watch::Sender<usize>>);

impl InProgress {
    fn begin(busy: Arc<watch::Sender<usize>>) -> Self {
        busy.send_modify(|n| *n += 1);
        InProgress(busy)
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
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

/// Raises the soft limit of open files to the hard limit (a server's sockets, the stores' files),
/// so `MAX_CONNECTIONS` fits; logs and goes on when it cannot.
pub(crate) fn raise_open_file_limit() {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current.is_none() || limit.current == limit.maximum {
        return;
    }
    let raised = Rlimit { current: limit.maximum, maximum: limit.maximum };
    match setrlimit(Resource::Nofile, raised) {
        Ok(()) => tracing::debug!(from = ?limit.current, to = ?limit.maximum, "raised the open-file limit"),
        Err(e) => tracing::debug!(error = %e, "the open-file limit could not be raised"),
    }
}
