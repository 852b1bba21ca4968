//! Python callables as the engine's ports: `llm_model_func` as [`Llm`], `embedding_func` as
//! [`Embedder`], `rerank_model_func` as [`Reranker`], with LightRAG's signatures.
//!
//! They are plain ports, so the engine's gateway wraps them as it wraps an HTTP client: the
//! concurrency limits (`llm_model_max_async`, `embedding_func_max_async`), the LLM cache, retries
//! and the usage ledger. The GIL is taken only to call the function and to read its result:
//!
//! * a coroutine function is called on the async runtime's thread (calling it only makes a
//!   coroutine) and the coroutine runs on the event loop of the caller ([`LoopSlot`]: the loop of
//!   the `a…` method that started the work, or the package's private loop for the sync methods);
//! * any other callable runs on a blocking thread (`spawn_blocking`), so a slow synchronous
//!   function never stalls the runtime; if it returns an awaitable, that is awaited on the loop.
//!
//! An exception raised by the function becomes the port's error: a class named like a rate
//! limit, a timeout or a connection failure is retried by the gateway, anything else fails the
//! call at once with the exception's text.

use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use futures::StreamExt;
use lightrag_ports::{
    ChatRequest, ChatResponse, EmbedError, Embedder, EmbeddingIdentity, Llm, LlmError, RerankError, RerankHit,
    Reranker, TextStream,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3_async_runtimes::TaskLocals;

use crate::interpreter::{self, Exiting};

/// The event loop that coroutines of the Python callables run on: the loop of the latest `a…`
/// call, or the private loop the package runs for its sync methods. One per `LightRAG` object.
#[derive(Default)]
pub(crate) struct LoopSlot(RwLock<Option<TaskLocals>>);

impl LoopSlot {
    /// Makes `event_loop` the loop of the coroutines started from now on.
    pub(crate) fn set(&self, event_loop: Bound<'_, PyAny>) {
        let locals = TaskLocals::new(event_loop);
        if let Ok(mut slot) = self.0.write() {
            *slot = Some(locals);
        }
    }

    fn get(&self) -> Option<TaskLocals> {
        self.0.read().ok().and_then(|s| s.clone())
    }
}

/// A Python function and how to call it.
pub(crate) struct PyFunc {
    func: Py<PyAny>,
    /// `inspect.iscoroutinefunction(func)`: calling it is cheap and needs no blocking thread.
    is_async: bool,
    loop_slot: Arc<LoopSlot>,
    /// The parameter's name, for error messages (`llm_model_func` …).
    what: &'static str,
}

/// The outcome of a call: an exception, as its class name and text.
#[derive(Debug)]
struct Raised {
    class: String,
    message: String,
}

impl Raised {
    fn of(py: Python<'_>, err: &PyErr) -> Raised {
        let class = err.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".to_string());
        Raised { class, message: err.value(py).to_string() }
    }

    fn text(&self, what: &str) -> String {
        format!("the Python {what} raised {}: {}", self.class, self.message)
    }

    /// A rate limit, a timeout or a connection failure: worth retrying.
    fn transient(&self) -> Option<Transient> {
        let c = self.class.to_ascii_lowercase();
        if c.contains("ratelimit") {
            Some(Transient::RateLimit)
        } else if c.contains("timeout") {
            Some(Transient::Timeout)
        } else if c.contains("connection") || c.contains("connect") {
            Some(Transient::Connection)
        } else {
            None
        }
    }
}

impl From<Exiting> for Raised {
    fn from(e: Exiting) -> Raised {
        Raised { class: "RuntimeError".into(), message: e.to_string() }
    }
}

/// [`interpreter::attach`] for a call that may raise: the interpreter's exit is one more error.
fn enter<R>(f: impl for<'py> FnOnce(Python<'py>) -> Result<R, Raised>) -> Result<R, Raised> {
    interpreter::attach(f)?
}

enum Transient {
    RateLimit,
    Timeout,
    Connection,
}

