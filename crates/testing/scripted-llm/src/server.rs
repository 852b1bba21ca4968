//! Starting and stopping the server, and its shared state.
//!
//! The server runs on its own thread with its own Tokio runtime, so it keeps answering while
//! the caller blocks (a test that runs the CLI binary with `std::process::Command`, a
//! single-threaded `#[tokio::test]` runtime, a benchmark).

use std::collections::VecDeque;
use std::net::{SocketAddr, TcpListener as StdListener};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::oneshot;

use crate::faults::{Fault, FaultAction, RouteKind, take_matching};
use crate::recognise::PromptKind;
use crate::stats::{RecordedRequest, Stats};

/// How the scripted server behaves.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptConfig {
    /// Port on 127.0.0.1; 0 picks a free one (default).
    pub port: u16,
    /// Embedding dimension when the request does not ask for one (default 64).
    pub dim: usize,
    /// Fixed delay before every answer (default 0).
    pub delay: Duration,
    /// Delay between the pieces of a streamed answer (default 0: all at once), so that clients
    /// see an answer arrive over time.
    pub stream_delay: Duration,
    /// Gleaning answers one extra entity record (`Gleaned Entity`) instead of only
    /// `<|COMPLETE|>` (default false).
    pub glean_extra_entity: bool,
    /// Report token usage in OpenAI-style non-streamed answers (default true: words counted as
    /// tokens). Off, clients count the tokens themselves (what `lightrag` does for providers
    /// that report none).
    pub report_usage: bool,
    /// When set, requests must carry this key (`Authorization: Bearer KEY`, or `api-key: KEY`
    /// on the Azure routes) or get HTTP 401.
    pub api_key: Option<String>,
    /// Model name reported by `GET /v1/models` and in answers that name no model.
    pub model_name: String,
    /// Return the `data` items of OpenAI embedding answers in reverse order (their `index`
    /// fields stay right), to test clients that must sort by `index`.
    pub reverse_embedding_order: bool,
    /// How many recent requests to keep for [`ScriptedServer::requests`] (default 64).
    pub record_requests: usize,
    /// When set, the Bedrock routes require requests signed (AWS SigV4) with these credentials
    /// and answer 403 to anything else.
    pub aws: Option<AwsTestCredentials>,
    /// Faults armed from the start.
    pub faults: Vec<Fault>,
}

impl Default for ScriptConfig {
    fn default() -> Self {
        Self {
            port: 0,
            dim: 64,
            delay: Duration::ZERO,
            stream_delay: Duration::ZERO,
            glean_extra_entity: false,
            report_usage: true,
            api_key: None,
            model_name: "scripted".to_string(),
            reverse_embedding_order: false,
            record_requests: 64,
            aws: None,
            faults: Vec::new(),
        }
    }
}

/// Credentials the Bedrock routes verify signatures against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AwsTestCredentials {
    /// Access key id expected in the credential scope.
    pub access_key_id: String,
    /// The secret the signature must be made with.
    pub secret_access_key: String,
    /// Region expected in the credential scope.
    pub region: String,
}

impl Default for AwsTestCredentials {
    fn default() -> Self {
        Self {
            access_key_id: "AKIDSCRIPTED".to_string(),
            secret_access_key: "scripted/secret/key".to_string(),
            region: "us-east-1".to_string(),
        }
    }
}

/// State shared by the handlers and the [`ScriptedServer`] handle.
pub(crate) struct Shared {
    pub config: ScriptConfig,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    faults: Vec<Fault>,
    stats: Stats,
    requests: VecDeque<RecordedRequest>,
}

impl Shared {
    fn new(config: ScriptConfig) -> Self {
        let inner = Inner { faults: config.faults.clone(), ..Inner::default() };
        Self { config, inner: Mutex::new(inner) }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records an arriving request, counts it, and takes the fault that applies to it.
    pub fn begin(
        &self,
        request: RecordedRequest,
        route: RouteKind,
        embed_texts: Option<u64>,
        streamed: bool,
    ) -> Option<FaultAction> {
        let mut inner = self.lock();
        let prompt = request.prompt;
        self.record(&mut inner, request);
        if route == RouteKind::Rerank {
            inner.stats.rerank += 1;
        }
        if let Some(kind) = prompt {
            inner.stats.count_kind(kind);
        }
        if let Some(n) = embed_texts {
            inner.stats.embed += 1;
            inner.stats.embed_texts += n;
        }
        if streamed {
            inner.stats.streamed += 1;
        }
        let fault = take_matching(&mut inner.faults, route, prompt);
        if fault.is_some() {
            inner.stats.faults_injected += 1;
        }
        fault
    }

    /// Records a request that was refused before it was understood (bad body, auth).
    pub fn record_only(&self, request: RecordedRequest) {
        let mut inner = self.lock();
        self.record(&mut inner, request);
    }

    fn record(&self, inner: &mut Inner, request: RecordedRequest) {
        if self.config.record_requests == 0 {
            return;
        }
        while inner.requests.len() >= self.config.record_requests {
            inner.requests.pop_front();
        }
        inner.requests.push_back(request);
    }

    /// Counts an answer's status and, for successes, its usage.
    pub fn finish(&self, status: u16, usage: Option<(u64, u64)>) {
        let mut inner = self.lock();
        *inner.stats.statuses.entry(status).or_insert(0) += 1;
        if let Some((prompt, completion)) = usage {
            inner.stats.prompt_tokens += prompt;
            inner.stats.completion_tokens += completion;
        }
    }

    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }

