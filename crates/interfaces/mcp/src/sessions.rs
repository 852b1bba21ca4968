//! Bounded sessions and event streams of the streamable-HTTP transport.
//!
//! The SDK's [`LocalSessionManager`] keeps every session (~64 KiB each) until it has been idle
//! for 5 minutes, however many a client opens. [`Sessions`] wraps it with caps, per client and
//! in all ([`SessionLimits`]):
//!
//! * a new session is admitted by [`Sessions::reserve_session`] before the request reaches the
//!   SDK: at a client's cap the client's own session idle the longest is evicted, at the server's
//!   cap the one idle the longest of any client; a session with a request or an event stream in
//!   progress is never evicted, and when every candidate is busy the new session is refused. An
//!   evicted session is closed: its next request gets the SDK's 404 "Session not found", which
//!   tells a client to initialize again;
//! * an event stream (`GET /mcp`) is admitted by [`Sessions::open_stream`] and holds its
//!   [`StreamPermit`] until it ends; a stream that carries no message for
//!   [`SessionLimits::stream_idle_timeout`] ends (keep-alive pings do not count).
//!
//! Who "a client" is, is the server's business: it tells with a [`ClientKey`]. The counters behind
//! [`Sessions::stats`] feed the server's metrics.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::Stream;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, LocalSessionManagerError};
use rmcp::transport::streamable_http_server::session::{ServerSseMessage, SessionId};

/// The caps of [`Sessions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// Sessions open at once (`MCP_MAX_SESSIONS`).
    pub max_sessions: usize,
    /// Sessions of one client (`MCP_MAX_SESSIONS_PER_CLIENT`).
    pub max_sessions_per_client: usize,
    /// Event streams open at once (`MCP_MAX_STREAMS`).
    pub max_streams: usize,
    /// Event streams of one client (`MCP_MAX_STREAMS_PER_CLIENT`).
    pub max_streams_per_client: usize,
    /// How long an event stream may go without a message (`MCP_STREAM_IDLE_TIMEOUT`).
    pub stream_idle_timeout: Duration,
}

/// Who a request comes from (an account, an address…), as the server in front decides.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClientKey(Arc<str>);

impl ClientKey {
    /// The client named `name`.
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        ClientKey(name.into())
    }
}

impl std::fmt::Display for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a session or a stream was refused; the message names the setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// The client is at its own cap and none of its sessions (streams) can make room.
    #[error(
        "this client already has {limit} MCP {what} in use ({setting}); end one (DELETE /mcp) or retry \
         when one is idle"
    )]
    Client {
        /// `sessions` or `event streams`.
        what: &'static str,
        /// The setting.
        setting: &'static str,
        /// Its value.
        limit: usize,
    },
    /// The server is at its cap and nothing can make room.
    #[error("the server has {limit} MCP {what} in use ({setting}); retry shortly or raise {setting}")]
    Server {
        /// `sessions` or `event streams`.
        what: &'static str,
        /// The setting.
        setting: &'static str,
        /// Its value.
        limit: usize,
    },
}

/// What [`Sessions`] has counted, for the metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Sessions open (and admitted, about to open).
    pub sessions: u64,
    /// Event streams open.
    pub streams: u64,
    /// Sessions closed to make room for a new one.
    pub sessions_evicted: u64,
    /// New sessions refused at a client's cap.
    pub sessions_refused_client: u64,
    /// New sessions refused at the server's cap.
    pub sessions_refused_server: u64,
    /// Event streams refused at a client's cap.
    pub streams_refused_client: u64,
    /// Event streams refused at the server's cap.
    pub streams_refused_server: u64,
    /// Event streams closed after their idle timeout.
    pub streams_idle_closed: u64,
}

/// One open session.
struct Entry {
    client: ClientKey,
    /// When a request or stream of it last began or ended.
    last_active: Instant,
    /// Requests and streams of it in progress.
    busy: usize,
}

/// The sessions and streams, by client.
#[derive(Default)]
struct Registry {
    sessions: HashMap<SessionId, Entry>,
    /// Sessions per client, with the reserved ones.
    sessions_of: HashMap<ClientKey, usize>,
    /// Sessions admitted whose `initialize` has not reached the manager yet.
    reserved: usize,
    streams_of: HashMap<ClientKey, usize>,
    streams: usize,
}

