//! Reading a LightRAG working directory: which folder holds the workspace ([`locate`]), and the
//! files of its default storages ([`kv`], [`graphml`], [`vdb`]).
//!
//! LightRAG writes every file of a workspace into one folder: the working directory itself for
//! the default workspace `""`, `WORKING_DIR/<workspace>/` otherwise. A folder is a workspace when
//! it holds at least one of [`LIGHTRAG_FILES`].

pub mod graphml;
pub mod kv;
pub mod vdb;

use std::path::{Path, PathBuf};

use crate::error::ImportError;

/// `kv_store_full_docs.json`: document texts.
pub const FULL_DOCS: &str = "kv_store_full_docs.json";
/// `kv_store_text_chunks.json`: chunks.
pub const TEXT_CHUNKS: &str = "kv_store_text_chunks.json";
/// `kv_store_doc_status.json`: document status rows.
pub const DOC_STATUS: &str = "kv_store_doc_status.json";
/// `kv_store_full_entities.json`: entities per document.
pub const FULL_ENTITIES: &str = "kv_store_full_entities.json";
/// `kv_store_full_relations.json`: relations per document.
pub const FULL_RELATIONS: &str = "kv_store_full_relations.json";
/// `kv_store_entity_chunks.json`: every chunk of an entity.
pub const ENTITY_CHUNKS: &str = "kv_store_entity_chunks.json";
/// `kv_store_relation_chunks.json`: every chunk of a relation.
pub const RELATION_CHUNKS: &str = "kv_store_relation_chunks.json";
/// `kv_store_llm_response_cache.json`: the LLM cache.
pub const LLM_CACHE: &str = "kv_store_llm_response_cache.json";
/// `graph_chunk_entity_relation.graphml`: the knowledge graph.
pub const GRAPH: &str = "graph_chunk_entity_relation.graphml";
/// `vdb_chunks.json`: chunk vectors.
pub const VDB_CHUNKS: &str = "vdb_chunks.json";
/// `vdb_entities.json`: entity vectors.
pub const VDB_ENTITIES: &str = "vdb_entities.json";
/// `vdb_relationships.json`: relation vectors.
pub const VDB_RELATIONSHIPS: &str = "vdb_relationships.json";

/// Every file LightRAG's default storages write into a workspace folder.
pub const LIGHTRAG_FILES: [&str; 12] = [
    FULL_DOCS,
    TEXT_CHUNKS,
    DOC_STATUS,
    FULL_ENTITIES,
    FULL_RELATIONS,
    ENTITY_CHUNKS,
    RELATION_CHUNKS,
    LLM_CACHE,
    GRAPH,
    VDB_CHUNKS,
    VDB_ENTITIES,
    VDB_RELATIONSHIPS,
];

/// Files of other LightRAG storage backends that can appear in a workspace folder, and what
/// becomes of their data.
const FOREIGN_FILES: [(&str, &str); 3] = [
    ("faiss_index_", "Faiss vectors are not read: the vectors are made again with the configured embedder"),
    ("milvus_lite", "Milvus Lite vectors are not read: the vectors are made again with the configured embedder"),
    ("qdrant", "Qdrant files are not read: the vectors are made again with the configured embedder"),
];

/// Whether `dir` holds at least one LightRAG storage file.
pub fn holds_lightrag_files(dir: &Path) -> bool {
    LIGHTRAG_FILES.iter().any(|f| dir.join(f).is_file())
}

/// The LightRAG workspaces under `dir`: `""` when `dir` itself holds LightRAG files, and the name
/// of each sub-folder that does, sorted.
pub fn discover(dir: &Path) -> Result<Vec<String>, ImportError> {
    if !dir.is_dir() {
        return Err(ImportError::NotADirectory(dir.to_path_buf()));
    }
    let mut found = Vec::new();
    if holds_lightrag_files(dir) {
        found.push(String::new());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| ImportError::io(dir, e))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir() && holds_lightrag_files(&e.path()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    found.extend(names);
    Ok(found)
}

/// Where to read from: a workspace folder of a LightRAG working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceDir {
    /// The folder holding the workspace's files.
    pub path: PathBuf,
    /// The LightRAG workspace name (`""` for the default one).
    pub workspace: String,
}

/// Picks the workspace folder to read inside the LightRAG working directory `dir`:
///
/// 1. `from_workspace` given: `dir/<from_workspace>` (`dir` itself for `""`);
/// 2. otherwise `dir` itself when it holds LightRAG files (the default workspace, or a workspace
///    folder named directly);
/// 3. otherwise `dir/<target_workspace>` when the target workspace has a name and that folder
///    holds LightRAG files (a LightRAG workspace imported into the workspace of the same name);
/// 4. otherwise an error listing the workspaces found.
pub fn locate(dir: &Path, from_workspace: Option<&str>, target_workspace: &str) -> Result<SourceDir, ImportError> {
    let found = discover(dir)?;
    if let Some(name) = from_workspace {
        let path = if name.is_empty() { dir.to_path_buf() } else { dir.join(name) };
        if !holds_lightrag_files(&path) {
            return Err(ImportError::NoSuchWorkspace { dir: dir.to_path_buf(), name: name.to_string(), found });
        }
        return Ok(SourceDir { path, workspace: name.to_string() });
    }
    if found.first().is_some_and(String::is_empty) {
        return Ok(SourceDir { path: dir.to_path_buf(), workspace: String::new() });
    }
    if !target_workspace.is_empty() && found.iter().any(|w| w == target_workspace) {
        return Ok(SourceDir { path: dir.join(target_workspace), workspace: target_workspace.to_string() });
    }
    Err(ImportError::NoLightragFiles { dir: dir.to_path_buf(), found })
}

/// Files in `dir` that belong to storages this importer does not read, with what that means.
pub fn foreign_files(dir: &Path) -> Vec<(String, &'static str)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(String, &'static str)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter_map(|name| {
            FOREIGN_FILES.iter().find(|(prefix, _)| name.starts_with(prefix)).map(|(_, why)| (name, *why))
        })
        .collect();
    out.sort();
    out
}
