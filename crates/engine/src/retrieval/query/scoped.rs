//! The store as a filtered query sees it ([`ScopedStore`]): only the chunks of the passing
//! documents ([`Scope`]), and only the entities and relations with at least one such chunk in
//! their chunk list. A record whose list also holds other chunks is rebuilt from the extraction
//! records of its passing chunks alone — description fragments joined (no LLM summary at query
//! time), type, keywords and weight as a merge makes them — and shows only passing chunks and
//! their file paths as sources.
//!
//! Retrieval code runs unchanged over this view, so every path (vector and text search, graph
//! expansion, PPR's walk, chunk picking) sees the same filtered graph. The view implements the
//! read traits of [`RetrievalStore`] only: nothing can enqueue, lock, commit or clear through it.
//! (The gateway's LLM cache and usage ledger are the whole store's, held by the gateway itself.)

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use lightrag_ports::{
    Chunk, ChunkExtraction, DocFilter, DocLinks, DocStatus, DocStatusRecord, Document, DocumentReads, Entity,
    GRAPH_FIELD_SEP, GraphKey, GraphReads, ListRange, PreviousVersion, RelKey, Relation, RetrievalStore, StoreError,
    TextHit, TextSearch, VectorHit, VectorKind, VectorReads, VectorRecord,
};
use tokio::sync::OnceCell;

use super::filter::Scope;
use crate::config::MergeConfig;
use crate::indexing::merge::{
    EntityContribution, RelationContribution, UNKNOWN_TYPE, rebuild_entity, rebuild_relation,
};

/// First over-fetch factor of a filtered search; grows fourfold while too few hits pass.
const OVERFETCH: usize = 8;
/// The largest over-fetch a filtered search asks the store for.
const MAX_FETCH: usize = 200_000;

/// Entities and relations with at least one passing chunk (known when the scope is small).
#[derive(Debug, Default)]
struct Owners {
    entities: HashSet<String>,
    relations: HashSet<RelKey>,
}

/// The store seen through a query filter.
pub(crate) struct ScopedStore {
    inner: Arc<dyn RetrievalStore>,
    scope: Arc<Scope>,
    merge: MergeConfig,
    /// Up to this many keys (passing chunks, or candidate entities/relations) are ranked exactly
    /// (the store scores each one's vector); above it, searches over-fetch and filter
    /// (`QUERY_FILTER_EXACT_LIMIT`).
    exact_limit: usize,
    owners: OnceCell<Option<Owners>>,
}

impl ScopedStore {
    pub(crate) fn new(
        inner: Arc<dyn RetrievalStore>,
        scope: Arc<Scope>,
        merge: MergeConfig,
        exact_limit: usize,
    ) -> Self {
        Self { inner, scope, merge, exact_limit, owners: OnceCell::new() }
    }

    /// The owners of the passing chunks, read once per query when there are at most
    /// `exact_limit` passing chunks (`None` above: then records are checked one by one).
    async fn owners(&self) -> Result<Option<&Owners>, StoreError> {
        let owners = self
            .owners
            .get_or_try_init(|| async {
                if self.scope.chunks.len() > self.exact_limit {
                    return Ok::<_, StoreError>(None);
                }
                let ids: Vec<String> = self.scope.chunks.iter().cloned().collect();
                let mut owners = Owners::default();
                for (_, owner) in self.inner.chunk_owners(&ids).await? {
                    match owner {
                        GraphKey::Entity(name) => {
                            owners.entities.insert(name);
                        }
                        GraphKey::Relation(key) => {
                            owners.relations.insert(key);
                        }
                    }
                }
                Ok(Some(owners))
            })
            .await?;
        Ok(owners.as_ref())
    }

    /// The part `range` reads of a whole chunk list's passing chunks.
    fn passing_part(&self, list: Vec<String>, range: ListRange) -> Vec<String> {
        let passing: Vec<String> = list.into_iter().filter(|c| self.scope.has_chunk(c)).collect();
        let (start, end) = bounds(passing.len(), range);
        passing[start..end].to_vec()
    }

