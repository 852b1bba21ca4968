//! Document reads that more than one front end answers: a page of the documents with the counts
//! per status (`/documents/paginated`, MCP `list_documents`), the documents of one track id
//! (`/documents/track_status/{id}`, MCP `track_status`) and one document's status (MCP
//! `document_status`).

use std::collections::BTreeMap;

use lightrag_engine::Engine;
use lightrag_ports::{DocFilter, DocSort, DocStatus, DocStatusRecord};

use crate::error::{AppError, Result};

/// The largest page of a document listing.
pub const MAX_PAGE_SIZE: usize = 200;

/// A page of documents.
#[derive(Debug, Clone)]
pub struct Page {
    /// The page's documents.
    pub documents: Vec<DocStatusRecord>,
    /// How many documents match in all.
    pub total: usize,
    /// The page number, from 1.
    pub page: usize,
    /// Documents per page.
    pub page_size: usize,
    /// How many pages there are.
    pub total_pages: usize,
    /// The documents per status in the whole knowledge base.
    pub counts: BTreeMap<DocStatus, usize>,
}

/// Page `page` (from 1) of `page_size` documents (1 to [`MAX_PAGE_SIZE`]) with one of
/// `statuses` (empty: any), sorted by `sort`. A page past the end is empty.
pub async fn page(
    engine: &Engine,
    statuses: Vec<DocStatus>,
    sort: DocSort,
    page: usize,
    page_size: usize,
) -> Result<Page> {
    let mut problems = Vec::new();
    if page < 1 {
        problems.push(crate::error::Problem::new(&["page"], "Input should be greater than or equal to 1"));
    }
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        problems
            .push(crate::error::Problem::new(&["page_size"], format!("Input should be between 1 and {MAX_PAGE_SIZE}")));
    }
    if !problems.is_empty() {
        return Err(AppError::Invalid(problems));
    }
    let filter = DocFilter {
        statuses,
        track_id: None,
        sort,
        // a huge page number is simply past the end
        offset: (page - 1).saturating_mul(page_size),
        limit: Some(page_size),
    };
    let (documents, total) = engine.list_documents(&filter).await?;
    let counts = engine.status_counts().await?;
    Ok(Page { documents, total, page, page_size, total_pages: total.div_ceil(page_size), counts })
}

/// The documents of one track id.
#[derive(Debug, Clone)]
pub struct Track {
    /// The track id, trimmed.
    pub track_id: String,
    /// Its documents, oldest first.
    pub documents: Vec<DocStatusRecord>,
    /// How many.
    pub total: usize,
    /// Its documents per status.
    pub counts: BTreeMap<DocStatus, usize>,
}

impl Track {
    /// Whether it has documents and every one is `processed` or `failed`.
    pub fn finished(&self) -> bool {
        self.total > 0 && self.documents.iter().all(|r| matches!(r.status, DocStatus::Processed | DocStatus::Failed))
    }
}

/// The documents of the track id `track` (an insert's, an upload's, a scan's).
pub async fn track(engine: &Engine, track: &str) -> Result<Track> {
    let track = track.trim();
    if track.is_empty() {
        return Err(AppError::invalid(&["track_id"], "Track ID cannot be empty"));
    }
    let filter = DocFilter { track_id: Some(track.to_string()), sort: DocSort::CreatedAsc, ..DocFilter::default() };
    let (documents, total) = engine.list_documents(&filter).await?;
    let mut counts = BTreeMap::new();
    for d in &documents {
        *counts.entry(d.status).or_default() += 1;
    }
    Ok(Track { track_id: track.to_string(), documents, total, counts })
}

/// The status row of the document `id`.
pub async fn status(engine: &Engine, id: &str) -> Result<DocStatusRecord> {
    let id = id.trim();
    if id.is_empty() {
        return Err(AppError::invalid(&["doc_id"], "String should have at least 1 character"));
    }
    engine
        .document_status(id)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no document has the id '{id}'; list the documents to see the ids")))
}
