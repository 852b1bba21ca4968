//! Estimate what inserting documents would cost — documents, chunks, LLM calls, tokens and money —
//! without calling a model and without storing anything (`POST /documents/estimate`,
//! `lightrag insert --dry-run`, and the estimate `lightrag insert` prints beside the actual cost).
//! The documents are built as an insert builds them ([`crate::insert::typed_document`],
//! [`crate::read`]), so the estimate counts the text that would be indexed.

use lightrag_engine::Engine;
use lightrag_engine::indexing::estimate::Estimate;
use lightrag_engine::indexing::pipeline::InsertDoc;

use crate::error::{AppError, Result};

/// The estimate of inserting `docs` (documents already stored are left out and listed under
/// `skipped`).
pub async fn estimate(engine: &Engine, docs: Vec<InsertDoc>) -> Result<Estimate> {
    if docs.is_empty() {
        return Err(AppError::invalid(&["texts"], "List should have at least 1 item"));
    }
    Ok(engine.estimate(docs).await?)
}