    /// The record's whole chunk list: its source ids when they are uncut, else the stored list.
    async fn full_list(
        &self,
        key: GraphKey,
        source_ids: &[String],
        chunk_count: usize,
    ) -> Result<Vec<String>, StoreError> {
        if source_ids.len() >= chunk_count {
            return Ok(source_ids.to_vec());
        }
        self.inner.chunk_list(&key, ListRange::ALL).await
    }

    /// The passing part of each record's chunk list (`None`: no passing chunk, hide it).
    async fn passing_lists(&self, lists: Vec<Option<ChunkListRef<'_>>>) -> Result<Vec<Option<Passing>>, StoreError> {
        let owners = self.owners().await?;
        let mut out = Vec::with_capacity(lists.len());
        for item in lists {
            let Some((key, source_ids, chunk_count)) = item else {
                out.push(None);
                continue;
            };
            let known_out = match (&key, owners) {
                (GraphKey::Entity(name), Some(o)) => !o.entities.contains(name),
                (GraphKey::Relation(k), Some(o)) => !o.relations.contains(k),
                _ => false,
            };
            if known_out {
                out.push(None);
                continue;
            }
            let full = self.full_list(key, source_ids, chunk_count).await?;
            let total = full.len();
            let passing: Vec<String> = full.into_iter().filter(|c| self.scope.has_chunk(c)).collect();
            out.push(if passing.is_empty() { None } else { Some(Passing { whole: passing.len() == total, passing }) });
        }
        Ok(out)
    }

    /// The extraction records of the chunks, by chunk id.
    async fn extractions(&self, chunks: Vec<String>) -> Result<HashMap<String, ChunkExtraction>, StoreError> {
        if chunks.is_empty() {
            return Ok(HashMap::new());
        }
        Ok(self.inner.get_extractions(&chunks).await?.into_iter().map(|x| (x.chunk_id.clone(), x)).collect())
    }

    fn file_path_of(&self, x: &ChunkExtraction) -> String {
        self.scope.docs.get(&x.doc_id).cloned().unwrap_or_default()
    }

