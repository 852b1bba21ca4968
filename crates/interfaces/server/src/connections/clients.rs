//! The table of open connections (issue #26): whose each one is (the client's address) and
//! whether it has a request in progress, so that at a cap (`MAX_CONNECTIONS`,
//! `MAX_CONNECTIONS_PER_CLIENT`) the accept loop closes the connection idle the longest instead of
//! locking new clients out: a flood of idle sockets only ever pushes out other idle sockets.
//!
//! A connection is idle when no request is in progress on it (a response counts until its body
//! has been sent); a connection still sending its request's headers is idle too.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

/// Seconds between two log lines about connections refused or closed at a cap.
const REPORT_EVERY: Duration = Duration::from_secs(10);

/// A client as the caps count it: its IP address (an IPv4-mapped IPv6 address as the IPv4 one);
/// an IPv6 client by its /64 network, which a single host is usually given whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Client(IpAddr);

impl Client {
    pub(crate) fn of(ip: IpAddr) -> Client {
        match ip.to_canonical() {
            IpAddr::V6(v6) => Client(IpAddr::V6((u128::from(v6) & !(u128::from(u64::MAX))).into())),
            v4 => Client(v4),
        }
    }
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

/// The open connections and the per-client cap.
pub(crate) struct ClientTable {
    epoch: Instant,
    /// `None`: no cap per client.
    per_client: Option<usize>,
    /// Woken when a connection's last request in progress ends (the accept loop waits on it
    /// while every connection is busy).
    became_idle: Notify,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    open: HashMap<u64, Arc<Conn>>,
    clients: HashMap<Client, Count>,
    /// Connections asked to close to make room that have not closed yet.
    evicting: usize,
    refusals: Report,
    evictions: Report,
}

/// One client's connections.
#[derive(Debug, Default, Clone, Copy)]
struct Count {
    open: usize,
    evicting: usize,
}

/// Whether a new connection of a client may be served.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Admission {
    /// Yes (the client's connection idle the longest may have been asked to close for it).
    Room,
    /// No: the client is at `MAX_CONNECTIONS_PER_CLIENT` with a request in progress on every
    /// connection. `report`: how many were refused since the last log line, when one is due.
    Refused { report: Option<u64> },
}

