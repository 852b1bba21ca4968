//! The reads a query makes ([`RetrievalStore`](super::RetrievalStore)): documents and their
//! chunks ([`DocumentReads`]), the graph and its chunk lists ([`GraphReads`]), the lexical indexes
//! ([`TextSearch`]) and the vector sets ([`VectorReads`]). A filtered view of the store (the
//! engine's `ScopedStore`) implements these four and nothing else.

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::{DocFilter, PreviousVersion, StoreError};
use crate::records::*;

/// Documents and what they were cut into: full texts, status rows, chunks, per-chunk extraction
/// records and the graph records each document contributed to. Reads see every commit that
/// returned before they started.
#[async_trait]
pub trait DocumentReads: Send + Sync {
    /// A document's full text.
    async fn get_document(&self, id: &str) -> Result<Option<Document>, StoreError>;
    /// A document's status row.
    async fn get_doc_status(&self, id: &str) -> Result<Option<DocStatusRecord>, StoreError>;
    /// The indexed version a replacement of `id` waiting to be processed replaces (see
    /// [`PreviousVersion`]); `None` when no replacement of an indexed version is pending.
    async fn previous_version(&self, id: &str) -> Result<Option<PreviousVersion>, StoreError>;
    /// Status rows matching `filter`, and the total number matching it before paging.
    async fn list_docs(&self, filter: &DocFilter) -> Result<(Vec<DocStatusRecord>, usize), StoreError>;
    /// Number of documents per status.
    async fn status_counts(&self) -> Result<BTreeMap<DocStatus, usize>, StoreError>;
    /// Chunks by id, in the order asked (`None` for unknown ids).
    async fn get_chunks(&self, ids: &[String]) -> Result<Vec<Option<Chunk>>, StoreError>;
    /// Extraction records of the given chunks (unknown ids are skipped), ordered by `created_at`
    /// then chunk id.
    async fn get_extractions(&self, chunk_ids: &[String]) -> Result<Vec<ChunkExtraction>, StoreError>;
    /// Entities and relations a document contributed to.
    async fn get_doc_links(&self, doc_id: &str) -> Result<Option<DocLinks>, StoreError>;
}

/// The knowledge graph: entities, relations (undirected, see [`RelKey`]) and the chunk list of
/// each (read in parts, and by chunk, so nothing loads the whole list of a much-cited entity).
#[async_trait]
pub trait GraphReads: Send + Sync {
    /// Entities by name, in the order asked.
    async fn get_entities(&self, names: &[String]) -> Result<Vec<Option<Entity>>, StoreError>;
    /// Relations by key, in the order asked.
    async fn get_relations(&self, keys: &[RelKey]) -> Result<Vec<Option<Relation>>, StoreError>;
    /// Number of relations touching each entity, in the order asked (0 for unknown names).
    async fn node_degrees(&self, names: &[String]) -> Result<Vec<usize>, StoreError>;
    /// Every relation touching any of the given entities (each once).
    async fn relations_of(&self, names: &[String]) -> Result<Vec<Relation>, StoreError>;
    /// The keys of every relation touching any of `names` (each once, sorted). The default reads
    /// the relations; a backend should answer from its indexes.
    async fn relation_keys_of(&self, names: &[String]) -> Result<Vec<RelKey>, StoreError> {
        let mut keys: Vec<RelKey> = self.relations_of(names).await?.into_iter().map(|r| r.key).collect();
        keys.sort();
        keys.dedup();
        Ok(keys)
    }
    /// The relations whose two ends are both among `names` (each once, sorted by key). The
    /// default reads every relation touching `names`; a backend should read only those kept.
    async fn relations_among(&self, names: &[String]) -> Result<Vec<Relation>, StoreError> {
        let set: std::collections::HashSet<&str> = names.iter().map(String::as_str).collect();
        let mut out: Vec<Relation> = self
            .relations_of(names)
            .await?
            .into_iter()
            .filter(|r| set.contains(r.key.src.as_str()) && set.contains(r.key.tgt.as_str()))
            .collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out.dedup_by(|a, b| a.key == b.key);
        Ok(out)
    }
    /// The first `limit` relations touching `names` in the order of [`crate::ranking`] (edge
    /// degree, then weight, both descending), and how many relations touch them in all. The
    /// default reads every touching relation and ranks in memory; a backend should rank in the
    /// database so that only the returned relations are loaded.
    async fn ranked_relations_of(&self, names: &[String], limit: usize) -> Result<RankedRelations, StoreError> {
        let mut unique: Vec<String> = Vec::with_capacity(names.len());
        for n in names {
            if !unique.contains(n) {
                unique.push(n.clone());
            }
        }
        let relations = self.relations_of(&unique).await?;
        let total = relations.len();
        let mut ends: Vec<String> = relations.iter().flat_map(|r| [r.key.src.clone(), r.key.tgt.clone()]).collect();
        ends.sort();
        ends.dedup();
        let degrees = self.node_degrees(&ends).await?;
        let degree_of: std::collections::HashMap<String, usize> = ends.into_iter().zip(degrees).collect();
        Ok(RankedRelations { relations: crate::ranking::rank_relations(&unique, relations, &degree_of, limit), total })
    }
    /// A part of the chunk list of an entity or relation, in list order (empty when it has none).
    async fn chunk_list(&self, owner: &GraphKey, range: ListRange) -> Result<Vec<String>, StoreError>;
    /// The same part of several chunk lists, `lists[i]` of `owners[i]`, each as
    /// [`GraphReads::chunk_list`] reads it. The default asks for them one by one, all at once;
    /// a backend should read them in one go (a walk asks for dozens per step).
    async fn chunk_lists(&self, owners: &[GraphKey], range: ListRange) -> Result<Vec<Vec<String>>, StoreError> {
        futures::future::try_join_all(owners.iter().map(|owner| self.chunk_list(owner, range))).await
    }
    /// `(chunk id, owner)` for every entity and relation whose chunk list holds one of
    /// `chunk_ids`, sorted by chunk id then owner.
    async fn chunk_owners(&self, chunk_ids: &[String]) -> Result<Vec<(String, GraphKey)>, StoreError>;
}