    /// Records restricted to the scope (`None` for those without a passing chunk): shown as
    /// stored when their whole chunk list passes, else `rebuild` from their passing chunks.
    async fn restrict<T>(
        &self,
        found: Vec<Option<T>>,
        list: for<'a> fn(&'a T) -> ChunkListRef<'a>,
        rebuild: impl Fn(T, &[String], &HashMap<String, ChunkExtraction>) -> T,
    ) -> Result<Vec<Option<T>>, StoreError> {
        let passing = self.passing_lists(found.iter().map(|x| x.as_ref().map(list)).collect()).await?;
        let to_read = passing.iter().flatten().filter(|p| !p.whole).flat_map(|p| p.passing.iter().cloned()).collect();
        let records = self.extractions(to_read).await?;
        Ok(found
            .into_iter()
            .zip(passing)
            .map(|(record, passing)| match (record, passing) {
                (Some(x), Some(p)) if p.whole => Some(x),
                (Some(x), Some(p)) => Some(rebuild(x, &p.passing, &records)),
                _ => None,
            })
            .collect())
    }

    async fn restrict_entities(&self, found: Vec<Option<Entity>>) -> Result<Vec<Option<Entity>>, StoreError> {
        self.restrict(found, entity_list, |e, passing, records| self.rebuilt_entity(e, passing, records)).await
    }

    async fn restrict_relations(&self, found: Vec<Option<Relation>>) -> Result<Vec<Option<Relation>>, StoreError> {
        self.restrict(found, relation_list, |r, passing, records| self.rebuilt_relation(r, passing, records)).await
    }

    fn rebuilt_entity(&self, e: Entity, passing: &[String], records: &HashMap<String, ChunkExtraction>) -> Entity {
        let paths: Vec<(String, &ChunkExtraction)> =
            passing.iter().filter_map(|c| records.get(c)).map(|x| (self.file_path_of(x), x)).collect();
        let contributions: Vec<EntityContribution<'_>> = paths
            .iter()
            .flat_map(|(path, x)| {
                x.entities.iter().filter(|r| r.name == e.name).map(move |record| EntityContribution {
                    chunk_id: &x.chunk_id,
                    file_path: path,
                    record,
                })
            })
            .collect();
        let draft = rebuild_entity(&self.merge, &e.name, passing, passing.len(), &contributions);
        let mut description = draft.fragments.join(GRAPH_FIELD_SEP);
        if description.is_empty() {
            // an entity known only as a relation's endpoint: what its passing relations say
            let mut seen = HashSet::new();
            let fragments: Vec<&str> = paths
                .iter()
                .flat_map(|(_, x)| x.relations.iter())
                .filter(|r| r.src == e.name || r.tgt == e.name)
                .map(|r| r.description.trim())
                .filter(|d| !d.is_empty() && seen.insert(*d))
                .collect();
            description = fragments.join(GRAPH_FIELD_SEP);
        }
        let entity_type = if draft.entity_type == UNKNOWN_TYPE { e.entity_type.clone() } else { draft.entity_type };
        Entity {
            entity_type,
            description,
            source_ids: draft.provenance.source_ids,
            chunk_count: passing.len(),
            file_paths: draft.provenance.file_paths,
            truncate: draft.provenance.truncate,
            ..e
        }
    }

    fn rebuilt_relation(
        &self,
        r: Relation,
        passing: &[String],
        records: &HashMap<String, ChunkExtraction>,
    ) -> Relation {
        let paths: Vec<(String, &ChunkExtraction)> =
            passing.iter().filter_map(|c| records.get(c)).map(|x| (self.file_path_of(x), x)).collect();
        let contributions: Vec<RelationContribution<'_>> = paths
            .iter()
            .flat_map(|(path, x)| {
                x.relations
                    .iter()
                    .filter(|rel| RelKey::new(rel.src.as_str(), rel.tgt.as_str()) == r.key)
                    .map(move |record| RelationContribution { chunk_id: &x.chunk_id, file_path: path, record })
            })
            .collect();
        let draft = rebuild_relation(&self.merge, &r.key, passing, passing.len(), &contributions);
        if contributions.is_empty() {
            // no record states it (a relation kept by an edit): keep its text, show passing sources
            return Relation { source_ids: passing.to_vec(), chunk_count: passing.len(), ..r };
        }
        Relation {
            weight: draft.weight,
            keywords: draft.keywords,
            description: draft.fragments.join(GRAPH_FIELD_SEP),
            source_ids: draft.provenance.source_ids,
            chunk_count: passing.len(),
            file_paths: draft.provenance.file_paths,
            truncate: draft.provenance.truncate,
            ..r
        }
    }

    /// Whether an entity or relation vector key has a passing chunk.
    async fn key_passes(&self, kind: VectorKind, keys: &[String]) -> Result<Vec<bool>, StoreError> {
        match kind {
            VectorKind::Chunk => Ok(keys.iter().map(|k| self.scope.has_chunk(k)).collect()),
            VectorKind::Entity => {
                if let Some(o) = self.owners().await? {
                    return Ok(keys.iter().map(|k| o.entities.contains(k)).collect());
                }
                let found = self.inner.get_entities(keys).await?;
                let lists = found.iter().map(|e| e.as_ref().map(entity_list)).collect();
                Ok(self.passing_lists(lists).await?.iter().map(Option::is_some).collect())
            }
            VectorKind::Relation => {
                let parsed: Vec<Option<RelKey>> = keys.iter().map(|k| VectorRecord::parse_relation_key(k)).collect();
                if let Some(o) = self.owners().await? {
                    return Ok(parsed.iter().map(|k| k.as_ref().is_some_and(|k| o.relations.contains(k))).collect());
                }
                let wanted: Vec<RelKey> = parsed.iter().flatten().cloned().collect();
                let found = self.inner.get_relations(&wanted).await?;
                let lists = found.iter().map(|r| r.as_ref().map(relation_list)).collect();
                let mut passes = self.passing_lists(lists).await?.into_iter().map(|p| p.is_some());
                Ok(parsed.iter().map(|k| k.is_some() && passes.next().unwrap_or(false)).collect())
            }
        }
    }

    /// The keys a filtered vector search ranks exactly, when few enough.
    async fn exact_keys(&self, kind: VectorKind) -> Result<Option<Vec<String>>, StoreError> {
        let keys: Vec<String> = match kind {
            VectorKind::Chunk => self.scope.chunks.iter().cloned().collect(),
            VectorKind::Entity => match self.owners().await? {
                Some(o) => o.entities.iter().cloned().collect(),
                None => return Ok(None),
            },
            VectorKind::Relation => match self.owners().await? {
                Some(o) => o.relations.iter().map(VectorRecord::relation_key).collect(),
                None => return Ok(None),
            },
        };
        Ok((keys.len() <= self.exact_limit).then_some(keys))
    }
}