impl ClientTable {
    /// A table allowing `per_client` connections to each client (`None`: no cap).
    pub(crate) fn new(per_client: Option<usize>) -> Arc<ClientTable> {
        Arc::new(ClientTable {
            epoch: Instant::now(),
            per_client: per_client.map(|n| n.max(1)),
            became_idle: Notify::new(),
            table: Mutex::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        // the table stays consistent between statements: a panic elsewhere does not spoil it
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether a new connection of `client` may be served under `MAX_CONNECTIONS_PER_CLIENT`: at
    /// the cap, its own connection idle the longest is asked to close for it; when each of its
    /// connections has a request in progress, it is refused.
    pub(crate) fn admit(&self, client: Client) -> Admission {
        let Some(per_client) = self.per_client else {
            return Admission::Room;
        };
        let mut table = self.lock();
        let count = table.clients.get(&client).copied().unwrap_or_default();
        if count.open.saturating_sub(count.evicting) < per_client || evict_longest_idle(&mut table, Some(client)) {
            return Admission::Room;
        }
        Admission::Refused { report: table.refusals.count() }
    }

    /// At `MAX_CONNECTIONS`: asks the connection idle the longest to close, unless one is already
    /// closing; returns how many were closed so since the last log line, when one is due.
    pub(crate) fn make_room(&self) -> Option<u64> {
        let mut table = self.lock();
        if table.evicting > 0 || !evict_longest_idle(&mut table, None) {
            return None;
        }
        table.evictions.count()
    }

    /// Resolves when a connection's last request in progress ends (perhaps already did).
    pub(crate) async fn became_idle(&self) {
        self.became_idle.notified().await;
    }

    /// Enters a new connection of `client`; it leaves the table when the registration is dropped.
    pub(crate) fn register(self: &Arc<Self>, client: Client) -> Registration {
        let mut table = self.lock();
        let id = table.next_id;
        table.next_id += 1;
        let conn = Arc::new(Conn {
            id,
            client,
            busy: watch::Sender::new(0),
            idle_since_ms: AtomicU64::new(self.now_ms()),
            evicted: CancellationToken::new(),
            closing_for_room: AtomicBool::new(false),
            table: self.clone(),
        });
        table.open.insert(id, conn.clone());
        table.clients.entry(client).or_default().open += 1;
        Registration { conn }
    }
}

/// Asks the connection idle the longest (of `only` that client) to close; false when none is idle.
fn evict_longest_idle(table: &mut Table, only: Option<Client>) -> bool {
    let victim = table
        .open
        .values()
        .filter(|c| only.is_none_or(|o| c.client == o) && !c.evicted.is_cancelled() && c.is_idle())
        // the older connection first among those idle since the same millisecond
        .min_by_key(|c| (c.idle_since_ms.load(Relaxed), c.id))
        .cloned();
    let Some(victim) = victim else {
        return false;
    };
    victim.evicted.cancel();
    victim.closing_for_room.store(true, Relaxed);
    table.evicting += 1;
    if let Some(count) = table.clients.get_mut(&victim.client) {
        count.evicting += 1;
    }
    true
}

/// One open connection as the table sees it.
pub(crate) struct Conn {
    id: u64,
    client: Client,
    /// Requests in progress.
    busy: watch::Sender<usize>,
    /// When (ms since the table's epoch) the last request ended or the connection opened.
    idle_since_ms: AtomicU64,
    /// Cancelled when the table asks the connection to close to make room.
    evicted: CancellationToken,
    /// Counted among the connections closing to make room (`Table::evicting`).
    closing_for_room: AtomicBool,
    table: Arc<ClientTable>,
}

impl Conn {
    /// No request in progress.
    pub(crate) fn is_idle(&self) -> bool {
        *self.busy.borrow() == 0
    }

    /// The number of requests in progress, to wait on.
    pub(crate) fn watch_busy(&self) -> watch::Receiver<usize> {
        self.busy.subscribe()
    }

    /// Cancelled when the connection is to close to make room for another.
    pub(crate) fn evicted(&self) -> &CancellationToken {
        &self.evicted
    }

    /// Called by a connection asked to close that had a request begin just as it was picked: it
    /// closes once that request ends, so it no longer counts as making room and the accept loop
    /// may pick another.
    pub(crate) fn busy_when_evicted(&self) {
        self.table.lock().stop_counting(self);
        self.table.became_idle.notify_one();
    }
}

impl Table {
    /// `conn` no longer counts among the connections closing to make room.
    fn stop_counting(&mut self, conn: &Conn) {
        if !conn.closing_for_room.swap(false, Relaxed) {
            return;
        }
        self.evicting = self.evicting.saturating_sub(1);
        if let Some(count) = self.clients.get_mut(&conn.client) {
            count.evicting = count.evicting.saturating_sub(1);
        }
    }
}

/// A connection's place in the table, until dropped.
pub(crate) struct Registration {
    conn: Arc<Conn>,
}

impl Registration {
    pub(crate) fn conn(&self) -> &Arc<Conn> {
        &self.conn
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        let conn = &self.conn;
        let mut table = conn.table.lock();
        table.open.remove(&conn.id);
        table.stop_counting(conn);
        if let Some(count) = table.clients.get_mut(&conn.client) {
            count.open = count.open.saturating_sub(1);
            if count.open == 0 {
                table.clients.remove(&conn.client);
            }
        }
    }
}

/// Marks one request of a connection as in progress until dropped (with its response body).
pub(crate) struct InProgress(Arc<Conn>);

impl InProgress {
    pub(crate) fn begin(conn: &Arc<Conn>) -> Self {
        conn.busy.send_modify(|n| *n += 1);
        InProgress(conn.clone())
    }
}

impl Drop for InProgress {
    fn drop(&mut self) {
        let conn = &self.0;
        conn.idle_since_ms.store(conn.table.now_ms(), Relaxed);
        let mut idle = false;
        conn.busy.send_modify(|n| {
            *n = n.saturating_sub(1);
            idle = *n == 0;
        });
        if idle {
            conn.table.became_idle.notify_one();
        }
    }
}

/// Counts events and says when to log them: at the first, then at most once per [`REPORT_EVERY`]
/// with the sum since the last line (a line per event would flood the log under attack).
#[derive(Default)]
struct Report {
    last: Option<Instant>,
    pending: u64,
}

impl Report {
    fn count(&mut self) -> Option<u64> {
        self.pending += 1;
        if self.last.is_some_and(|last| last.elapsed() < REPORT_EVERY) {
            return None;
        }
        self.last = Some(Instant::now());
        Some(std::mem::take(&mut self.pending))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(ip: &str) -> Client {
        Client::of(ip.parse().unwrap())
    }

    #[test]
    fn a_client_is_its_address_and_an_ipv6_client_its_slash_64() {
        assert_eq!(client("::ffff:10.0.0.1"), client("10.0.0.1"));
        assert_eq!(client("2001:db8:1:2::1"), client("2001:db8:1:2:ffff::7"));
        assert_ne!(client("2001:db8:1:2::1"), client("2001:db8:1:3::1"));
        assert_ne!(client("10.0.0.1"), client("10.0.0.2"));
        assert_eq!(client("2001:db8:1:2::1").to_string(), "2001:db8:1:2::/64");
    }

    #[test]
    fn a_client_at_its_cap_loses_its_own_longest_idle_connection_first() {
        let table = ClientTable::new(Some(2));
        let (a, b) = (client("10.0.0.1"), client("10.0.0.2"));
        let other = table.register(b); // idle longer than any of a's
        let oldest = table.register(a);
        let newer = table.register(a);
        assert_eq!(table.admit(a), Admission::Room);
        assert!(oldest.conn().evicted().is_cancelled(), "a's connection idle the longest is closed for it");
        assert!(!newer.conn().evicted().is_cancelled() && !other.conn().evicted().is_cancelled());
        let _admitted = table.register(a);
        // while that one is closing, a's next connection takes the next idle one, not the same
        assert_eq!(table.admit(a), Admission::Room);
        assert!(newer.conn().evicted().is_cancelled());
        assert_eq!(table.admit(b), Admission::Room, "another client is under its cap");
        assert!(!other.conn().evicted().is_cancelled());
    }

    #[test]
    fn a_client_whose_connections_all_have_a_request_in_progress_is_refused() {
        let table = ClientTable::new(Some(2));
        let a = client("10.0.0.1");
        let first = table.register(a);
        let second = table.register(a);
        let busy = [InProgress::begin(first.conn()), InProgress::begin(second.conn())];
        assert!(matches!(table.admit(a), Admission::Refused { report: Some(1) }));
        assert!(matches!(table.admit(a), Admission::Refused { report: None }), "one log line, then a sum");
        assert_eq!(table.admit(client("10.0.0.2")), Admission::Room);
        drop(busy);
        assert_eq!(table.admit(a), Admission::Room, "once idle, one of them makes room");
        drop(first);
        drop(second);
        assert_eq!(table.admit(a), Admission::Room);
    }

    #[test]
    fn at_the_cap_the_longest_idle_connection_of_any_client_closes_one_at_a_time() {
        let table = ClientTable::new(None);
        let busy_one = table.register(client("10.0.0.1"));
        let working = InProgress::begin(busy_one.conn());
        let idle_one = table.register(client("10.0.0.2"));
        let idle_two = table.register(client("10.0.0.3"));
        assert_eq!(table.make_room(), Some(1));
        assert!(idle_one.conn().evicted().is_cancelled(), "the idle connection opened first goes");
        assert!(!busy_one.conn().evicted().is_cancelled(), "a connection with a request in progress stays");
        assert_eq!(table.make_room(), None);
        assert!(!idle_two.conn().evicted().is_cancelled(), "one closing at a time makes room enough");
        drop(idle_one);
        table.make_room();
        assert!(idle_two.conn().evicted().is_cancelled());
        drop(idle_two);
        table.make_room();
        assert!(!busy_one.conn().evicted().is_cancelled(), "nothing idle: nothing closed");
        drop(working);
        table.make_room();
        assert!(busy_one.conn().evicted().is_cancelled());
    }

    #[test]
    fn a_connection_busy_when_picked_lets_the_next_idle_one_make_room() {
        let table = ClientTable::new(None);
        let picked = table.register(client("10.0.0.1"));
        let next = table.register(client("10.0.0.2"));
        table.make_room();
        assert!(picked.conn().evicted().is_cancelled());
        table.make_room();
        assert!(!next.conn().evicted().is_cancelled(), "one closing at a time");
        // a request began on it just as it was picked: it finishes that first
        let _request = InProgress::begin(picked.conn());
        picked.conn().busy_when_evicted();
        table.make_room();
        assert!(next.conn().evicted().is_cancelled(), "the accept loop would wait for that request");
    }
}
