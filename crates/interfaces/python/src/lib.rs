//! The native module of the `lightrag-rs` Python package (`lightrag_rs._native`): LightRAG's
//! Python API on the lightrag-rs engine.
//!
//! The Python layer (`python/lightrag_rs`: `LightRAG`, `QueryParam`, `EmbeddingFunc`,
//! `llm.openai`, `llm.ollama` …) reads LightRAG's arguments and calls this module:
//!
//! * [`rag`] — `NativeRag`, an opened knowledge base; every use case sync or as an awaitable;
//! * [`usecases`] — the use cases: the application layer's (insert, estimate, query, delete,
//!   document reads) and, on the engine, what that layer does not own yet (graph edits, export);
//! * [`callables`] — Python functions as the engine's LLM, embedding and rerank ports;
//! * [`direct`] — our HTTP clients behind LightRAG's model functions called from Python, one per
//!   argument set;
//! * [`stream`] — streamed answers as (async) iterators; [`runtime`] — awaitables and blocking
//!   calls without the GIL; [`interpreter`] — entering Python from engine threads, and the
//!   interpreter's exit; [`errors`] — errors as the package's exceptions.

mod callables;
mod direct;
mod errors;
mod interpreter;
mod rag;
mod runtime;
mod stream;
mod usecases;

use pyo3::prelude::*;

/// `lightrag_rs._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<rag::NativeRag>()?;
    m.add_class::<stream::AnswerStream>()?;
    m.add_class::<direct::DirectClients>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    interpreter::register(m)?;
    Ok(())
}
