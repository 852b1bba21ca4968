//! What a deletion does to each entity and relation the document contributed to, decided from
//! the record, the chunks of the document its list holds, and — only when the record must be
//! rebuilt — the part of its remaining list that will be shown. Nothing here reads a whole list.

use lightrag_ports::{GraphKey, ListRange, Store};

use crate::config::SourceIdsLimitMethod;
use crate::error::Result;
use crate::indexing::merge::sources::Limits;

/// What becomes of one entity or relation.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Fate {
    /// No chunk is left.
    Gone,
    /// What it shows did not come from the document: it stays as it is (the store shortens its
    /// list). Its cut marker stays too: it was set by the merge that filled the shown part, which
    /// the document was not part of — as in a build without the document.
    Kept,
    /// Rebuilt from the contributions of `window` (the shown part of the remaining list, in list
    /// order) out of `total` remaining chunks.
    Rebuild {
        /// Shown chunks after the deletion.
        window: Vec<String>,
        /// Chunks left.
        total: usize,
    },
}

/// The parts of a stored record a decision reads.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shown<'a> {
    /// Its shown chunk ids.
    pub source_ids: &'a [String],
    /// Its list length.
    pub chunk_count: usize,
}

/// Decides the fate of `owner`, which loses `lost` (the document's chunks in its list; maybe
/// empty when only the document's links name it). `None`: nothing of the document is in its
/// list, so it is left alone. Adds the list entries read to `read`.
pub(super) async fn decide(
    store: &dyn Store,
    owner: &GraphKey,
    shown: Shown<'_>,
    lost: &[String],
    limits: Limits,
    read: &mut usize,
) -> Result<Option<Fate>> {
    let remaining = shown.chunk_count.saturating_sub(lost.len());
    if remaining == 0 {
        return Ok(Some(Fate::Gone));
    }
    if lost.is_empty() {
        return Ok(None);
    }
    let limit = limits.max_source_ids.max(1);
    let shows_lost = shown.source_ids.iter().any(|c| lost.contains(c));
    if limits.method == SourceIdsLimitMethod::Keep && !shows_lost && remaining >= limit {
        // the first `limit` chunks stay the first: what the record shows was merged from them,
        // never from the document's (KEEP discarded those)
        return Ok(Some(Fate::Kept));
    }
    let window = window(store, owner, lost, limits, read).await?;
    Ok(Some(Fate::Rebuild { window, total: remaining }))
}

/// The shown part of `owner`'s list once `lost` is gone: the first (KEEP) or last (FIFO)
/// `limit` remaining ids, in list order.
pub(super) async fn window(
    store: &dyn Store,
    owner: &GraphKey,
    lost: &[String],
    limits: Limits,
    read: &mut usize,
) -> Result<Vec<String>> {
    let limit = limits.max_source_ids.max(1);
    let wanted = limit.saturating_add(lost.len());
    let range = match limits.method {
        SourceIdsLimitMethod::Keep => ListRange::first(wanted),
        SourceIdsLimitMethod::Fifo => ListRange::last(wanted),
    };
    let ids = store.chunk_list(owner, range).await?;
    *read += ids.len();
    let left: Vec<String> = ids.into_iter().filter(|c| !lost.contains(c)).collect();
    Ok(shown_part(left, limits))
}

/// The shown part of a list: its first (KEEP) or last (FIFO) `limit` ids.
pub(crate) fn shown_part(list: Vec<String>, limits: Limits) -> Vec<String> {
    let limit = limits.max_source_ids.max(1);
    match limits.method {
        SourceIdsLimitMethod::Keep => list.into_iter().take(limit).collect(),
        SourceIdsLimitMethod::Fifo => {
            let skip = list.len().saturating_sub(limit);
            list.into_iter().skip(skip).collect()
        }
    }
}
