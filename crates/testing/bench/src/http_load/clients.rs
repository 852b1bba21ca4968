//! The clients: each one a seeded loop that picks a request from the mix, sends it and records
//! the route, the outcome and the latency, until the deadline.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

/// Query modes the clients ask in (`bypass` skips retrieval and is left out).
pub const MODES: [&str; 7] = ["local", "global", "hybrid", "naive", "mix", "ppr", "auto"];

/// Questions, each asked with a label of the graph after it (so answers are not all cache hits).
const QUESTIONS: [&str; 5] = [
    "What did the President tell Congress about",
    "How did the United States deal with",
    "What was said about",
    "Why did Congress care about",
    "What were the arguments about",
];

/// What kind of request a sample was (the table's row and the test's "every class" check).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Route {
    /// `POST /query` in a mode (index into [`MODES`]).
    Query(usize),
    /// `POST /query/stream` (mode `mix`).
    Stream,
    /// `POST /documents/upload`.
    Upload,
    /// `POST /documents/text`.
    Text,
    /// `POST /documents/texts` of the background insert stream.
    BackgroundTexts,
    /// `GET /documents/pipeline_status`.
    PipelineStatus,
    /// `GET /documents/track_status/{id}`.
    TrackStatus,
    /// `GET /documents/status_counts`.
    StatusCounts,
    /// `GET /graph/label/popular`.
    Popular,
    /// `GET /graph/label/search`.
    Search,
    /// `GET /graphs`.
    Graphs,
}

impl Route {
    /// The row name.
    pub fn name(self) -> String {
        match self {
            Route::Query(m) => format!("POST /query mode={}", MODES.get(m).copied().unwrap_or("?")),
            Route::Stream => "POST /query/stream mode=mix".into(),
            Route::Upload => "POST /documents/upload".into(),
            Route::Text => "POST /documents/text".into(),
            Route::BackgroundTexts => "POST /documents/texts (background)".into(),
            Route::PipelineStatus => "GET /documents/pipeline_status".into(),
            Route::TrackStatus => "GET /documents/track_status/{id}".into(),
            Route::StatusCounts => "GET /documents/status_counts".into(),
            Route::Popular => "GET /graph/label/popular".into(),
            Route::Search => "GET /graph/label/search".into(),
            Route::Graphs => "GET /graphs".into(),
        }
    }

    /// The class: query, stream, insert, status or graph.
    pub fn class(self) -> &'static str {
        match self {
            Route::Query(_) => "query",
            Route::Stream => "stream",
            Route::Upload | Route::Text | Route::BackgroundTexts => "insert",
            Route::PipelineStatus | Route::TrackStatus | Route::StatusCounts => "status",
            Route::Popular | Route::Search | Route::Graphs => "graph",
        }
    }
}

/// One request's outcome.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Which route.
    pub route: Route,
    /// 2xx (and, for a stream, no error line in the body).
    pub ok: bool,
    /// Wall time until the whole body was read, ms.
    pub ms: f64,
    /// Seconds since the load started.
    pub at_s: f64,
}

/// What the clients share: the HTTP client, the server's URL, the labels and texts to use, and
/// the track ids seen so far.
pub struct Shared {
    /// HTTP client (one pool for all).
    pub http: reqwest::Client,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// Labels for searches, graph reads and question endings.
    pub labels: Vec<String>,
    /// Texts to cut small documents from.
    pub texts: Vec<String>,
    /// Track ids returned by inserts.
    pub tracks: Mutex<Vec<String>>,
    /// When the load started.
    pub started: Instant,
    /// No uploads or text inserts: those turns poll the pipeline status.
    pub reads_only: bool,
    /// First few failures: route, status, start of the body.
    pub failures: Mutex<Vec<String>>,
}

impl Shared {
    fn remember_track(&self, track: Option<String>) {
        if let (Some(track), Ok(mut tracks)) = (track, self.tracks.lock()) {
            tracks.push(track);
        }
    }

