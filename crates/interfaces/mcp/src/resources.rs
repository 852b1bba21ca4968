//! The documents as resources: `resources/list` pages through them (newest change first),
//! `resources/templates/list` gives the template [`DOCUMENT_TEMPLATE`], and `resources/read` of
//! `lightrag://documents/{id}` returns the document's text (`text/plain`) then its status row
//! (`application/json`, under the same URI).

use lightrag_ports::{DocFilter, DocSort};
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};

use crate::KnowledgeBase;
use crate::tools::ToolFailure;
use crate::views::doc_view;

/// The URI of a document is this prefix and its id.
pub const DOCUMENT_PREFIX: &str = "lightrag://documents/";

/// The URI template of the documents (RFC 6570).
pub const DOCUMENT_TEMPLATE: &str = "lightrag://documents/{id}";

/// Documents per page of `resources/list`.
pub const PAGE: usize = 100;

/// Why a read failed.
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    /// Not a URI of ours, or no such document (JSON-RPC `-32002`).
    #[error("{0}")]
    NotFound(String),
    /// The knowledge base could not be read.
    #[error("{0}")]
    Failed(String),
}

impl From<ToolFailure> for ResourceError {
    fn from(e: ToolFailure) -> Self {
        ResourceError::Failed(e.0)
    }
}

/// The URI of the document `id`.
pub fn document_uri(id: &str) -> String {
    format!("{DOCUMENT_PREFIX}{id}")
}

/// The template of [`DOCUMENT_TEMPLATE`].
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(DOCUMENT_TEMPLATE, "document")
            .with_title("A document of the knowledge base")
            .with_description("Its text, then its status row as JSON; ids come from list_documents or resources/list")
            .with_mime_type("text/plain"),
    ]
}

/// One page of the documents; `cursor` is the offset of the page (as given back in the previous
/// page's `nextCursor`). Returns the resources and the next cursor, if any.
pub async fn list(
    kb: &dyn KnowledgeBase,
    cursor: Option<&str>,
) -> Result<(Vec<Resource>, Option<String>), ResourceError> {
    let offset = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| ResourceError::Failed(format!("invalid cursor '{c}'; use the nextCursor of a page")))?,
    };
    let filter = DocFilter { sort: DocSort::UpdatedDesc, offset, limit: Some(PAGE), ..DocFilter::default() };
    let (rows, total) = kb.engine().list_documents(&filter).await.map_err(|e| ResourceError::Failed(e.to_string()))?;
    let next = (offset + rows.len() < total && !rows.is_empty()).then(|| (offset + rows.len()).to_string());
    let resources = rows
        .iter()
        .map(|row| {
            Resource::new(document_uri(&row.id), row.file_path.clone())
                .with_description(format!("{} ({} characters)", row.status.as_str(), row.content_length))
                .with_mime_type("text/plain")
                .with_size(row.content_length as u64)
        })
        .collect();
    Ok((resources, next))
}

/// The contents of `uri`: the document's text, then its status row.
pub async fn read(kb: &dyn KnowledgeBase, uri: &str) -> Result<Vec<ResourceContents>, ResourceError> {
    let Some(id) = uri.strip_prefix(DOCUMENT_PREFIX).filter(|id| !id.is_empty() && !id.contains('/')) else {
        return Err(ResourceError::NotFound(format!("unknown resource '{uri}'; documents are {DOCUMENT_TEMPLATE}")));
    };
    let engine = kb.engine();
    let status = engine.document_status(id).await.map_err(|e| ResourceError::Failed(e.to_string()))?;
    let document = engine.document(id).await.map_err(|e| ResourceError::Failed(e.to_string()))?;
    if status.is_none() && document.is_none() {
        return Err(ResourceError::NotFound(format!("no document has the id '{id}'; resources/list shows them")));
    }
    let mut contents = Vec::new();
    if let Some(doc) = document {
        contents.push(ResourceContents::text(doc.content, uri).with_mime_type("text/plain"));
    }
    if let Some(row) = status {
        let json = serde_json::to_string_pretty(&doc_view(&row)).unwrap_or_default();
        contents.push(ResourceContents::text(json, uri).with_mime_type("application/json"));
    }
    Ok(contents)
}
