//! `_native.NativeRag`: one opened knowledge base, what `lightrag_rs.LightRAG` drives.
//!
//! Every method takes `blocking`: `True` runs the work to completion with the GIL released (the
//! sync methods of `LightRAG`), `False` returns an awaitable on the running loop (the `a…`
//! methods). Arguments and results cross as JSON text (the Python layer reads and writes
//! LightRAG's dicts); streamed answers cross as [`AnswerStream`] objects.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use lightrag_config::{Providers, Settings};
use lightrag_engine::Engine;
use lightrag_engine::providers::limiter::ProviderLimits;
use lightrag_engine::retrieval::query::{Answer, QueryMode};
use lightrag_ports::{Embedder, Llm, Reranker};
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::callables::{LoopSlot, PyEmbedder, PyFunc, PyLlm, PyReranker};
use crate::errors::Failure;
use crate::runtime::{awaitable, block_on, block_on_then};
use crate::stream::AnswerStream;
use crate::usecases;

/// An opened knowledge base.
#[pyclass(module = "lightrag_rs._native", frozen)]
pub(crate) struct NativeRag {
    engine: Engine,
    /// Where the coroutines of Python callables run.
    loop_slot: Arc<LoopSlot>,
    /// One indexing run at a time for this object (a cancelled one winds down first).
    runs: Arc<Mutex<()>>,
    /// Settings that the Python layer reports back (`working_dir`, the store file).
    data_dir: String,
    /// LightRAG settings given that this version does not act on: `[(name, why)]`.
    ignored: Vec<(String, String)>,
    /// The mode of a query that names none (`DEFAULT_QUERY_MODE`).
    default_mode: QueryMode,
}

/// The Python callables given to the constructor, or `None` where a native binding (or the
/// offline default) serves.
struct Callables {
    llm: Option<(Py<PyAny>, String, Option<String>)>,
    embed: Option<(Py<PyAny>, String, usize)>,
    rerank: Option<Py<PyAny>>,
}

/// Flags that make the settings valid for a Python function in a role: the configuration then
/// names a binding (so that extraction uses the LLM, and the store records the embedding model),
/// whose client is never built — the Python function takes its place.
fn placeholder_flags(flags: &mut BTreeMap<String, String>, c: &Callables) {
    if let Some((_, model, _)) = &c.llm {
        flags.insert("LLM_BINDING".into(), "ollama".into());
        flags.insert("LLM_MODEL".into(), model.clone());
    }
    if let Some((_, model, dim)) = &c.embed {
        flags.insert("EMBEDDING_BINDING".into(), "ollama".into());
        flags.insert("EMBEDDING_MODEL".into(), model.clone());
        flags.insert("EMBEDDING_DIM".into(), dim.to_string());
    }
}

/// Builds the providers: the Python functions where given, the configured bindings elsewhere.
fn providers(py: Python<'_>, settings: &Settings, c: Callables, slot: &Arc<LoopSlot>) -> PyResult<Providers> {
    let tokenizer = lightrag_config::build_tokenizer().map_err(Failure::from)?;
    let llm: Option<Arc<dyn Llm>> = match c.llm {
        Some((func, model, kwargs)) => {
            Some(Arc::new(PyLlm::new(PyFunc::new(py, func, slot.clone(), "llm_model_func")?, model, kwargs)))
        }
        None => lightrag_config::build_llm(&settings.llm).map_err(Failure::from)?,
    };
    let embedder: Arc<dyn Embedder> = match c.embed {
        Some((func, model, dim)) => {
            Arc::new(PyEmbedder::new(PyFunc::new(py, func, slot.clone(), "embedding_func")?, model, dim))
        }
        None => lightrag_config::build_embedder(&settings.embedding).map_err(Failure::from)?,
    };
    let reranker: Option<Arc<dyn Reranker>> = match c.rerank {
        Some(func) => Some(Arc::new(PyReranker::new(PyFunc::new(py, func, slot.clone(), "rerank_model_func")?))),
        None => lightrag_config::build_reranker(settings, &tokenizer).map_err(Failure::from)?,
    };
    Ok(Providers {
        tokenizer,
        llm,
        role_llms: lightrag_config::build_role_llms(settings).map_err(Failure::from)?,
        embedder,
        reranker,
        limits: ProviderLimits::new(),
        postgres: Arc::new(tokio::sync::OnceCell::new()),
    })
}

/// Runs `fut` blocking or as an awaitable. Its result becomes a Python object under the GIL,
/// on the caller's thread or the loop's side (never on an engine thread, see [`crate::interpreter`]).
fn dispatch<T, F>(py: Python<'_>, blocking: bool, fut: F) -> PyResult<Py<PyAny>>
where
    F: Future<Output = Result<T, Failure>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    if blocking { block_on(py, fut)?.into_py_any(py) } else { Ok(awaitable(py, fut)?.unbind()) }
}