/// A record's key, its stored chunk ids (possibly cut) and the length of its whole list.
type ChunkListRef<'a> = (GraphKey, &'a [String], usize);

fn entity_list(e: &Entity) -> ChunkListRef<'_> {
    (GraphKey::Entity(e.name.clone()), e.source_ids.as_slice(), e.chunk_count)
}

fn relation_list(r: &Relation) -> ChunkListRef<'_> {
    (GraphKey::Relation(r.key.clone()), r.source_ids.as_slice(), r.chunk_count)
}

/// The passing chunks of one record's list, in list order.
struct Passing {
    passing: Vec<String>,
    /// Every chunk of the list passes: the record is shown as stored.
    whole: bool,
}

/// The part of a list of `n` ids that `range` reads, as `start..end`.
fn bounds(n: usize, range: ListRange) -> (usize, usize) {
    if range.from_end {
        let end = n.saturating_sub(range.offset);
        (end.saturating_sub(range.limit), end)
    } else {
        let start = range.offset.min(n);
        (start, start.saturating_add(range.limit).min(n))
    }
}

/// Over-fetches from `fetch(k)` (best first) with a growing `k` until `top_k` results pass
/// `keep`, or the store has no more.
async fn overfetch<T, F, Fut, K, KFut>(top_k: usize, mut fetch: F, mut keep: K) -> Result<Vec<T>, StoreError>
where
    F: FnMut(usize) -> Fut,
    Fut: std::future::Future<Output = Result<Vec<T>, StoreError>>,
    K: FnMut(Vec<T>) -> KFut,
    KFut: std::future::Future<Output = Result<Vec<T>, StoreError>>,
{
    if top_k == 0 {
        return Ok(Vec::new());
    }
    let mut k = top_k.saturating_mul(OVERFETCH);
    loop {
        let hits = fetch(k).await?;
        let exhausted = hits.len() < k || k >= MAX_FETCH;
        let mut kept = keep(hits).await?;
        if kept.len() >= top_k || exhausted {
            kept.truncate(top_k);
            return Ok(kept);
        }
        k = k.saturating_mul(4).min(MAX_FETCH);
    }
}

