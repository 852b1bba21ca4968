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
use kv::FileState;

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
    /// When not empty, the folders (resolved) that every file read must lie in once links are
    /// followed ([`confine`] sets them); a file that links out is not read.
    pub allowed: Vec<PathBuf>,
}

impl SourceDir {
    /// Why `name` in this folder is not read, when it links out of [`SourceDir::allowed`].
    pub fn refusal(&self, name: &str) -> Option<FileState> {
        if self.allowed.is_empty() {
            return None;
        }
        // a missing file is reported as missing by its reader
        let real = std::fs::canonicalize(self.path.join(name)).ok()?;
        (!self.allowed.iter().any(|root| real.starts_with(root))).then(|| {
            FileState::Unreadable(
                "it links to a file outside the folders imports are allowed from (IMPORT_ALLOWED_DIRS); it is not read"
                    .into(),
            )
        })
    }
}

/// Confines `source` to `allowed` (folders, resolved here): the workspace folder itself — the
/// working directory with the workspace name joined, every link followed — must lie below one
/// of them, and so must each file read later ([`SourceDir::refusal`]). Empty `allowed`: no
/// confinement (the CLI reads what its user names).
pub fn confine(mut source: SourceDir, allowed: &[PathBuf]) -> Result<SourceDir, ImportError> {
    if allowed.is_empty() {
        return Ok(source);
    }
    let roots: Vec<PathBuf> = allowed.iter().filter_map(|root| std::fs::canonicalize(root).ok()).collect();
    let real = std::fs::canonicalize(&source.path).map_err(|e| ImportError::io(&source.path, e))?;
    if !roots.iter().any(|root| real.starts_with(root)) {
        return Err(ImportError::OutsideAllowedDirs(source.path));
    }
    source.allowed = roots;
    Ok(source)
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
        return Ok(SourceDir { path, workspace: name.to_string(), allowed: Vec::new() });
    }
    if found.first().is_some_and(String::is_empty) {
        return Ok(SourceDir { path: dir.to_path_buf(), workspace: String::new(), allowed: Vec::new() });
    }
    if !target_workspace.is_empty() && found.iter().any(|w| w == target_workspace) {
        let path = dir.join(target_workspace);
        return Ok(SourceDir { path, workspace: target_workspace.to_string(), allowed: Vec::new() });
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