fn decrement(map: &mut HashMap<ClientKey, usize>, client: &ClientKey) {
    if let Some(n) = map.get_mut(client) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(client);
        }
    }
}

impl Registry {
    fn session_count(&self) -> usize {
        self.sessions.len() + self.reserved
    }

    /// The session idle the longest (of `client`, or of anyone), if one is idle.
    fn oldest_idle(&self, client: Option<&ClientKey>) -> Option<SessionId> {
        self.sessions
            .iter()
            .filter(|(_, e)| e.busy == 0 && client.is_none_or(|c| &e.client == c))
            .min_by_key(|(_, e)| e.last_active)
            .map(|(id, _)| id.clone())
    }

    fn remove(&mut self, id: &SessionId) -> bool {
        match self.sessions.remove(id) {
            Some(entry) => {
                decrement(&mut self.sessions_of, &entry.client);
                true
            }
            None => false,
        }
    }
}

#[derive(Default)]
struct Counters {
    evicted: AtomicU64,
    sessions_refused_client: AtomicU64,
    sessions_refused_server: AtomicU64,
    streams_refused_client: AtomicU64,
    streams_refused_server: AtomicU64,
    idle_closed: AtomicU64,
}

struct Shared {
    limits: SessionLimits,
    inner: LocalSessionManager,
    registry: Mutex<Registry>,
    counters: Counters,
}

impl Shared {
    fn registry(&self) -> MutexGuard<'_, Registry> {
        // the registry holds counts only; one that panicked mid-update is still usable
        self.registry.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks a request or stream of `id` begun (`+1`) or ended (`-1`).
    fn mark(&self, id: &SessionId, begun: bool) {
        if let Some(entry) = self.registry().sessions.get_mut(id) {
            entry.busy = if begun { entry.busy + 1 } else { entry.busy.saturating_sub(1) };
            entry.last_active = Instant::now();
        }
    }
}

/// The session manager of the `/mcp` service: the SDK's, bounded (see the module). Cheap to
/// clone; every clone shares the sessions.
#[derive(Clone)]
pub struct Sessions {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions").field("limits", &self.shared.limits).finish_non_exhaustive()
    }
}

/// Admits one new session: put it in the extensions of the `initialize` request (the SDK hands
/// them to the manager). Dropped unused, it gives its place back.
#[derive(Clone)]
pub struct SessionTicket(Arc<TicketInner>);

struct TicketInner {
    shared: Arc<Shared>,
    client: ClientKey,
    claimed: AtomicBool,
}

impl TicketInner {
    /// Takes the reservation (once); `false` when it was already taken.
    fn claim(&self) -> bool {
        !self.claimed.swap(true, Ordering::AcqRel)
    }
}

impl Drop for TicketInner {
    fn drop(&mut self) {
        if self.claim() {
            let mut registry = self.shared.registry();
            registry.reserved = registry.reserved.saturating_sub(1);
            decrement(&mut registry.sessions_of, &self.client);
        }
    }
}

/// One open event stream; hold it until the stream ends.
pub struct StreamPermit {
    shared: Arc<Shared>,
    client: ClientKey,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut registry = self.shared.registry();
        registry.streams = registry.streams.saturating_sub(1);
        decrement(&mut registry.streams_of, &self.client);
    }
}

impl Sessions {
    /// Sessions under `limits`.
    pub fn new(limits: SessionLimits) -> Self {
        Sessions {
            shared: Arc::new(Shared {
                limits,
                inner: LocalSessionManager::default(),
                registry: Mutex::new(Registry::default()),
                counters: Counters::default(),
            }),
        }
    }

    /// The caps.
    pub fn limits(&self) -> SessionLimits {
        self.shared.limits
    }

