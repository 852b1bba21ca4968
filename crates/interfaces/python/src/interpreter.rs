//! Entering Python from the engine's own threads, and standing back when the interpreter exits.
//!
//! The engine runs on tokio threads that Python did not create. When one of them is inside
//! Python at the moment the interpreter finalizes (it released the GIL for a moment, for
//! instance while `call_soon_threadsafe` wakes the event loop up), CPython up to 3.13 ends that
//! thread with `pthread_exit` as it takes the GIL back. The unwind then runs our destructors,
//! which release Python objects while the main thread is tearing the interpreter down — a crash
//! at exit (seen as `SIGSEGV` in `method_dealloc` during `Py_FinalizeEx`'s last collection).
//!
//! So every entry into Python from an engine thread goes through [`attach`], which counts the
//! threads inside, and the module registers [`at_exit`] with `atexit` (which runs before the
//! interpreter starts finalizing): from then on [`attach`] refuses, and the exit waits, without
//! the GIL, until the threads inside have left. A refused entry is an error of the call it
//! served; nobody is waiting for that call any more.
//!
//! This state is per process because the interpreter is: an extension module is loaded once per
//! interpreter and this package supports only the main one.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// Set by [`at_exit`]: the interpreter is about to finalize.
static EXITING: AtomicBool = AtomicBool::new(false);
/// Engine threads inside [`attach`] now.
static INSIDE: AtomicUsize = AtomicUsize::new(0);

/// How long the exit waits for engine threads to leave Python (a user's synchronous model
/// function may be running in one of them).
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// The interpreter is exiting: Python can no longer be entered from an engine thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exiting;

impl std::fmt::Display for Exiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the Python interpreter is exiting")
    }
}

/// Leaves the count of threads inside when dropped (also on a panic).
struct Inside;

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `f` with the GIL from an engine thread, unless the interpreter is exiting.
pub(crate) fn attach<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Result<R, Exiting> {
    // counted before the check: [`at_exit`] sets the flag before it reads the count, so either
    // it waits for this thread or this thread sees the flag
    INSIDE.fetch_add(1, Ordering::SeqCst);
    let _inside = Inside;
    if EXITING.load(Ordering::SeqCst) {
        return Err(Exiting);
    }
    Ok(Python::attach(f))
}

/// Registered with `atexit` when the module loads: closes [`attach`] and waits (without the GIL,
/// so they can finish) for the engine threads inside Python to leave.
#[pyfunction]
pub(crate) fn at_exit(py: Python<'_>) {
    EXITING.store(true, Ordering::SeqCst);
    py.detach(|| {
        let deadline = Instant::now() + EXIT_GRACE;
        while INSIDE.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    });
}

/// Registers [`at_exit`] with Python's `atexit`.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let hook = wrap_pyfunction!(at_exit, m)?;
    m.py().import("atexit")?.call_method1("register", (hook,))?;
    Ok(())
}