/// `fut`'s JSON result as text, blocking or as an awaitable.
fn dispatch_json<F>(py: Python<'_>, blocking: bool, fut: F) -> PyResult<Py<PyAny>>
where
    F: Future<Output = Result<Value, Failure>> + Send + 'static,
{
    // JSON text: the Python layer `json.loads` it
    dispatch(py, blocking, async move { Ok(fut.await?.to_string()) })
}

#[pymethods]
impl NativeRag {
    /// Reads the settings (`flags`: LightRAG's environment names, over the environment and
    /// `./.env`), builds the providers and opens the store. Blocks without the GIL.
    #[staticmethod]
    #[pyo3(signature = (flags, llm=None, llm_model=String::new(), llm_kwargs=None, embed=None, embed_model=String::new(), embed_dim=0, rerank=None))]
    #[allow(clippy::too_many_arguments)]
    fn open(
        py: Python<'_>,
        mut flags: BTreeMap<String, String>,
        llm: Option<Py<PyAny>>,
        llm_model: String,
        llm_kwargs: Option<String>,
        embed: Option<Py<PyAny>>,
        embed_model: String,
        embed_dim: usize,
        rerank: Option<Py<PyAny>>,
    ) -> PyResult<NativeRag> {
        let callables = Callables {
            llm: llm.map(|f| (f, llm_model, llm_kwargs)),
            embed: embed.map(|f| (f, embed_model, embed_dim)),
            rerank,
        };
        placeholder_flags(&mut flags, &callables);
        let settings = Settings::load(None, flags).map_err(|e| Failure::from(lightrag_config::AppError::from(e)))?;
        let slot = Arc::new(LoopSlot::default());
        let providers = providers(py, &settings, callables, &slot)?;
        let data_dir = settings.data_dir().display().to_string();
        let default_mode = settings.engine.query.default_mode;
        let ignored = settings.ignored.iter().map(|i| (i.key.clone(), i.why.to_string())).collect();
        let place = match &settings.postgres {
            Some(pg) => {
                format!("cannot open the knowledge base '{}' in PostgreSQL", pg.workspace_for(&settings.workspace))
            }
            None => format!("cannot open the knowledge base in {data_dir}"),
        };
        let engine = block_on(py, async move {
            lightrag_config::open_engine_with(&settings, &providers).await.map_err(|e| Failure::from(e).context(place))
        })?;
        Ok(NativeRag { engine, loop_slot: slot, runs: Arc::new(Mutex::new(())), data_dir, ignored, default_mode })
    }

    /// The folder of the knowledge base (`working_dir[/workspace]`).
    #[getter]
    fn data_dir(&self) -> String {
        self.data_dir.clone()
    }

    /// The settings given that this version does not act on, with the reason: `[(name, why)]`.
    #[getter]
    fn ignored(&self) -> Vec<(String, String)> {
        self.ignored.clone()
    }

    /// Runs the coroutines of Python callables on `event_loop` from now on.
    fn set_loop(&self, event_loop: Bound<'_, PyAny>) {
        self.loop_slot.set(event_loop);
    }

    /// Enqueues and indexes documents; JSON `{track_id, processed, duplicates, chunks}`.
    fn insert(&self, py: Python<'_>, blocking: bool, input: &str) -> PyResult<Py<PyAny>> {
        let input = usecases::InsertIn::parse(input)?;
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        if !blocking {
            return dispatch_json(py, blocking, usecases::insert(engine, runs.clone(), Some(input)));
        }
        // Ctrl-C stops the run after the chunks in flight, then raises KeyboardInterrupt
        let wind_down = async move {
            let _stopped = runs.lock().await;
        };
        let fut = usecases::insert(engine, self.runs.clone(), Some(input));
        block_on_then(py, async move { Ok(fut.await?.to_string()) }, wind_down)?.into_py_any(py)
    }

    /// Enqueues documents without indexing them; JSON `{track_id}`.
    fn enqueue(&self, py: Python<'_>, blocking: bool, input: &str) -> PyResult<Py<PyAny>> {
        let input = usecases::InsertIn::parse(input)?;
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::enqueue(&engine, input).await })
    }

    /// Indexes whatever is pending.
    fn process(&self, py: Python<'_>, blocking: bool) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, usecases::process(engine, runs))
    }

    /// What inserting these documents would cost, without calling a model.
    fn estimate(&self, py: Python<'_>, blocking: bool, input: &str) -> PyResult<Py<PyAny>> {
        let input = usecases::InsertIn::parse(input)?;
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::estimate(&engine, input).await })
    }

    /// Answers a question. Returns `(json, stream)`: JSON `{response, data}` with `response`
    /// null when the answer streams, and the [`AnswerStream`] then (else `None`).
    fn query(&self, py: Python<'_>, blocking: bool, question: String, param: &str) -> PyResult<Py<PyAny>> {
        let valid = usecases::valid_query(question, param, self.default_mode)?;
        let engine = self.engine.clone();
        dispatch(py, blocking, async move {
            let result = usecases::query(&engine, &valid).await?;
            let data = usecases::data_json(&result);
            let (response, stream) = match result.answer {
                Answer::Stream(s) => (Value::Null, Some(AnswerStream::new(s, Some(engine.clone())))),
                other => {
                    engine.flush_usage().await?;
                    (json!(other.text().unwrap_or_default()), None)
                }
            };
            Ok((json!({"response": response, "data": data}).to_string(), stream))
        })
    }

    /// Retrieval only: LightRAG's `aquery_data` result as JSON.
    fn query_data(&self, py: Python<'_>, blocking: bool, question: String, param: &str) -> PyResult<Py<PyAny>> {
        let valid = usecases::valid_query(question, param, self.default_mode)?;
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::query_data(&engine, &valid).await })
    }

    /// Deletes documents in one pass; the JSON report (`deleted`, `not_found`, `busy`, …).
    #[pyo3(signature = (blocking, ids, delete_llm_cache=false))]
    fn delete_documents(
        &self,
        py: Python<'_>,
        blocking: bool,
        ids: Vec<String>,
        delete_llm_cache: bool,
    ) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::delete_documents(&engine, ids, delete_llm_cache).await })
    }

    /// Deletes an entity and its relations.
    fn delete_entity(&self, py: Python<'_>, blocking: bool, name: String) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, async move { usecases::delete_entity(&engine, &runs, name).await })
    }

    /// Deletes a relation.
    fn delete_relation(&self, py: Python<'_>, blocking: bool, src: String, tgt: String) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, async move { usecases::delete_relation(&engine, &runs, src, tgt).await })
    }

    /// Creates an entity (`data`: LightRAG's `entity_data` as JSON).
    fn create_entity(&self, py: Python<'_>, blocking: bool, name: String, data: String) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, async move { usecases::create_entity(&engine, &runs, name, &data).await })
    }

    /// Edits an entity (`changes`: LightRAG's `updated_data` as JSON).
    fn edit_entity(
        &self,
        py: Python<'_>,
        blocking: bool,
        name: String,
        changes: String,
        allow_rename: bool,
        allow_merge: bool,
    ) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, async move {
            usecases::edit_entity(&engine, &runs, name, &changes, allow_rename, allow_merge).await
        })
    }

    /// Creates a relation (`data`: LightRAG's `relation_data` as JSON).
    fn create_relation(
        &self,
        py: Python<'_>,
        blocking: bool,
        src: String,
        tgt: String,
        data: String,
    ) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, async move { usecases::create_relation(&engine, &runs, src, tgt, &data).await })
    }

    /// Edits a relation (`changes`: LightRAG's `updated_data` as JSON).
    fn edit_relation(
        &self,
        py: Python<'_>,
        blocking: bool,
        src: String,
        tgt: String,
        changes: String,
    ) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, async move { usecases::edit_relation(&engine, &runs, src, tgt, &changes).await })
    }

    /// Merges `sources` into `target`.
    #[pyo3(signature = (blocking, sources, target, target_data=None))]
    fn merge_entities(
        &self,
        py: Python<'_>,
        blocking: bool,
        sources: Vec<String>,
        target: String,
        target_data: Option<String>,
    ) -> PyResult<Py<PyAny>> {
        let (engine, runs) = (self.engine.clone(), self.runs.clone());
        dispatch_json(py, blocking, async move {
            usecases::merge_entities(&engine, &runs, sources, target, target_data.as_deref()).await
        })
    }

    /// Writes the graph to `path` (`json`, `graphml` or `csv`).
    fn export(&self, py: Python<'_>, blocking: bool, path: String, format: String) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move {
            usecases::export(&engine, &path, &format).await?;
            Ok(Value::Null)
        })
    }

    /// Status records by document id.
    fn docs_by_ids(&self, py: Python<'_>, blocking: bool, ids: Vec<String>) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::docs_by_ids(&engine, &ids).await })
    }

    /// Status records of a track id.
    fn docs_by_track_id(&self, py: Python<'_>, blocking: bool, track_id: String) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::docs_by_track_id(&engine, &track_id).await })
    }

    /// Empties the LLM cache; the number of entries removed.
    fn clear_cache(&self, py: Python<'_>, blocking: bool) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { Ok(json!(usecases::clear_cache(&engine).await?)) })
    }

    /// The consistency report (`repair`: fix what needs no LLM first).
    fn check(&self, py: Python<'_>, blocking: bool, repair: bool) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::check(&engine, repair).await })
    }

    /// Entity resolution: the proposed groups, merged when `apply`.
    fn resolve_entities(&self, py: Python<'_>, blocking: bool, apply: bool, confirm: bool) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move { usecases::resolve_entities(&engine, apply, confirm).await })
    }

    /// Writes the usage ledger (called by `finalize_storages`).
    fn flush(&self, py: Python<'_>, blocking: bool) -> PyResult<Py<PyAny>> {
        let engine = self.engine.clone();
        dispatch_json(py, blocking, async move {
            engine.flush_usage().await?;
            Ok(Value::Null)
        })
    }
}
