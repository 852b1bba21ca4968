//! Fail points between the steps of a commit, for fault-injection tests. With the `failpoints`
//! feature (test builds only), the `FAILPOINTS` environment variable arms them — e.g.
//! `FAILPOINTS="sqlite::apply::entities=1*return(crash)"` aborts the process once that step has
//! run inside the open transaction (a crash between two statements), and `…=1*return` fails the
//! commit with an error instead. Without the feature [`hit`] is an empty inline function.

use lightrag_ports::StoreError;

/// The commit steps that have a fail point after them, in order (`sqlite::apply::<step>`).
pub const APPLY_STEPS: [&str; 11] = [
    "checks",
    "deletions",
    "documents",
    "chunks",
    "extractions",
    "entities",
    "relations",
    "chunk_lists",
    "vectors",
    "links",
    "before_commit",
];

/// Passes the fail point `sqlite::apply::<step>`: aborts the process when armed with
/// `return(crash)`, returns an error when armed with `return`, else nothing.
#[cfg(feature = "failpoints")]
pub(crate) fn hit(step: &str) -> Result<(), StoreError> {
    static SETUP: std::sync::Once = std::sync::Once::new();
    // reads FAILPOINTS once per process; the scenario stays configured until the process ends
    SETUP.call_once(|| std::mem::forget(fail::FailScenario::setup()));
    let name = format!("sqlite::apply::{step}");
    fail::fail_point!(&name, |arg: Option<String>| {
        if arg.as_deref() == Some("crash") {
            std::process::abort();
        }
        Err(StoreError::Backend(format!("fail point {name} fired")))
    });
    Ok(())
}

/// Without the `failpoints` feature: nothing.
#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn hit(_step: &str) -> Result<(), StoreError> {
    Ok(())
}
