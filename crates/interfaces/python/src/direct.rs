//! LightRAG's model functions called directly from Python (`openai_complete_if_cache(...)`,
//! `openai_embed(...)`, `ollama_model_complete(...)` …): one call through our HTTP clients.
//!
//! When one of these functions is *passed* to `LightRAG` instead, the Python layer turns it into
//! settings and the engine builds the same client once (no Python in the hot path); these
//! entry points serve the functions users call from their own wrappers — LightRAG's callback
//! examples call `openai_complete_if_cache` once per extraction. Reading the settings and
//! building a client (its TLS set-up, a new connection) cost more than the call's own work, so a
//! [`DirectClients`] keeps one client per argument set (the function's flags and the providers'
//! request options from the environment), the [`MAX_CLIENTS`] most recently used.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use lightrag_config::{AppError, RawConfig, Settings};
use lightrag_ports::{ChatMessage, ChatRequest, Embedder, Llm, Role};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use serde::Deserialize;

use crate::errors::{Failure, Kind, bad_json};
use crate::runtime::{awaitable, block_on};
use crate::stream::AnswerStream;

/// One earlier turn (`history_messages` item).
#[derive(Debug, Deserialize)]
struct Turn {
    role: String,
    content: String,
}

/// Environment variables a direct call takes: the providers' request options
/// (`OPENAI_LLM_TEMPERATURE`, `OLLAMA_LLM_NUM_CTX` …). The rest of the configuration (another
/// model, a knowledge base's settings) has nothing to do with one call, so it is not read.
const PROVIDER_OPTIONS: &[&str] = &["OPENAI_LLM_", "OLLAMA_LLM_", "OLLAMA_EMBEDDING_", "AZURE_"];

/// How many clients of each kind (chat, embedding) a [`DirectClients`] keeps: a program calls a
/// handful of models, hosts or keys; one that cycles through more only builds clients again.
pub(crate) const MAX_CLIENTS: usize = 16;

/// What a client is built from: the providers' request options from the environment and the
/// call's flags, each sorted by name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    env: Vec<(String, String)>,
    flags: BTreeMap<String, String>,
}

/// The providers' request options in the environment now, sorted.
fn provider_env() -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| PROVIDER_OPTIONS.iter().any(|p| k.starts_with(p)))
        .collect();
    env.sort();
    env
}

/// The settings of one direct call: the flags (LightRAG's names, from the function's arguments)
/// over the providers' request options.
fn settings(key: &Key) -> Result<Settings, Failure> {
    let raw = RawConfig::from_sources(key.env.iter().cloned(), None, None, key.flags.clone())
        .map_err(|e| Failure::from(AppError::from(e)))?;
    Settings::from_raw(&raw).map_err(|e| Failure::from(AppError::from(e)))
}

/// At most [`MAX_CLIENTS`] clients by key, the least recently used dropped first.
struct Recent<V> {
    /// Oldest use first.
    entries: Vec<(Key, V)>,
}

impl<V: Clone> Recent<V> {
    fn new() -> Self {
        Recent { entries: Vec::new() }
    }

    /// The client of `key`, now the most recently used.
    fn get(&mut self, key: &Key) -> Option<V> {
        let at = self.entries.iter().position(|(k, _)| k == key)?;
        let entry = self.entries.remove(at);
        let value = entry.1.clone();
        self.entries.push(entry);
        Some(value)
    }

    fn put(&mut self, key: Key, value: V) {
        self.entries.retain(|(k, _)| *k != key);
        if self.entries.len() >= MAX_CLIENTS {
            self.entries.remove(0);
        }
        self.entries.push((key, value));
    }
}

/// The client of `flags` from `cache`, built by `build` from the call's settings when missing.
fn client<V: Clone>(
    cache: &Mutex<Recent<V>>,
    flags: BTreeMap<String, String>,
    build: impl FnOnce(&Settings) -> Result<V, Failure>,
) -> Result<V, Failure> {
    let key = Key { env: provider_env(), flags };
    let poisoned = || Failure::new(Kind::Config, "the client cache is unusable after a panic; restart the program");
    if let Some(found) = cache.lock().map_err(|_| poisoned())?.get(&key) {
        return Ok(found);
    }
    // built outside the lock: two first calls at once may both build, and one client is kept
    let built = build(&settings(&key)?)?;
    cache.lock().map_err(|_| poisoned())?.put(key, built.clone());
    Ok(built)
}

/// What a chat call returns: the text, or the stream of its pieces. Made a Python object under
/// the GIL by `block_on` / `awaitable` (never on an engine thread, see [`crate::interpreter`]).
enum Reply {
    Text(String),
    Stream(AnswerStream),
}

impl<'py> IntoPyObject<'py> for Reply {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Reply::Text(text) => Ok(pyo3::types::PyString::new(py, &text).into_any()),
            Reply::Stream(pieces) => Ok(Bound::new(py, pieces)?.into_any()),
        }
    }
}

/// What an embedding call returns: a list of lists of floats, or (`packed`) the vectors' float32
/// values one after the other in a `bytearray` (little-endian), which the Python layer views as a
/// numpy array without making a Python float of each number.
enum Vectors {
    Lists(Vec<Vec<f32>>),
    Packed(Vec<Vec<f32>>),
}

