//! Running engine work for Python: as an awaitable on the caller's asyncio loop (the `a…`
//! methods), or to completion with the GIL released (the sync methods).
//!
//! Both run on the tokio runtime of `pyo3-async-runtimes` (one per process: it belongs to the
//! Python interpreter that loaded the module, as asyncio's loops do).

use std::future::Future;
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::Failure;

/// How often a sync call looks for a pending signal (Ctrl-C) while the engine works.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// `fut` as a Python awaitable on the running loop. Cancelling the awaitable drops `fut`.
pub(crate) fn awaitable<'py, T, F>(py: Python<'py>, fut: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = Result<T, Failure>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
{
    pyo3_async_runtimes::tokio::future_into_py(py, async move { fut.await.map_err(PyErr::from) })
}

/// Runs `fut` to completion without the GIL. A signal that raises in Python (Ctrl-C's
/// `KeyboardInterrupt`) drops `fut` — which cancels what it started — and is raised.
pub(crate) fn block_on<T, F>(py: Python<'_>, fut: F) -> PyResult<T>
where
    F: Future<Output = Result<T, Failure>> + Send,
    T: Send,
{
    block_on_then(py, fut, async {})
}

/// [`block_on`], where an interrupted call then waits for `wind_down` (a cancelled indexing run
/// stopping after its chunks in flight, as the CLI does on Ctrl-C) before the signal's exception
/// is raised; a second signal raises at once.
pub(crate) fn block_on_then<T, F, W>(py: Python<'_>, fut: F, wind_down: W) -> PyResult<T>
where
    F: Future<Output = Result<T, Failure>> + Send,
    W: Future<Output = ()> + Send,
    T: Send,
{
    py.detach(|| {
        pyo3_async_runtimes::tokio::get_runtime().block_on(async {
            let interrupted = {
                tokio::pin!(fut);
                loop {
                    tokio::select! {
                        out = &mut fut => return out.map_err(PyErr::from),
                        _ = tokio::time::sleep(SIGNAL_POLL) => {
                            if let Err(signal) = Python::attach(|py| py.check_signals()) {
                                break signal;
                            }
                        }
                    }
                }
            };
            // `fut` is dropped here: what it started is cancelled
            tokio::pin!(wind_down);
            loop {
                tokio::select! {
                    _ = &mut wind_down => return Err(interrupted),
                    _ = tokio::time::sleep(SIGNAL_POLL) => {
                        Python::attach(|py| py.check_signals())?;
                    }
                }
            }
        })
    })
}
