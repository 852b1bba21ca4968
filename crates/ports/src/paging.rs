//! Walking a store's paged listings page by page, for callers that need everything (exports,
//! statistics, tools and tests). Each page is one bounded store call.

use crate::records::{Entity, RelKey, Relation};
use crate::store::{Store, StoreError};

/// Rows per page.
pub const PAGE: usize = 1000;

/// Every entity name, sorted.
pub async fn all_entity_names(store: &dyn Store) -> Result<Vec<String>, StoreError> {
    let mut out: Vec<String> = Vec::new();
    loop {
        let page = store.entity_names(out.last().map(String::as_str), PAGE).await?;
        let done = page.len() < PAGE;
        out.extend(page);
        if done {
            return Ok(out);
        }
    }
}

/// Calls `visit` with every page of entities, in name order.
pub async fn for_each_entity_page<F>(store: &dyn Store, mut visit: F) -> Result<(), StoreError>
where
    F: FnMut(Vec<Entity>) -> Result<(), StoreError>,
{
    let mut after: Option<String> = None;
    loop {
        let page = store.entities_page(after.as_deref(), PAGE).await?;
        let done = page.len() < PAGE;
        after = page.last().map(|e| e.name.clone());
        visit(page)?;
        if done || after.is_none() {
            return Ok(());
        }
    }
}

/// Calls `visit` with every page of relations, in key order.
pub async fn for_each_relation_page<F>(store: &dyn Store, mut visit: F) -> Result<(), StoreError>
where
    F: FnMut(Vec<Relation>) -> Result<(), StoreError>,
{
    let mut after: Option<RelKey> = None;
    loop {
        let page = store.relations_page(after.as_ref(), PAGE).await?;
        let done = page.len() < PAGE;
        after = page.last().map(|r| r.key.clone());
        visit(page)?;
        if done || after.is_none() {
            return Ok(());
        }
    }
}

/// Every entity, sorted by name.
pub async fn all_entities(store: &dyn Store) -> Result<Vec<Entity>, StoreError> {
    let mut out = Vec::new();
    for_each_entity_page(store, |page| {
        out.extend(page);
        Ok(())
    })
    .await?;
    Ok(out)
}

/// Every relation, sorted by key.
pub async fn all_relations(store: &dyn Store) -> Result<Vec<Relation>, StoreError> {
    let mut out = Vec::new();
    for_each_relation_page(store, |page| {
        out.extend(page);
        Ok(())
    })
    .await?;
    Ok(out)
}

/// The whole chunk list of an entity or relation, read a page at a time.
pub async fn whole_chunk_list(store: &dyn Store, owner: &crate::records::GraphKey) -> Result<Vec<String>, StoreError> {
    let mut out: Vec<String> = Vec::new();
    loop {
        let range = crate::records::ListRange { from_end: false, offset: out.len(), limit: PAGE };
        let page = store.chunk_list(owner, range).await?;
        let done = page.len() < PAGE;
        out.extend(page);
        if done {
            return Ok(out);
        }
    }
}