impl PyFunc {
    pub(crate) fn new(py: Python<'_>, func: Py<PyAny>, loop_slot: Arc<LoopSlot>, what: &'static str) -> PyResult<Self> {
        let inspect = py.import("inspect")?;
        let is_async = inspect.call_method1("iscoroutinefunction", (func.bind(py),))?.extract::<bool>()?;
        Ok(PyFunc { func, is_async, loop_slot, what })
    }

    /// Calls the function with `args` made under the GIL, and awaits what it returns when that is
    /// an awaitable. `read` turns the result into Rust under the GIL.
    async fn call<T, A, R>(&self, args: A, read: R) -> Result<T, Raised>
    where
        T: Send + 'static,
        A: for<'py> FnOnce(Python<'py>) -> PyResult<(Bound<'py, pyo3::types::PyTuple>, Bound<'py, PyDict>)>
            + Send
            + 'static,
        R: for<'py> FnOnce(&Bound<'py, PyAny>) -> PyResult<T> + Send + 'static,
    {
        let func = interpreter::attach(|py| self.func.clone_ref(py))?;
        let locals = self.loop_slot.get();
        let what = self.what;
        let invoke = move || {
            enter(|py| {
                let (args, kwargs) = args(py).map_err(|e| Raised::of(py, &e))?;
                let out = func.bind(py).call(args, Some(&kwargs)).map_err(|e| Raised::of(py, &e))?;
                awaited(py, out, locals.as_ref(), what)
            })
        };
        let step = if self.is_async {
            invoke()?
        } else {
            tokio::task::spawn_blocking(invoke).await.map_err(|e| Raised {
                class: "RuntimeError".into(),
                message: format!("the thread calling the Python {what} stopped: {e}"),
            })??
        };
        let value = match step {
            Step::Value(v) => v,
            Step::Pending(fut) => match fut.await {
                Ok(v) => v,
                Err(e) => return enter(|py| Err(Raised::of(py, &e))),
            },
        };
        enter(|py| read(value.bind(py)).map_err(|e| Raised::of(py, &e)))
    }
}

type PyFuture = std::pin::Pin<Box<dyn std::future::Future<Output = PyResult<Py<PyAny>>> + Send>>;

/// A returned value, or the awaitable it is, scheduled on the loop.
enum Step {
    Value(Py<PyAny>),
    Pending(PyFuture),
}

fn awaited(py: Python<'_>, out: Bound<'_, PyAny>, locals: Option<&TaskLocals>, what: &str) -> Result<Step, Raised> {
    let inspect = py.import("inspect").map_err(|e| Raised::of(py, &e))?;
    let is_awaitable = inspect
        .call_method1("isawaitable", (&out,))
        .and_then(|v| v.extract::<bool>())
        .map_err(|e| Raised::of(py, &e))?;
    if !is_awaitable {
        return Ok(Step::Value(out.unbind()));
    }
    let locals = locals.ok_or_else(|| Raised {
        class: "RuntimeError".into(),
        message: format!("the Python {what} returned an awaitable but no event loop is known to run it"),
    })?;
    let fut = pyo3_async_runtimes::into_future_with_locals(locals, out).map_err(|e| Raised::of(py, &e))?;
    Ok(Step::Pending(Box::pin(fut)))
}

/// `llm_model_func` as the chat port.
pub(crate) struct PyLlm {
    func: PyFunc,
    /// `llm_model_name`: the model in cache keys and usage.
    model: String,
    /// `llm_model_kwargs` as JSON text, passed as keyword arguments on every call.
    extra_kwargs: Option<String>,
}

impl PyLlm {
    pub(crate) fn new(func: PyFunc, model: String, extra_kwargs: Option<String>) -> Self {
        PyLlm { func, model, extra_kwargs }
    }