/// The lexical indexes: words in chunks, words in entity names and descriptions, substrings of
/// entity names.
#[async_trait]
pub trait TextSearch: Send + Sync {
    /// Up to `top_k` chunks containing any word of `terms` (whole words, case-insensitive; a term
    /// is cut into its letter-and-digit runs), most relevant first: rare words and several words
    /// in one chunk count for more (BM25, or the backend's equivalent); ties by chunk id, so a
    /// search for fewer is the start of a search for more. No query syntax reaches the full-text
    /// engine. Empty for no words.
    async fn search_chunk_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError>;
    /// Up to `top_k` entities (the hit's key is the name) whose name or description contains any
    /// word of `terms` (the same words as [`TextSearch::search_chunk_text`]: whole words,
    /// case-insensitive, letter-and-digit runs), most relevant first: a word in the name counts
    /// for much more than one in the description (BM25 with the name weighted 10 to 1, or the
    /// backend's equivalent), rare words and several words count for more; ties by name. No query
    /// syntax reaches the full-text engine. Empty for no words or `top_k` 0.
    async fn search_entity_text(&self, terms: &[String], top_k: usize) -> Result<Vec<TextHit>, StoreError>;
    /// Up to `limit` entity names that contain `text` case-insensitively (at least for ASCII
    /// letters; `text` is matched literally, no wildcards), the label search's candidates:
    /// names that start with `text` first, then shorter names first, ties by name. Served from
    /// an index of the names where the backend has one, never by loading every name into the
    /// caller. Empty for an empty `text` or `limit` 0.
    async fn entity_names_containing(&self, text: &str, limit: usize) -> Result<Vec<String>, StoreError>;
}

/// Nearest-neighbour search over the three vector sets (chunks, entities, relations). Vectors are
/// written by [`Commits::apply`](super::Commits::apply) (which refuses a
/// [flawed](crate::vector_flaw) one); a backend serves search from a
/// [`VectorIndex`](crate::VectorIndex) or from its database's own index, and never serves a
/// flawed vector stored before (search, [`VectorReads::get_vectors`] and
/// [`VectorReads::similarities`] treat it as absent).
#[async_trait]
pub trait VectorReads: Send + Sync {
    /// The `top_k` most similar records of `kind` with cosine similarity ≥ `min_score`, best first.
    async fn search_vectors(
        &self,
        kind: VectorKind,
        query: &[f32],
        top_k: usize,
        min_score: f32,
    ) -> Result<Vec<VectorHit>, StoreError>;
    /// Stored vectors by key, in the order asked (`None` for keys without a usable vector).
    async fn get_vectors(&self, kind: VectorKind, keys: &[String]) -> Result<Vec<Option<Vec<f32>>>, StoreError>;
    /// The cosine similarity of each stored vector of `keys` to `query`, in the order asked
    /// (`None` for keys without a usable vector, and for every key when `query` is unusable). A
    /// backend should score where the vectors are rather than ship them (a graph query scores
    /// thousands of candidate chunks).
    async fn similarities(
        &self,
        kind: VectorKind,
        keys: &[String],
        query: &[f32],
    ) -> Result<Vec<Option<f32>>, StoreError> {
        let vectors = self.get_vectors(kind, keys).await?;
        Ok(vectors
            .into_iter()
            .map(|v| v.map(|v| crate::vector_index::cosine(query, &v)).filter(|s| s.is_finite()))
            .collect())
    }
}
