//! A streamed answer as a Python iterator: `async for piece in stream` (each `__anext__` is an
//! awaitable on the running loop) or `for piece in stream` (blocking, GIL released).

use std::sync::Arc;

use futures::StreamExt;
use lightrag_engine::{Engine, EngineError};
use lightrag_ports::TextStream;
use pyo3::exceptions::{PyStopAsyncIteration, PyStopIteration};
use pyo3::prelude::*;
use tokio::sync::Mutex;

use crate::errors::Failure;
use crate::runtime::{awaitable, block_on};

/// The pieces of an answer, in order; `None` once it has ended.
#[pyclass(module = "lightrag_rs._native", frozen)]
pub(crate) struct AnswerStream {
    pieces: Arc<Mutex<Option<TextStream>>>,
    /// Writes the usage of the query once the stream has ended (`None`: a direct model call).
    engine: Option<Engine>,
}

impl AnswerStream {
    pub(crate) fn new(stream: TextStream, engine: Option<Engine>) -> Self {
        AnswerStream { pieces: Arc::new(Mutex::new(Some(stream))), engine }
    }
}

/// Why `__anext__` gave no piece; made a Python exception under the GIL, on the loop's side.
enum Step {
    End,
    Failed(Failure),
}

impl From<Step> for PyErr {
    fn from(step: Step) -> PyErr {
        match step {
            Step::End => PyStopAsyncIteration::new_err(()),
            Step::Failed(e) => e.into(),
        }
    }
}

/// The next piece, or `None` at the end (the stream is then dropped and the usage written).
async fn next(pieces: Arc<Mutex<Option<TextStream>>>, engine: Option<Engine>) -> Result<Option<String>, Failure> {
    let mut guard = pieces.lock().await;
    let Some(stream) = guard.as_mut() else { return Ok(None) };
    match stream.next().await {
        Some(Ok(piece)) => Ok(Some(piece)),
        Some(Err(e)) => {
            *guard = None;
            Err(Failure::from(EngineError::Llm(e)).context("the answer stream broke"))
        }
        None => {
            *guard = None;
            if let Some(engine) = engine {
                engine.flush_usage().await?;
            }
            Ok(None)
        }
    }
}

#[pymethods]
impl AnswerStream {
    fn __aiter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __anext__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (pieces, engine) = (self.pieces.clone(), self.engine.clone());
        awaitable(py, async move {
            match next(pieces, engine).await {
                Ok(Some(piece)) => Ok(piece),
                Ok(None) => Err(Step::End),
                Err(e) => Err(Step::Failed(e)),
            }
        })
    }

    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<String> {
        let (pieces, engine) = (self.pieces.clone(), self.engine.clone());
        match block_on(py, next(pieces, engine))? {
            Some(piece) => Ok(piece),
            None => Err(PyStopIteration::new_err(())),
        }
    }
}