    fn args(
        &self,
        request: &ChatRequest,
        stream: bool,
    ) -> impl for<'py> FnOnce(Python<'py>) -> PyResult<(Bound<'py, pyo3::types::PyTuple>, Bound<'py, PyDict>)> + Send + 'static
    {
        let request = request.clone();
        let extra = self.extra_kwargs.clone();
        move |py| {
            let kwargs = PyDict::new(py);
            if let Some(extra) = extra {
                let parsed = py.import("json")?.call_method1("loads", (extra,))?;
                kwargs.update(parsed.cast::<pyo3::types::PyMapping>()?)?;
            }
            kwargs.set_item("system_prompt", request.system.as_deref())?;
            let history = PyList::empty(py);
            for m in &request.history {
                let item = PyDict::new(py);
                item.set_item("role", m.role.as_str())?;
                item.set_item("content", &m.content)?;
                history.append(item)?;
            }
            kwargs.set_item("history_messages", history)?;
            if request.json_mode {
                kwargs.set_item("keyword_extraction", true)?;
            }
            if stream {
                kwargs.set_item("stream", true)?;
            }
            Ok((pyo3::types::PyTuple::new(py, [request.prompt.as_str()])?, kwargs))
        }
    }
}

fn llm_error(raised: Raised, what: &str) -> LlmError {
    match raised.transient() {
        Some(Transient::RateLimit) => LlmError::RateLimited { retry_after_secs: None },
        Some(Transient::Timeout) | Some(Transient::Connection) => LlmError::Connection(raised.text(what)),
        None => LlmError::InvalidResponse(raised.text(what)),
    }
}

/// What an LLM function returned: its text, or the stream of its pieces.
enum Reply {
    Text(String),
    Pieces(Py<PyAny>),
}

fn read_reply(value: &Bound<'_, PyAny>) -> PyResult<Reply> {
    if let Ok(text) = value.extract::<String>() {
        return Ok(Reply::Text(text));
    }
    if value.is_none() {
        return Ok(Reply::Text(String::new()));
    }
    if value.hasattr("__anext__")? || value.hasattr("__next__")? {
        return Ok(Reply::Pieces(value.clone().unbind()));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "expected a str (or an iterator of str when streaming), got {}",
        value.get_type().name()?
    )))
}

#[async_trait]
impl Llm for PyLlm {
    fn identity(&self) -> String {
        format!("python:{}", self.model)
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let what = self.func.what;
        let reply = self.func.call(self.args(request, false), read_reply).await.map_err(|r| llm_error(r, what))?;
        let content = match reply {
            Reply::Text(text) => text,
            Reply::Pieces(pieces) => {
                let mut stream = pieces_stream(pieces, self.func.loop_slot.get(), what);
                let mut text = String::new();
                while let Some(piece) = stream.next().await {
                    text.push_str(&piece?);
                }
                text
            }
        };
        Ok(ChatResponse { content, usage: None })
    }

    async fn chat_stream(&self, request: &ChatRequest) -> Result<TextStream, LlmError> {
        let what = self.func.what;
        let reply = self.func.call(self.args(request, true), read_reply).await.map_err(|r| llm_error(r, what))?;
        Ok(match reply {
            Reply::Text(text) => Box::pin(futures::stream::once(async move { Ok(text) })),
            Reply::Pieces(pieces) => pieces_stream(pieces, self.func.loop_slot.get(), what),
        })
    }
}

/// The pieces of an (async) iterator of `str` as a text stream.
fn pieces_stream(pieces: Py<PyAny>, locals: Option<TaskLocals>, what: &'static str) -> TextStream {
    let state = Some((pieces, locals));
    Box::pin(futures::stream::unfold(state, move |state| async move {
        let (pieces, locals) = state?;
        let next = next_piece(&pieces, locals.as_ref(), what).await;
        match next {
            Ok(Some(piece)) => Some((Ok(piece), Some((pieces, locals)))),
            Ok(None) => None,
            Err(e) => Some((Err(e), None)),
        }
    }))
}