impl<'py> IntoPyObject<'py> for Vectors {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Vectors::Lists(vectors) => vectors.into_bound_py_any(py),
            Vectors::Packed(vectors) => {
                let bytes: Vec<u8> = vectors.iter().flatten().flat_map(|x| x.to_le_bytes()).collect();
                Ok(pyo3::types::PyByteArray::new(py, &bytes).into_any())
            }
        }
    }
}

/// The clients of LightRAG's model functions called directly, one per argument set. The Python
/// layer holds one for the process (`lightrag_rs.llm._call`).
#[pyclass(module = "lightrag_rs._native", frozen)]
pub(crate) struct DirectClients {
    llms: Mutex<Recent<Arc<dyn Llm>>>,
    embedders: Mutex<Recent<Arc<dyn Embedder>>>,
}

#[pymethods]
impl DirectClients {
    #[new]
    fn new() -> Self {
        DirectClients { llms: Mutex::new(Recent::new()), embedders: Mutex::new(Recent::new()) }
    }

    /// How many chat and embedding clients are kept: `(chat, embedding)`.
    fn sizes(&self) -> (usize, usize) {
        let llms = self.llms.lock().map(|c| c.entries.len()).unwrap_or(0);
        let embedders = self.embedders.lock().map(|c| c.entries.len()).unwrap_or(0);
        (llms, embedders)
    }

    /// Drops every client.
    fn clear(&self) {
        if let Ok(mut c) = self.llms.lock() {
            c.entries.clear();
        }
        if let Ok(mut c) = self.embedders.lock() {
            c.entries.clear();
        }
    }

    /// Sends one chat request with the binding of `flags` (`LLM_BINDING`, `LLM_MODEL`,
    /// `LLM_BINDING_HOST`, `LLM_BINDING_API_KEY` …). Returns the text, or an [`AnswerStream`]
    /// when `stream`; blocking or as an awaitable.
    #[pyo3(signature = (blocking, flags, prompt, system_prompt=None, history="[]".to_string(), json_mode=false, stream=false))]
    #[allow(clippy::too_many_arguments)]
    fn complete(
        &self,
        py: Python<'_>,
        blocking: bool,
        mut flags: BTreeMap<String, String>,
        prompt: String,
        system_prompt: Option<String>,
        history: String,
        json_mode: bool,
        stream: bool,
    ) -> PyResult<Py<PyAny>> {
        // the settings need some embedding model; this one is never built
        for (key, value) in [("EMBEDDING_BINDING", "ollama"), ("EMBEDDING_MODEL", "unused"), ("EMBEDDING_DIM", "1")] {
            flags.entry(key.into()).or_insert_with(|| value.into());
        }
        let llm = client(&self.llms, flags, |settings| {
            lightrag_config::build_llm(&settings.llm)
                .map_err(Failure::from)?
                .ok_or_else(|| Failure::new(Kind::Config, "no LLM binding is configured for this call"))
        })?;
        let turns: Vec<Turn> = serde_json::from_str(&history).map_err(|e| bad_json("history_messages", e))?;
        let history = turns
            .into_iter()
            .map(|t| ChatMessage::new(Role::parse(&t.role).unwrap_or(Role::User), t.content))
            .collect();
        let request = ChatRequest { system: system_prompt, history, prompt, json_mode, ..ChatRequest::default() };
        let fut = async move {
            if stream {
                let pieces =
                    llm.chat_stream(&request).await.map_err(|e| Failure::from(lightrag_engine::EngineError::Llm(e)))?;
                Ok::<_, Failure>(Reply::Stream(AnswerStream::new(pieces, None)))
            } else {
                let reply =
                    llm.chat(&request).await.map_err(|e| Failure::from(lightrag_engine::EngineError::Llm(e)))?;
                Ok(Reply::Text(reply.content))
            }
        };
        if blocking { block_on(py, fut)?.into_py_any(py) } else { Ok(awaitable(py, fut)?.unbind()) }
    }

    /// Embeds `texts` with the binding of `flags` (`EMBEDDING_BINDING`, `EMBEDDING_MODEL`,
    /// `EMBEDDING_DIM`, `EMBEDDING_BINDING_HOST`, `EMBEDDING_BINDING_API_KEY` …): a list of
    /// vectors, or with `packed` their float32 values in one `bytearray`; blocking or as an
    /// awaitable.
    #[pyo3(signature = (blocking, flags, texts, packed=false))]
    fn embed(
        &self,
        py: Python<'_>,
        blocking: bool,
        mut flags: BTreeMap<String, String>,
        texts: Vec<String>,
        packed: bool,
    ) -> PyResult<Py<PyAny>> {
        flags.entry("LLM_BINDING".into()).or_insert_with(|| "none".into());
        let embedder = client(&self.embedders, flags, |settings| {
            lightrag_config::build_embedder(&settings.embedding).map_err(Failure::from)
        })?;
        let fut = async move {
            let vectors =
                embedder.embed(&texts).await.map_err(|e| Failure::from(lightrag_engine::EngineError::Embed(e)))?;
            Ok::<_, Failure>(if packed { Vectors::Packed(vectors) } else { Vectors::Lists(vectors) })
        };
        if blocking { block_on(py, fut)?.into_py_any(py) } else { Ok(awaitable(py, fut)?.unbind()) }
    }
}