    fn note_failure(&self, route: Route, status: &str, body: &str) {
        if let Ok(mut failures) = self.failures.lock()
            && failures.len() < 20
        {
            let start: String = body.chars().take(300).collect();
            failures.push(format!("{} → {status}: {start}", route.name()));
        }
    }

    /// Sends `request`, reads the whole body, records the sample; returns the body when 2xx.
    pub async fn send(&self, route: Route, request: reqwest::RequestBuilder, out: &mut Vec<Sample>) -> Option<String> {
        let sent = Instant::now();
        let at_s = self.started.elapsed().as_secs_f64();
        let (ok, body) = match request.send().await {
            Ok(reply) => {
                let status = reply.status();
                match reply.text().await {
                    Ok(body) => {
                        // a stream reports a failure after its 200 as an `error` line
                        let ok = status.is_success() && !(route == Route::Stream && body.contains("\"error\""));
                        if !ok {
                            self.note_failure(route, status.as_str(), &body);
                        }
                        (ok, Some(body))
                    }
                    Err(e) => {
                        self.note_failure(route, status.as_str(), &format!("body not read: {e}"));
                        (false, None)
                    }
                }
            }
            Err(e) => {
                self.note_failure(route, "no reply", &e.to_string());
                (false, None)
            }
        };
        out.push(Sample { route, ok, ms: sent.elapsed().as_secs_f64() * 1000.0, at_s });
        if ok { body } else { None }
    }

    /// A small document (about 600 bytes) cut from the texts at a seeded place.
    pub fn small_text(&self, rng: &mut StdRng) -> String {
        let Some(text) = self.texts.get(rng.random_range(0..self.texts.len().max(1))) else {
            return "The Congress met in Washington and spoke about the Navy.".into();
        };
        let mut start = rng.random_range(0..text.len().saturating_sub(600).max(1));
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (start + 600).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let piece = text[start..end].trim();
        if piece.is_empty() { "The Congress met in Washington and spoke about the Navy.".into() } else { piece.into() }
    }

    /// `base` + `path` with the query parameters encoded.
    fn url(&self, path: &str, params: &[(&str, &str)]) -> String {
        let plain = format!("{}{path}", self.base);
        reqwest::Url::parse_with_params(&plain, params).map(String::from).unwrap_or(plain)
    }

    fn label(&self, rng: &mut StdRng) -> String {
        self.labels.get(rng.random_range(0..self.labels.len().max(1))).cloned().unwrap_or_else(|| "Congress".into())
    }
}