    /// Admits a new session of `client`, evicting the session idle the longest when a cap is
    /// reached (see the module), or refuses it.
    pub async fn reserve_session(&self, client: &ClientKey) -> Result<SessionTicket, Refusal> {
        let limits = self.shared.limits;
        let counters = &self.shared.counters;
        let victim = {
            let mut registry = self.shared.registry();
            let own = registry.sessions_of.get(client).copied().unwrap_or(0);
            let victim = if own >= limits.max_sessions_per_client {
                let Some(victim) = registry.oldest_idle(Some(client)) else {
                    counters.sessions_refused_client.fetch_add(1, Ordering::Relaxed);
                    return Err(Refusal::Client {
                        what: "sessions",
                        setting: "MCP_MAX_SESSIONS_PER_CLIENT",
                        limit: limits.max_sessions_per_client,
                    });
                };
                Some(victim)
            } else if registry.session_count() >= limits.max_sessions {
                let Some(victim) = registry.oldest_idle(None) else {
                    counters.sessions_refused_server.fetch_add(1, Ordering::Relaxed);
                    return Err(Refusal::Server {
                        what: "sessions",
                        setting: "MCP_MAX_SESSIONS",
                        limit: limits.max_sessions,
                    });
                };
                Some(victim)
            } else {
                None
            };
            if let Some(victim) = &victim {
                registry.remove(victim);
                counters.evicted.fetch_add(1, Ordering::Relaxed);
            }
            registry.reserved += 1;
            *registry.sessions_of.entry(client.clone()).or_insert(0) += 1;
            victim
        };
        if let Some(victim) = victim {
            tracing::info!(session = %victim, %client, "MCP session evicted to make room for a new one");
            if let Err(e) = self.shared.inner.close_session(&victim).await {
                tracing::warn!(session = %victim, "the evicted MCP session did not close cleanly: {e}");
            }
        }
        Ok(SessionTicket(Arc::new(TicketInner {
            shared: self.shared.clone(),
            client: client.clone(),
            claimed: AtomicBool::new(false),
        })))
    }

    /// Admits an event stream of `client`, or refuses it at a cap.
    pub fn open_stream(&self, client: &ClientKey) -> Result<StreamPermit, Refusal> {
        let limits = self.shared.limits;
        let counters = &self.shared.counters;
        let mut registry = self.shared.registry();
        if registry.streams_of.get(client).copied().unwrap_or(0) >= limits.max_streams_per_client {
            counters.streams_refused_client.fetch_add(1, Ordering::Relaxed);
            return Err(Refusal::Client {
                what: "event streams",
                setting: "MCP_MAX_STREAMS_PER_CLIENT",
                limit: limits.max_streams_per_client,
            });
        }
        if registry.streams >= limits.max_streams {
            counters.streams_refused_server.fetch_add(1, Ordering::Relaxed);
            return Err(Refusal::Server {
                what: "event streams",
                setting: "MCP_MAX_STREAMS",
                limit: limits.max_streams,
            });
        }
        registry.streams += 1;
        *registry.streams_of.entry(client.clone()).or_insert(0) += 1;
        Ok(StreamPermit { shared: self.shared.clone(), client: client.clone() })
    }

    /// The counts so far.
    pub fn stats(&self) -> SessionStats {
        let (sessions, streams) = {
            let registry = self.shared.registry();
            (registry.session_count() as u64, registry.streams as u64)
        };
        let c = &self.shared.counters;
        SessionStats {
            sessions,
            streams,
            sessions_evicted: c.evicted.load(Ordering::Relaxed),
            sessions_refused_client: c.sessions_refused_client.load(Ordering::Relaxed),
            sessions_refused_server: c.sessions_refused_server.load(Ordering::Relaxed),
            streams_refused_client: c.streams_refused_client.load(Ordering::Relaxed),
            streams_refused_server: c.streams_refused_server.load(Ordering::Relaxed),
            streams_idle_closed: c.idle_closed.load(Ordering::Relaxed),
        }
    }

    /// `stream`, marking `id` busy until it ends; with `idle` set, it ends after that long
    /// without a message.
    fn tracked<S>(&self, id: &SessionId, stream: S, idle: Option<Duration>) -> Tracked
    where
        S: Stream<Item = ServerSseMessage> + Send + Sync + 'static,
    {
        self.shared.mark(id, true);
        Tracked {
            inner: Box::pin(stream),
            idle: idle.map(|d| (d, Box::pin(tokio::time::sleep(d)))),
            shared: self.shared.clone(),
            id: id.clone(),
        }
    }

    /// Registers the session `id` being initialized by `message`, under the client of its
    /// ticket (a session without one — not admitted by the server in front — counts under
    /// `unknown`).
    fn register(&self, id: &SessionId, message: &ClientJsonRpcMessage) {
        let ticket = match message {
            ClientJsonRpcMessage::Request(request) => request
                .request
                .extensions()
                .get::<http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<SessionTicket>())
                .cloned(),
            _ => None,
        };
        let mut registry = self.shared.registry();
        let client = match &ticket {
            Some(SessionTicket(ticket)) if ticket.claim() => {
                registry.reserved = registry.reserved.saturating_sub(1);
                ticket.client.clone()
            }
            _ => {
                let client = ClientKey::new("unknown");
                *registry.sessions_of.entry(client.clone()).or_insert(0) += 1;
                client
            }
        };
        registry.sessions.insert(id.clone(), Entry { client, last_active: Instant::now(), busy: 0 });
    }
}