#[async_trait]
impl DocumentReads for ScopedStore {
    async fn get_document(&self, id: &str) -> Result<Option<Document>, StoreError> {
        self.inner.get_document(id).await
    }
    async fn get_doc_status(&self, id: &str) -> Result<Option<DocStatusRecord>, StoreError> {
        self.inner.get_doc_status(id).await
    }
    async fn previous_version(&self, id: &str) -> Result<Option<PreviousVersion>, StoreError> {
        self.inner.previous_version(id).await
    }
    async fn list_docs(&self, filter: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize), StoreError> {
        self.inner.list_docs(filter).await
    }
    async fn status_counts(&self) -> Result<BTreeMap<DocStatus, usize>, StoreError> {
        self.inner.status_counts().await
    }
    async fn get_chunks(&self, ids: &[String]) -> Result<Vec<Option<Chunk>>, StoreError> {
        let found = self.inner.get_chunks(ids).await?;
        Ok(found.into_iter().map(|c| c.filter(|c| self.scope.has_chunk(&c.id))).collect())
    }
    async fn get_extractions(&self, chunk_ids: &[String]) -> Result<Vec<ChunkExtraction>, StoreError> {
        let ids: Vec<String> = chunk_ids.iter().filter(|c| self.scope.has_chunk(c)).cloned().collect();
        if ids.is_empty() { Ok(Vec::new()) } else { self.inner.get_extractions(&ids).await }
    }
    async fn get_doc_links(&self, doc_id: &str) -> Result<Option<DocLinks>, StoreError> {
        self.inner.get_doc_links(doc_id).await
    }
}

