//! Running engine work for Python: as an awaitable on the caller's asyncio loop (the `a…`
//! methods), or to completion with the GIL released (the sync methods).
//!
//! Both run on the tokio runtime of `pyo3-async-runtimes` (one per process: it belongs to the
//! Python interpreter that loaded the module, as asyncio's loops do).

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use tokio::sync::oneshot;

use crate::errors::Failure;
use crate::interpreter;

/// How often a sync call looks for a pending signal (Ctrl-C) while the engine works.
const SIGNAL_POLL: Duration = Duration::from_millis(100);

/// `fut` as a Python awaitable on the running loop. Cancelling the awaitable drops `fut` (which
/// cancels what it started).
///
/// Our own rather than `pyo3_async_runtimes`' `future_into_py`: the result is handed to the loop
/// from an engine thread, and that entry into Python must go through [`interpreter::attach`] so
/// that it never overlaps the interpreter's exit.
pub(crate) fn awaitable<'py, T, E, F>(py: Python<'py>, fut: F) -> PyResult<Bound<'py, PyAny>>
where
    F: Future<Output = Result<T, E>> + Send + 'static,
    T: for<'a> IntoPyObject<'a> + Send + 'static,
    E: Into<PyErr> + Send + 'static,
{
    let event_loop = py.import("asyncio")?.call_method0("get_running_loop")?;
    let py_fut = event_loop.call_method0("create_future")?;
    let (cancel_tx, cancel_rx) = oneshot::channel();
    py_fut.call_method1("add_done_callback", (OnDone { cancel: Mutex::new(Some(cancel_tx)) },))?;
    let (event_loop, target) = (event_loop.unbind(), py_fut.clone().unbind());
    pyo3_async_runtimes::tokio::get_runtime().spawn(async move {
        // the awaitable done before `fut` is the awaitable cancelled; a dropped callback (the
        // loop gone) cancels nothing
        let cancelled = async {
            if cancel_rx.await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let out = tokio::select! {
            out = fut => out,
            () = cancelled => return,
        };
        // the GIL is taken on a blocking thread, never on the runtime's workers
        tokio::task::spawn_blocking(move || {
            let _ = interpreter::attach(|py| settle_on_loop(py, &event_loop, &target, out));
        });
    });
    Ok(py_fut)
}

/// Hands `out` to the Python future `target` on its loop (if the loop is still open: otherwise
/// nobody is waiting).
fn settle_on_loop<T, E>(py: Python<'_>, event_loop: &Py<PyAny>, target: &Py<PyAny>, out: Result<T, E>)
where
    T: for<'a> IntoPyObject<'a>,
    E: Into<PyErr>,
{
    let value = out.map_err(Into::into).and_then(|v| v.into_py_any(py));
    let (ok, value) = match value {
        Ok(v) => (true, v),
        Err(e) => (false, e.into_value(py).into_any()),
    };
    let settle = match wrap_pyfunction!(settle, py) {
        Ok(f) => f,
        Err(_) => return,
    };
    // a closed loop refuses the callback: the awaitable is gone with it
    let _ = event_loop.bind(py).call_method1("call_soon_threadsafe", (settle, target.bind(py), ok, value));
}

/// Runs on the loop: sets the result (or the exception) unless the future is already done.
#[pyfunction]
fn settle(target: &Bound<'_, PyAny>, ok: bool, value: Bound<'_, PyAny>) -> PyResult<()> {
    if target.call_method0("done")?.is_truthy()? {
        return Ok(());
    }
    if ok { target.call_method1("set_result", (value,)) } else { target.call_method1("set_exception", (value,)) }
        .map(|_| ())
}

/// The awaitable's done callback: tells the task that the awaitable is done (cancelled, when it
/// comes before the result).
#[pyclass]
struct OnDone {
    cancel: Mutex<Option<oneshot::Sender<()>>>,
}

#[pymethods]
impl OnDone {
    fn __call__(&self, _fut: &Bound<'_, PyAny>) {
        if let Some(tx) = self.cancel.lock().ok().and_then(|mut c| c.take()) {
            let _ = tx.send(());
        }
    }
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