async fn next_piece(
    pieces: &Py<PyAny>,
    locals: Option<&TaskLocals>,
    what: &'static str,
) -> Result<Option<String>, LlmError> {
    let is_async =
        enter(|py| Ok(pieces.bind(py).hasattr("__anext__").unwrap_or(false))).map_err(|r| llm_error(r, what))?;
    let value = if is_async {
        let fut = enter(|py| -> Result<PyFuture, Raised> {
            // `__anext__` is called on the loop, inside a coroutine: it may need a running loop
            let awaitable = py
                .import("lightrag_rs._aio")
                .and_then(|m| m.call_method1("next_piece", (pieces.bind(py),)))
                .map_err(|e| Raised::of(py, &e))?;
            match awaited(py, awaitable, locals, what)? {
                Step::Pending(f) => Ok(f),
                Step::Value(v) => Ok(Box::pin(async move { Ok(v) })),
            }
        })
        .map_err(|r| llm_error(r, what))?;
        match fut.await {
            Ok(v) => v,
            Err(e) => {
                return enter(|py| {
                    if e.is_instance_of::<pyo3::exceptions::PyStopAsyncIteration>(py) {
                        Ok(None)
                    } else {
                        Err(Raised::of(py, &e))
                    }
                })
                .map_err(|r| llm_error(r, what));
            }
        }
    } else {
        let pieces = enter(|py| Ok(pieces.clone_ref(py))).map_err(|r| llm_error(r, what))?;
        let next = tokio::task::spawn_blocking(move || {
            enter(|py| match pieces.bind(py).call_method0("__next__") {
                Ok(v) => Ok(Some(v.unbind())),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyStopIteration>(py) => Ok(None),
                Err(e) => Err(Raised::of(py, &e)),
            })
        })
        .await
        .map_err(|e| LlmError::Connection(format!("the thread reading the Python {what} stopped: {e}")))?
        .map_err(|r| llm_error(r, what))?;
        match next {
            Some(v) => v,
            None => return Ok(None),
        }
    };
    match interpreter::attach(|py| value.bind(py).extract::<String>()) {
        Ok(Ok(piece)) => Ok(Some(piece)),
        Ok(Err(_)) => Err(LlmError::InvalidResponse(format!("the Python {what} streamed a piece that is not a str"))),
        Err(exiting) => Err(llm_error(exiting.into(), what)),
    }
}

/// `embedding_func` (LightRAG's `EmbeddingFunc`: its `func`, `embedding_dim`, `model_name`) as
/// the embedding port.
pub(crate) struct PyEmbedder {
    func: PyFunc,
    identity: EmbeddingIdentity,
}

impl PyEmbedder {
    pub(crate) fn new(func: PyFunc, model: String, dim: usize) -> Self {
        PyEmbedder { func, identity: EmbeddingIdentity { model, dim } }
    }
}

