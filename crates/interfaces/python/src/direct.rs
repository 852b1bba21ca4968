//! LightRAG's model functions called directly from Python (`openai_complete_if_cache(...)`,
//! `openai_embed(...)`, `ollama_model_complete(...)` …): one call through our HTTP clients.
//!
//! When one of these functions is *passed* to `LightRAG` instead, the Python layer turns it into
//! settings and the engine builds the same client once (no Python in the hot path); these
//! entry points serve the functions users call from their own wrappers.

use std::collections::BTreeMap;

use lightrag_config::{AppError, RawConfig, Settings};
use lightrag_ports::{ChatMessage, ChatRequest, Role};
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

/// The settings of one direct call: `flags` (LightRAG's names, from the function's arguments)
/// over the providers' request options from the environment.
fn settings(flags: BTreeMap<String, String>) -> Result<Settings, Failure> {
    let env = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| PROVIDER_OPTIONS.iter().any(|p| k.starts_with(p)));
    let raw = RawConfig::from_sources(env, None, None, flags).map_err(|e| Failure::from(AppError::from(e)))?;
    Settings::from_raw(&raw).map_err(|e| Failure::from(AppError::from(e)))
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

/// Sends one chat request with the binding of `flags` (`LLM_BINDING`, `LLM_MODEL`,
/// `LLM_BINDING_HOST`, `LLM_BINDING_API_KEY` …). Returns the text, or an [`AnswerStream`] when
/// `stream`; blocking or as an awaitable.
#[pyfunction]
#[pyo3(signature = (blocking, flags, prompt, system_prompt=None, history="[]".to_string(), json_mode=false, stream=false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn complete(
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
    let settings = settings(flags)?;
    let llm = lightrag_config::build_llm(&settings.llm)
        .map_err(Failure::from)?
        .ok_or_else(|| Failure::new(Kind::Config, "no LLM binding is configured for this call"))?;
    let turns: Vec<Turn> = serde_json::from_str(&history).map_err(|e| bad_json("history_messages", e))?;
    let history =
        turns.into_iter().map(|t| ChatMessage::new(Role::parse(&t.role).unwrap_or(Role::User), t.content)).collect();
    let request = ChatRequest { system: system_prompt, history, prompt, json_mode, ..ChatRequest::default() };
    let fut = async move {
        if stream {
            let pieces =
                llm.chat_stream(&request).await.map_err(|e| Failure::from(lightrag_engine::EngineError::Llm(e)))?;
            Ok::<_, Failure>(Reply::Stream(AnswerStream::new(pieces, None)))
        } else {
            let reply = llm.chat(&request).await.map_err(|e| Failure::from(lightrag_engine::EngineError::Llm(e)))?;
            Ok(Reply::Text(reply.content))
        }
    };
    if blocking { block_on(py, fut)?.into_py_any(py) } else { Ok(awaitable(py, fut)?.unbind()) }
}

/// Embeds `texts` with the binding of `flags` (`EMBEDDING_BINDING`, `EMBEDDING_MODEL`,
/// `EMBEDDING_DIM`, `EMBEDDING_BINDING_HOST`, `EMBEDDING_BINDING_API_KEY` …): a list of vectors,
/// blocking or as an awaitable.
#[pyfunction]
pub(crate) fn embed(
    py: Python<'_>,
    blocking: bool,
    mut flags: BTreeMap<String, String>,
    texts: Vec<String>,
) -> PyResult<Py<PyAny>> {
    flags.entry("LLM_BINDING".into()).or_insert_with(|| "none".into());
    let settings = settings(flags)?;
    let embedder = lightrag_config::build_embedder(&settings.embedding).map_err(Failure::from)?;
    let fut =
        async move { embedder.embed(&texts).await.map_err(|e| Failure::from(lightrag_engine::EngineError::Embed(e))) };
    if blocking { block_on(py, fut)?.into_py_any(py) } else { Ok(awaitable(py, fut)?.unbind()) }
}