#[async_trait]
impl GraphReads for ScopedStore {
    async fn get_entities(&self, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError> {
        let found = self.inner.get_entities(names).await?;
        self.restrict_entities(found).await
    }
    async fn get_relations(&self, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError> {
        let found = self.inner.get_relations(keys).await?;
        self.restrict_relations(found).await
    }
    async fn node_degrees(&self, names: &[String]) -> Result<Vec<usize>, StoreError> {
        // degrees only rank relations: the whole graph's serve
        self.inner.node_degrees(names).await
    }
    async fn relations_of(&self, names: &[String]) -> Result<Vec<Relation>, StoreError> {
        let found = self.inner.relations_of(names).await?.into_iter().map(Some).collect();
        Ok(self.restrict_relations(found).await?.into_iter().flatten().collect())
    }
    async fn chunk_list(&self, owner: &GraphKey, range: ListRange) -> Result<Vec<String>, StoreError> {
        let list = self.inner.chunk_list(owner, ListRange::ALL).await?;
        Ok(self.passing_part(list, range))
    }
    async fn chunk_lists(&self, owners: &[GraphKey], range: ListRange) -> Result<Vec<Vec<String>>, StoreError> {
        let lists = self.inner.chunk_lists(owners, ListRange::ALL).await?;
        Ok(lists.into_iter().map(|list| self.passing_part(list, range)).collect())
    }
    async fn chunk_owners(&self, chunk_ids: &[String]) -> Result<Vec<(String, GraphKey)>, StoreError> {
        let ids: Vec<String> = chunk_ids.iter().filter(|c| self.scope.has_chunk(c)).cloned().collect();
        if ids.is_empty() { Ok(Vec::new()) } else { self.inner.chunk_owners(&ids).await }
    }
}

#[async_trait]
impl TextSearch for ScopedStore {
    async fn search_chunk_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError> {
        overfetch(
            top_k,
            |k| self.inner.search_chunk_text(terms, k),
            |hits: Vec<TextHit>| async move { Ok(hits.into_iter().filter(|h| self.scope.has_chunk(&h.key)).collect()) },
        )
        .await
    }
    async fn search_entity_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError> {
        overfetch(
            top_k,
            |k| self.inner.search_entity_text(terms, k),
            |hits: Vec<TextHit>| async move {
                let keys: Vec<String> = hits.iter().map(|h| h.key.clone()).collect();
                let passes = self.key_passes(VectorKind::Entity, &keys).await?;
                Ok(hits.into_iter().zip(passes).filter_map(|(h, ok)| ok.then_some(h)).collect())
            },
        )
        .await
    }
    async fn entity_names_containing(&self, text: &str, limit: usize) -> Result<Vec<String>, StoreError> {
        overfetch(
            limit,
            |k| self.inner.entity_names_containing(text, k),
            |names: Vec<String>| async move {
                let passes = self.key_passes(VectorKind::Entity, &names).await?;
                Ok(names.into_iter().zip(passes).filter_map(|(n, ok)| ok.then_some(n)).collect())
            },
        )
        .await
    }
}

#[async_trait]
impl VectorReads for ScopedStore {
    async fn search_vectors(
        &self,
        kind: VectorKind,
        query: &[f32],
        top_k: usize,
        min_score: f32,
    ) -> Result<Vec<VectorHit>, StoreError> {
        if let Some(keys) = self.exact_keys(kind).await? {
            if keys.is_empty() || top_k == 0 {
                return Ok(Vec::new());
            }
            let scores = self.inner.similarities(kind, &keys, query).await?;
            let mut hits: Vec<VectorHit> = keys
                .into_iter()
                .zip(scores)
                .filter_map(|(key, s)| s.filter(|s| *s >= min_score).map(|score| VectorHit { key, score }))
                .collect();
            hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.key.cmp(&b.key)));
            hits.truncate(top_k);
            return Ok(hits);
        }
        overfetch(
            top_k,
            |k| self.inner.search_vectors(kind, query, k, min_score),
            |hits: Vec<VectorHit>| async move {
                let keys: Vec<String> = hits.iter().map(|h| h.key.clone()).collect();
                let passes = self.key_passes(kind, &keys).await?;
                Ok(hits.into_iter().zip(passes).filter_map(|(h, ok)| ok.then_some(h)).collect())
            },
        )
        .await
    }
    async fn get_vectors(&self, kind: VectorKind, keys: &[String]) -> Result<Vec<Option<Vec<f32>>>, StoreError> {
        self.inner.get_vectors(kind, keys).await
    }
    async fn similarities(
        &self,
        kind: VectorKind,
        keys: &[String],
        query: &[f32],
    ) -> Result<Vec<Option<f32>>, StoreError> {
        let scores = self.inner.similarities(kind, keys, query).await?;
        if kind != VectorKind::Chunk {
            return Ok(scores);
        }
        Ok(keys.iter().zip(scores).map(|(k, s)| s.filter(|_| self.scope.has_chunk(k))).collect())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn list_ranges_read_the_filtered_list_like_the_store_reads_a_whole_one() {
        let r = |from_end, offset, limit| ListRange { from_end, offset, limit };
        assert_eq!(bounds(5, ListRange::ALL), (0, 5));
        assert_eq!(bounds(5, r(false, 1, 2)), (1, 3));
        assert_eq!(bounds(5, r(false, 4, 9)), (4, 5));
        assert_eq!(bounds(5, r(false, 9, 9)), (5, 5));
        assert_eq!(bounds(5, r(true, 0, 2)), (3, 5));
        assert_eq!(bounds(5, r(true, 1, 2)), (2, 4));
        assert_eq!(bounds(5, r(true, 4, 9)), (0, 1));
        assert_eq!(bounds(5, r(true, 9, 1)), (0, 0));
    }

    #[tokio::test]
    async fn overfetching_grows_until_enough_pass_or_the_store_has_no_more() {
        // the store holds 0..1000, best first; only multiples of 50 pass
        let asked = std::sync::Mutex::new(Vec::new());
        let fetch = |k: usize| {
            asked.lock().unwrap().push(k);
            async move { Ok::<_, StoreError>((0..1000usize).take(k).collect::<Vec<_>>()) }
        };
        let keep = |hits: Vec<usize>| async move { Ok(hits.into_iter().filter(|h| h % 50 == 0).collect::<Vec<_>>()) };
        let got = overfetch(3, fetch, keep).await.unwrap();
        assert_eq!(got, [0, 50, 100]);
        assert_eq!(*asked.lock().unwrap(), [24, 96, 384], "8 × top_k, then four times more each round");
        asked.lock().unwrap().clear();
        let got = overfetch(30, fetch, keep).await.unwrap();
        assert_eq!(got.len(), 20, "all that pass once the store is exhausted");
        assert_eq!(*asked.lock().unwrap(), [240, 960, 3840]);
    }
}