/// Rows of floats out of a 2-D numpy array (its float32 values read at once), anything else
/// with `tolist`, a list of lists, or any sequence.
fn read_vectors(value: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<f32>>> {
    if let Some(rows) = packed_rows(value)? {
        return Ok(rows);
    }
    if value.hasattr("tolist")? {
        return value.call_method0("tolist")?.extract();
    }
    value.extract()
}

/// The rows of a 2-D array (numpy's interface: `shape`, `astype`, `tobytes`) from its values as
/// packed little-endian float32 — a Python float made for each number through `tolist` cost
/// more than the rest of an embedding call. `None` for anything else.
fn packed_rows(value: &Bound<'_, PyAny>) -> PyResult<Option<Vec<Vec<f32>>>> {
    if !(value.hasattr("shape")? && value.hasattr("astype")? && value.hasattr("tobytes")?) {
        return Ok(None);
    }
    let Ok((rows, cols)) = value.getattr("shape")?.extract::<(usize, usize)>() else {
        return Ok(None);
    };
    if cols == 0 {
        return Ok(Some(vec![Vec::new(); rows]));
    }
    let kwargs = PyDict::new(value.py());
    kwargs.set_item("copy", false)?;
    let values = value.call_method("astype", ("<f4",), Some(&kwargs))?.call_method0("tobytes")?;
    let Ok(bytes) = values.cast::<pyo3::types::PyBytes>() else {
        return Ok(None);
    };
    let bytes = bytes.as_bytes();
    if bytes.len() != rows * cols * 4 {
        return Ok(None);
    }
    let row = |values: &[u8]| {
        values.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect::<Vec<f32>>()
    };
    Ok(Some(bytes.chunks_exact(cols * 4).map(row).collect()))
}

fn embed_error(raised: Raised, what: &str) -> EmbedError {
    match raised.transient() {
        Some(Transient::RateLimit) => EmbedError::RateLimited { retry_after_secs: None },
        Some(Transient::Timeout) | Some(Transient::Connection) => EmbedError::Connection(raised.text(what)),
        None => EmbedError::InvalidResponse(raised.text(what)),
    }
}

#[async_trait]
impl Embedder for PyEmbedder {
    fn identity(&self) -> EmbeddingIdentity {
        self.identity.clone()
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let what = self.func.what;
        let vectors =
            self.func.call(embed_args(texts.to_vec()), read_vectors).await.map_err(|r| embed_error(r, what))?;
        if vectors.len() != texts.len() {
            return Err(EmbedError::InvalidResponse(format!(
                "the Python {what} returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            )));
        }
        if let Some(bad) = vectors.iter().find(|v| v.len() != self.identity.dim) {
            return Err(EmbedError::InvalidResponse(format!(
                "the Python {what} returned vectors of {} numbers, but embedding_dim is {}",
                bad.len(),
                self.identity.dim
            )));
        }
        Ok(vectors)
    }
}

/// The arguments of a Python call made under the GIL: positional and keyword.
type Args<'py> = PyResult<(Bound<'py, pyo3::types::PyTuple>, Bound<'py, PyDict>)>;

/// `embedding_func(texts)`.
fn embed_args(texts: Vec<String>) -> impl for<'py> FnOnce(Python<'py>) -> Args<'py> + Send + 'static {
    move |py| Ok((pyo3::types::PyTuple::new(py, [PyList::new(py, &texts)?])?, PyDict::new(py)))
}

/// `rerank_model_func(query=…, documents=…, top_n=…)`.
fn rerank_args(
    query: String,
    documents: Vec<String>,
    top_n: Option<usize>,
) -> impl for<'py> FnOnce(Python<'py>) -> Args<'py> + Send + 'static {
    move |py| {
        let kwargs = PyDict::new(py);
        kwargs.set_item("query", query)?;
        kwargs.set_item("documents", PyList::new(py, &documents)?)?;
        kwargs.set_item("top_n", top_n)?;
        Ok((pyo3::types::PyTuple::empty(py), kwargs))
    }
}

/// `rerank_model_func(query, documents, top_n)` → `[{"index", "relevance_score"}]` as the rerank port.
pub(crate) struct PyReranker {
    func: PyFunc,
}

impl PyReranker {
    pub(crate) fn new(func: PyFunc) -> Self {
        PyReranker { func }
    }
}

fn read_hits(value: &Bound<'_, PyAny>) -> PyResult<Vec<RerankHit>> {
    let mut out = Vec::new();
    for item in value.try_iter()? {
        let item = item?;
        out.push(RerankHit {
            index: item.get_item("index")?.extract()?,
            relevance_score: item.get_item("relevance_score")?.extract()?,
        });
    }
    Ok(out)
}

#[async_trait]
impl Reranker for PyReranker {
    fn identity(&self) -> String {
        "python:rerank_model_func".to_string()
    }

    async fn rerank(
        &self,
        query: &str,
        documents: &[String],
        top_n: Option<usize>,
    ) -> Result<Vec<RerankHit>, RerankError> {
        let what = self.func.what;
        let args = rerank_args(query.to_string(), documents.to_vec(), top_n);
        self.func.call(args, read_hits).await.map_err(|r| match r.transient() {
            Some(Transient::RateLimit) => RerankError::RateLimited { retry_after_secs: None },
            Some(_) => RerankError::Connection(r.text(what)),
            None => RerankError::InvalidResponse(r.text(what)),
        })
    }
}
