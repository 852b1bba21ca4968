//! Reads every file of a LightRAG workspace folder at once (blocking: run it off the async
//! runtime).

use serde::de::DeserializeOwned;

use crate::source::graphml::{self, Graph};
use crate::source::kv::{
    CacheRow, ChunkIds, DocEntities, DocRelations, DocStatusRow, FileState, FullDoc, KvFile, TextChunk, read_cache,
    read_kv,
};
use crate::source::vdb::{VectorFile, read_vectors};
use crate::source::{self, SourceDir};

/// The contents of one LightRAG workspace folder.
#[derive(Debug)]
pub struct LightragData {
    /// Where it was read from.
    pub source: SourceDir,
    /// `kv_store_full_docs.json`.
    pub full_docs: KvFile<FullDoc>,
    /// `kv_store_doc_status.json`.
    pub doc_status: KvFile<DocStatusRow>,
    /// `kv_store_text_chunks.json`.
    pub text_chunks: KvFile<TextChunk>,
    /// `kv_store_full_entities.json`.
    pub full_entities: KvFile<DocEntities>,
    /// `kv_store_full_relations.json`.
    pub full_relations: KvFile<DocRelations>,
    /// `kv_store_entity_chunks.json`.
    pub entity_chunks: KvFile<ChunkIds>,
    /// `kv_store_relation_chunks.json`.
    pub relation_chunks: KvFile<ChunkIds>,
    /// `kv_store_llm_response_cache.json`.
    pub cache: KvFile<CacheRow>,
    /// `graph_chunk_entity_relation.graphml`.
    pub graph: Graph,
    /// State of the graph file.
    pub graph_state: FileState,
    /// `vdb_chunks.json`.
    pub vdb_chunks: VectorFile,
    /// `vdb_entities.json`.
    pub vdb_entities: VectorFile,
    /// `vdb_relationships.json`.
    pub vdb_relationships: VectorFile,
}

impl LightragData {
    /// Each LightRAG file with what became of it when read, in [`source::LIGHTRAG_FILES`] order.
    pub fn file_states(&self) -> Vec<(&'static str, FileState)> {
        let vector_state = |f: &VectorFile| f.state.clone().unwrap_or(FileState::Missing);
        vec![
            (source::FULL_DOCS, self.full_docs.state.clone()),
            (source::TEXT_CHUNKS, self.text_chunks.state.clone()),
            (source::DOC_STATUS, self.doc_status.state.clone()),
            (source::FULL_ENTITIES, self.full_entities.state.clone()),
            (source::FULL_RELATIONS, self.full_relations.state.clone()),
            (source::ENTITY_CHUNKS, self.entity_chunks.state.clone()),
            (source::RELATION_CHUNKS, self.relation_chunks.state.clone()),
            (source::LLM_CACHE, self.cache.state.clone()),
            (source::GRAPH, self.graph_state.clone()),
            (source::VDB_CHUNKS, vector_state(&self.vdb_chunks)),
            (source::VDB_ENTITIES, vector_state(&self.vdb_entities)),
            (source::VDB_RELATIONSHIPS, vector_state(&self.vdb_relationships)),
        ]
    }

    /// Records skipped because they did not have the expected fields: `(file, key)`.
    pub fn bad_records(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let mut add = |file: &'static str, keys: &[String]| out.extend(keys.iter().map(|k| (file, k.clone())));
        add(source::FULL_DOCS, &self.full_docs.bad);
        add(source::TEXT_CHUNKS, &self.text_chunks.bad);
        add(source::DOC_STATUS, &self.doc_status.bad);
        add(source::FULL_ENTITIES, &self.full_entities.bad);
        add(source::FULL_RELATIONS, &self.full_relations.bad);
        add(source::ENTITY_CHUNKS, &self.entity_chunks.bad);
        add(source::RELATION_CHUNKS, &self.relation_chunks.bad);
        add(source::LLM_CACHE, &self.cache.bad);
        out
    }
}

/// `name` as key-value records, unless it links out of the allowed folders.
fn kv<T: DeserializeOwned>(source: &SourceDir, name: &str) -> KvFile<T> {
    match source.refusal(name) {
        Some(state) => KvFile { state, ..KvFile::default() },
        None => read_kv(&source.path, name),
    }
}

/// `name` as a vector file, unless it links out of the allowed folders.
fn vectors(source: &SourceDir, name: &str) -> VectorFile {
    match source.refusal(name) {
        Some(state) => VectorFile { state: Some(state), ..VectorFile::default() },
        None => read_vectors(&source.path, name),
    }
}

/// Reads the workspace folder `source`. Missing or unreadable files read as empty; their state
/// says which. A file linking out of [`SourceDir::allowed`] reads as unreadable.
pub fn load(source: &SourceDir) -> LightragData {
    let dir = source.path.as_path();
    let graph_read = match source.refusal(source::GRAPH) {
        Some(state) => Err(state),
        None => std::fs::read_to_string(dir.join(source::GRAPH)).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => FileState::Missing,
            _ => FileState::Unreadable(format!("cannot read it: {e}")),
        }),
    };
    let (graph, graph_state) = match graph_read {
        Ok(xml) => match graphml::parse(&xml) {
            Ok(g) => {
                let n = g.nodes.len() + g.edges.len();
                (g, FileState::Read { records: n })
            }
            Err(e) => (Graph::default(), FileState::Unreadable(e)),
        },
        Err(state) => (Graph::default(), state),
    };
    let cache = match source.refusal(source::LLM_CACHE) {
        Some(state) => KvFile { state, ..KvFile::default() },
        None => read_cache(dir),
    };
    LightragData {
        source: source.clone(),
        full_docs: kv(source, source::FULL_DOCS),
        doc_status: kv(source, source::DOC_STATUS),
        text_chunks: kv(source, source::TEXT_CHUNKS),
        full_entities: kv(source, source::FULL_ENTITIES),
        full_relations: kv(source, source::FULL_RELATIONS),
        entity_chunks: kv(source, source::ENTITY_CHUNKS),
        relation_chunks: kv(source, source::RELATION_CHUNKS),
        cache,
        graph,
        graph_state,
        vdb_chunks: vectors(source, source::VDB_CHUNKS),
        vdb_entities: vectors(source, source::VDB_ENTITIES),
        vdb_relationships: vectors(source, source::VDB_RELATIONSHIPS),
    }
}