/// A stream of a session: marks it busy until dropped, and may end when idle.
pub struct Tracked {
    inner: Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>,
    idle: Option<(Duration, Pin<Box<tokio::time::Sleep>>)>,
    shared: Arc<Shared>,
    id: SessionId,
}

impl Stream for Tracked {
    type Item = ServerSseMessage;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ServerSseMessage>> {
        let this = self.get_mut();
        match this.inner.as_mut().poll_next(cx) {
            Poll::Ready(Some(message)) => {
                if let Some((timeout, sleep)) = &mut this.idle {
                    sleep.as_mut().reset(tokio::time::Instant::now() + *timeout);
                }
                Poll::Ready(Some(message))
            }
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => {
                let Some((timeout, sleep)) = &mut this.idle else {
                    return Poll::Pending;
                };
                if sleep.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                tracing::debug!(session = %this.id, "closing an MCP event stream idle for {timeout:?}");
                this.shared.counters.idle_closed.fetch_add(1, Ordering::Relaxed);
                this.idle = None;
                this.inner = Box::pin(futures::stream::empty());
                Poll::Ready(None)
            }
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.shared.mark(&self.id, false);
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.shared.inner.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.register(id, &message);
        let answer = self.shared.inner.initialize_session(id, message).await;
        // a session whose worker already ended (or failed to start) is not kept
        if answer.is_err() || !self.shared.inner.has_session(id).await.unwrap_or(false) {
            self.shared.registry().remove(id);
        }
        answer
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.shared.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.shared.registry().remove(id);
        self.shared.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // busy from before the request reaches the session: it cannot be evicted meanwhile
        self.shared.mark(id, true);
        let stream = self.shared.inner.create_stream(id, message).await;
        self.shared.mark(id, false);
        Ok(self.tracked(id, stream?, None))
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.shared.mark(id, true);
        let accepted = self.shared.inner.accept_message(id, message).await;
        self.shared.mark(id, false);
        accepted
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.shared.inner.create_standalone_stream(id).await?;
        Ok(self.tracked(id, stream, Some(self.shared.limits.stream_idle_timeout)))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.shared.inner.resume(id, last_event_id).await?;
        Ok(self.tracked(id, stream, Some(self.shared.limits.stream_idle_timeout)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(sessions: usize, per_client: usize) -> SessionLimits {
        SessionLimits {
            max_sessions: sessions,
            max_sessions_per_client: per_client,
            max_streams: 2,
            max_streams_per_client: 1,
            stream_idle_timeout: Duration::from_secs(60),
        }
    }

    #[tokio::test]
    async fn an_unused_ticket_gives_its_place_back() {
        let sessions = Sessions::new(limits(1, 1));
        let a = ClientKey::new("a");
        let ticket = sessions.reserve_session(&a).await.unwrap();
        assert_eq!(sessions.stats().sessions, 1);
        assert!(sessions.reserve_session(&a).await.is_err(), "a reserved place is taken");
        drop(ticket);
        assert_eq!(sessions.stats().sessions, 0);
        assert!(sessions.reserve_session(&a).await.is_ok());
    }

    #[test]
    fn streams_are_capped_per_client_and_in_all_and_freed_by_their_permits() {
        let sessions = Sessions::new(limits(1, 1));
        let (a, b, c) = (ClientKey::new("a"), ClientKey::new("b"), ClientKey::new("c"));
        let first = sessions.open_stream(&a).unwrap();
        assert!(matches!(sessions.open_stream(&a), Err(Refusal::Client { .. })));
        let _second = sessions.open_stream(&b).unwrap();
        assert!(matches!(sessions.open_stream(&c), Err(Refusal::Server { .. })));
        drop(first);
        assert!(sessions.open_stream(&c).is_ok());
        let stats = sessions.stats();
        assert_eq!((stats.streams_refused_client, stats.streams_refused_server), (1, 1));
    }
}
