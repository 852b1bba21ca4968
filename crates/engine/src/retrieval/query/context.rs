//! Token budgets (§6.3), the reference list (§2.2) and the context string handed to the LLM (§6.6).

use std::collections::HashMap;

use super::result::Reference;

/// Serialises `(key, value)` string pairs as one JSON object the way Python's `json.dumps(...,
/// ensure_ascii=False)` does: `{"k": "v", "k2": "v2"}`.
pub fn json_line(fields: &[(&str, &str)]) -> String {
    let mut out = String::from("{");
    for (i, (key, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&json_string(key));
        out.push_str(": ");
        out.push_str(&json_string(value));
    }
    out.push('}');
    out
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.escape_default()))
}

/// File paths that do not name a document.
fn is_unknown(path: &str) -> bool {
    path.is_empty() || path == "unknown_source"
}

/// Builds the reference list from the chunks' file paths: most chunks first, ties by first
/// appearance; ids `"1"`, `"2"`, …. Returns the list and each chunk's reference id (`""` for an
/// unknown file).
pub fn reference_list<'a>(file_paths: impl IntoIterator<Item = &'a str>) -> (Vec<Reference>, Vec<String>) {
    let paths: Vec<&str> = file_paths.into_iter().collect();
    // (count, first index) per known path.
    let mut stats: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, path) in paths.iter().enumerate() {
        if is_unknown(path) {
            continue;
        }
        stats.entry(path).or_insert((0, i)).0 += 1;
    }
    let mut ordered: Vec<(&str, usize, usize)> = stats.iter().map(|(p, (n, first))| (*p, *n, *first)).collect();
    ordered.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
    let ids: HashMap<&str, String> =
        ordered.iter().enumerate().map(|(i, (p, _, _))| (*p, (i + 1).to_string())).collect();
    let references = ordered
        .iter()
        .enumerate()
        .map(|(i, (p, _, _))| Reference { reference_id: (i + 1).to_string(), file_path: p.to_string() })
        .collect();
    let per_chunk = paths.iter().map(|p| ids.get(p).cloned().unwrap_or_default()).collect();
    (references, per_chunk)
}

/// Header of the chunk section.
const CHUNKS_HEADER: &str = "Document Chunks (Each entry has a reference_id refer to the `Reference Document List`):";
/// Header of the reference section.
const REFERENCES_HEADER: &str = "Reference Document List (Each entry starts with a [reference_id] that corresponds to \
entries in the Document Chunks):";

/// The pieces of a context string, each already rendered as lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextParts {
    /// One JSON object per entity: `{"entity", "type", "description"}`.
    pub entities: Vec<String>,
    /// One JSON object per relation: `{"entity1", "entity2", "description"}`.
    pub relations: Vec<String>,
    /// One JSON object per chunk: `{"reference_id", "content"}`.
    pub chunks: Vec<String>,
    /// `[n] file` lines.
    pub references: Vec<String>,
}

/// An entity line of the context.
pub fn entity_line(name: &str, entity_type: &str, description: &str) -> String {
    json_line(&[("entity", name), ("type", entity_type), ("description", description)])
}

/// A relation line of the context.
pub fn relation_line(src: &str, tgt: &str, description: &str) -> String {
    json_line(&[("entity1", src), ("entity2", tgt), ("description", description)])
}

/// A chunk line of the context.
pub fn chunk_line(reference_id: &str, content: &str) -> String {
    json_line(&[("reference_id", reference_id), ("content", content)])
}

/// The `[n] file` lines of the reference section.
pub fn reference_lines(references: &[Reference]) -> Vec<String> {
    references
        .iter()
        .filter(|r| !r.reference_id.is_empty())
        .map(|r| format!("[{}] {}", r.reference_id, r.file_path))
        .collect()
}

/// The knowledge-graph context (LightRAG's `kg_query_context` layout).
pub fn graph_context(parts: &ContextParts) -> String {
    format!(
        "Knowledge Graph Data (Entity):\n\n```json\n{}\n```\n\n\
Knowledge Graph Data (Relationship):\n\n```json\n{}\n```\n\n{}",
        parts.entities.join("\n"),
        parts.relations.join("\n"),
        chunk_context(parts)
    )
}

/// The chunk-only context of naive mode (LightRAG's `naive_query_context` layout).
pub fn chunk_context(parts: &ContextParts) -> String {
    format!(
        "{CHUNKS_HEADER}\n\n```json\n{}\n```\n\n{REFERENCES_HEADER}\n\n```\n{}\n```\n",
        parts.chunks.join("\n"),
        parts.references.join("\n")
    )
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn json_lines_look_like_python_json_dumps() {
        assert_eq!(
            entity_line("Ahab", "person", "Captain \"of\" the Pequod\nbold"),
            r#"{"entity": "Ahab", "type": "person", "description": "Captain \"of\" the Pequod\nbold"}"#
        );
        assert_eq!(chunk_line("1", "Größe"), "{\"reference_id\": \"1\", \"content\": \"Größe\"}");
    }

    #[test]
    fn references_by_frequency_then_first_appearance() {
        let paths = ["b.md", "a.md", "", "a.md", "unknown_source", "c.md", "b.md", "d.md"];
        let (refs, per_chunk) = reference_list(paths);
        let listed: Vec<(&str, &str)> = refs.iter().map(|r| (r.reference_id.as_str(), r.file_path.as_str())).collect();
        assert_eq!(listed, vec![("1", "b.md"), ("2", "a.md"), ("3", "c.md"), ("4", "d.md")]);
        assert_eq!(per_chunk, vec!["1", "2", "", "2", "", "3", "1", "4"]);
        let (none, ids) = reference_list(Vec::<&str>::new());
        assert!(none.is_empty() && ids.is_empty());
    }

    #[test]
    fn graph_context_layout_is_exact() {
        let parts = ContextParts {
            entities: vec![entity_line("A", "person", "d1")],
            relations: vec![relation_line("A", "B", "knows")],
            chunks: vec![chunk_line("1", "text one"), chunk_line("", "text two")],
            references: reference_lines(&[
                Reference { reference_id: "1".into(), file_path: "report.pdf".into() },
                Reference { reference_id: "2".into(), file_path: "notes.md".into() },
            ]),
        };
        let expected = "Knowledge Graph Data (Entity):\n\
\n\
```json\n\
{\"entity\": \"A\", \"type\": \"person\", \"description\": \"d1\"}\n\
```\n\
\n\
Knowledge Graph Data (Relationship):\n\
\n\
```json\n\
{\"entity1\": \"A\", \"entity2\": \"B\", \"description\": \"knows\"}\n\
```\n\
\n\
Document Chunks (Each entry has a reference_id refer to the `Reference Document List`):\n\
\n\
```json\n\
{\"reference_id\": \"1\", \"content\": \"text one\"}\n\
{\"reference_id\": \"\", \"content\": \"text two\"}\n\
```\n\
\n\
Reference Document List (Each entry starts with a [reference_id] that corresponds to entries in the Document Chunks):\n\
\n\
```\n\
[1] report.pdf\n\
[2] notes.md\n\
```\n";
        assert_eq!(graph_context(&parts), expected);
    }

    #[test]
    fn naive_context_has_only_chunks_and_references() {
        let parts = ContextParts {
            chunks: vec![chunk_line("1", "x")],
            references: vec!["[1] a.md".into()],
            ..ContextParts::default()
        };
        let ctx = chunk_context(&parts);
        assert!(ctx.starts_with("Document Chunks (Each entry"));
        assert!(!ctx.contains("Knowledge Graph Data"));
        assert!(ctx.ends_with("```\n[1] a.md\n```\n"));
    }
}