/// One client: requests until `deadline`, its own seeded choices. Returns its samples.
pub async fn client(shared: Arc<Shared>, id: usize, seed: u64, deadline: Instant) -> Vec<Sample> {
    let mut rng = StdRng::seed_from_u64(seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut out = Vec::new();
    let mut inserts = 0usize;
    let mut sent = 0usize;
    while Instant::now() < deadline {
        let kind = match pick(&mut rng, id, sent) {
            8 | 9 if shared.reads_only => 10,
            kind => kind,
        };
        sent += 1;
        let s = &shared;
        match kind {
            0..7 => {
                let mode = kind;
                let body = json!({ "query": question(s, &mut rng), "mode": MODES[mode] });
                s.send(Route::Query(mode), s.http.post(format!("{}/query", s.base)).json(&body), &mut out).await;
            }
            7 => {
                let body = json!({ "query": question(s, &mut rng), "mode": "mix" });
                s.send(Route::Stream, s.http.post(format!("{}/query/stream", s.base)).json(&body), &mut out).await;
            }
            8 => {
                inserts += 1;
                let name = format!("load-upload-{id}-{inserts}.txt");
                let (content_type, body) = multipart(&name, &s.small_text(&mut rng));
                let request = s
                    .http
                    .post(format!("{}/documents/upload", s.base))
                    .header(reqwest::header::CONTENT_TYPE, content_type)
                    .body(body);
                let reply = s.send(Route::Upload, request, &mut out).await;
                s.remember_track(reply.as_deref().and_then(track_id));
            }
            9 => {
                inserts += 1;
                let body =
                    json!({ "text": s.small_text(&mut rng), "file_source": format!("load-text-{id}-{inserts}.txt") });
                let reply =
                    s.send(Route::Text, s.http.post(format!("{}/documents/text", s.base)).json(&body), &mut out).await;
                s.remember_track(reply.as_deref().and_then(track_id));
            }
            10 => {
                s.send(Route::PipelineStatus, s.http.get(format!("{}/documents/pipeline_status", s.base)), &mut out)
                    .await;
            }
            11 => {
                let track =
                    s.tracks.lock().ok().and_then(|t| (!t.is_empty()).then(|| t[rng.random_range(0..t.len())].clone()));
                let track = track.unwrap_or_else(|| "insert_none".into());
                let url = format!("{}/documents/track_status/{track}", s.base);
                s.send(Route::TrackStatus, s.http.get(url), &mut out).await;
            }
            12 => {
                s.send(Route::StatusCounts, s.http.get(format!("{}/documents/status_counts", s.base)), &mut out).await;
            }
            13 => {
                let url = s.url("/graph/label/popular", &[("limit", "100")]);
                s.send(Route::Popular, s.http.get(url), &mut out).await;
            }
            14 => {
                let label = s.label(&mut rng);
                let q: String = label.chars().take(rng.random_range(3..=6)).collect();
                let url = s.url("/graph/label/search", &[("q", q.as_str()), ("limit", "20")]);
                s.send(Route::Search, s.http.get(url), &mut out).await;
            }
            _ => {
                let label = s.label(&mut rng);
                let params = [("label", label.as_str()), ("max_depth", "2"), ("max_nodes", "200")];
                s.send(Route::Graphs, s.http.get(s.url("/graphs", &params)), &mut out).await;
            }
        }
    }
    out
}

/// Kinds of request: the seven query modes, then stream, upload, text, pipeline status, track
/// status, status counts, popular labels, label search and graph.
pub const KINDS: usize = 16;

/// Every route a client sends to (the background stream adds [`Route::BackgroundTexts`]).
pub fn client_routes() -> Vec<Route> {
    let mut routes: Vec<Route> = (0..MODES.len()).map(Route::Query).collect();
    routes.extend([
        Route::Stream,
        Route::Upload,
        Route::Text,
        Route::PipelineStatus,
        Route::TrackStatus,
        Route::StatusCounts,
        Route::Popular,
        Route::Search,
        Route::Graphs,
    ]);
    routes
}

/// The kind of a client's `n`-th request: its first [`KINDS`] requests go once through every
/// kind (starting at its id, so that short runs cover them all), then a seeded weighted choice:
/// queries 40 %, streams 8 %, uploads 3 %, text inserts 3 %, status polls 24 %, graph reads 22 %.
fn pick(rng: &mut StdRng, id: usize, n: usize) -> usize {
    if n < KINDS {
        return (id + n) % KINDS;
    }
    match rng.random_range(0..100u32) {
        0..40 => rng.random_range(0..MODES.len()),
        40..48 => 7,
        48..51 => 8,
        51..54 => 9,
        54..62 => 10,
        62..70 => 11,
        70..78 => 12,
        78..85 => 13,
        85..93 => 14,
        _ => 15,
    }
}

fn question(shared: &Shared, rng: &mut StdRng) -> String {
    format!("{} {}?", QUESTIONS[rng.random_range(0..QUESTIONS.len())], shared.label(rng))
}

/// `track_id` of an insert reply.
pub fn track_id(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    value.get("track_id")?.as_str().map(str::to_string)
}

/// A `multipart/form-data` body with one field `file`: the content type header and the bytes.
fn multipart(name: &str, text: &str) -> (String, Vec<u8>) {
    let boundary = "lightrag-load-boundary-7f3a9c";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
         Content-Type: text/plain\r\n\r\n{text}\r\n--{boundary}--\r\n"
    );
    (format!("multipart/form-data; boundary={boundary}"), body.into_bytes())
}