    pub fn reset_stats(&self) {
        let mut inner = self.lock();
        inner.stats = Stats::default();
        inner.requests.clear();
    }

    pub fn set_faults(&self, faults: Vec<Fault>) {
        self.lock().faults = faults;
    }

    pub fn push_faults(&self, faults: Vec<Fault>) {
        self.lock().faults.extend(faults);
    }

    pub fn pending_faults(&self) -> Vec<Fault> {
        self.lock().faults.clone()
    }

    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.iter().cloned().collect()
    }
}

/// Entry point: `ScriptedLlm::start(config).await` starts a server.
#[derive(Debug, Clone, Copy)]
pub struct ScriptedLlm;

impl ScriptedLlm {
    /// Starts a server on 127.0.0.1 (port from `config`, 0 = free port). Usable from any
    /// runtime flavour; the server runs on its own thread.
    pub async fn start(config: ScriptConfig) -> std::io::Result<ScriptedServer> {
        Self::start_blocking(config)
    }

    /// Same as [`ScriptedLlm::start`], for code without an async runtime. Binding is the only
    /// thing it waits for.
    pub fn start_blocking(config: ScriptConfig) -> std::io::Result<ScriptedServer> {
        let listener = StdListener::bind(("127.0.0.1", config.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared::new(config));
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let (done_tx, done_rx) = oneshot::channel::<()>();
        let (ready_tx, ready_rx) = std::sync::mpsc::channel::<std::io::Result<()>>();
        let app = crate::routes::router(shared.clone());
        std::thread::Builder::new().name("scripted-llm".to_string()).spawn(move || {
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("scripted-llm-worker")
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            let _ = ready_tx.send(Ok(()));
            runtime.block_on(serve(listener, app, stop_rx));
            runtime.shutdown_background();
            let _ = done_tx.send(());
        })?;
        ready_rx.recv().map_err(|_| std::io::Error::other("the scripted-llm thread died at start"))??;
        Ok(ScriptedServer { addr, shared, stop: Some(stop_tx), done: Some(done_rx) })
    }
}

async fn serve(listener: StdListener, app: axum::Router, stop: oneshot::Receiver<()>) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("scripted-llm: cannot use the listener: {e}");
            return;
        }
    };
    let (grace_tx, grace_rx) = oneshot::channel::<()>();
    let server = axum::serve(listener, app).with_graceful_shutdown(async move {
        let _ = grace_rx.await;
    });
    let handle = tokio::spawn(async move {
        if let Err(e) = server.await {
            eprintln!("scripted-llm: server stopped: {e}");
        }
    });
    // A dropped handle (Err) stops the server as well.
    let _ = stop.await;
    let _ = grace_tx.send(());
    let _ = tokio::time::timeout(Duration::from_secs(1), handle).await;
}

/// A running scripted server. Dropping it stops the server (without waiting); call
/// [`ScriptedServer::shutdown`] to wait until it is gone.
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    done: Option<oneshot::Receiver<()>>,
}

impl std::fmt::Debug for ScriptedServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedServer").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl ScriptedServer {
    /// The socket address (always 127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The OpenAI-compatible base URL, `http://127.0.0.1:PORT/v1` (use as `LLM_BINDING_HOST`
    /// with the `openai` binding).
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The root URL, `http://127.0.0.1:PORT` (the host for the Ollama binding and the endpoint
    /// for the Azure binding).
    pub fn root_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Counters since start or the last [`ScriptedServer::reset_stats`].
    pub fn stats(&self) -> Stats {
        self.shared.stats()
    }

    /// Zeroes the counters and forgets recorded requests (faults stay armed).
    pub fn reset_stats(&self) {
        self.shared.reset_stats();
    }

    /// Replaces the armed faults.
    pub fn set_faults(&self, faults: Vec<Fault>) {
        self.shared.set_faults(faults);
    }

    /// Arms one more fault after the ones already armed.
    pub fn push_fault(&self, fault: Fault) {
        self.shared.push_faults(vec![fault]);
    }

    /// Faults not used up yet.
    pub fn pending_faults(&self) -> Vec<Fault> {
        self.shared.pending_faults()
    }

    /// The most recent requests, oldest first (at most `ScriptConfig::record_requests`).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests()
    }

    /// The most recent request.
    pub fn last_request(&self) -> Option<RecordedRequest> {
        self.shared.requests().pop()
    }

    /// Counts chat requests of one prompt kind (shortcut over [`ScriptedServer::stats`]).
    pub fn calls(&self, kind: PromptKind) -> u64 {
        let s = self.stats();
        match kind {
            PromptKind::Extract => s.extract,
            PromptKind::Glean => s.glean,
            PromptKind::Summary => s.summary,
            PromptKind::Keywords => s.keywords,
            PromptKind::Judge => s.judge,
            PromptKind::Decompose => s.decompose,
            PromptKind::Answer => s.answer,
        }
    }

    /// Stops the server and waits (at most about a second for open requests) until it is gone.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(done) = self.done.take() {
            let _ = done.await;
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}
