//! The evaluation fixtures: a corpus of titled passages and questions naming their gold passages
//! (JSONL, one object per line), and how a passage becomes a document.

use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::error::EvalError;

/// One passage of the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Passage {
    /// Its title: what the questions' `gold_titles` name.
    pub title: String,
    /// Its text.
    pub text: String,
}

/// One question.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Question {
    /// The question.
    pub question: String,
    /// The titles of the passages needed to answer it.
    pub gold_titles: Vec<String>,
    /// The expected short answer, when known (for exact match and F1).
    #[serde(default)]
    pub answer: Option<String>,
}

const PASSAGE_SHAPE: &str = r#"{"title": "...", "text": "..."}"#;
const QUESTION_SHAPE: &str = r#"{"question": "...", "gold_titles": ["..."], "answer": "..." (optional)}"#;

/// Reads a corpus file (JSONL `title`, `text`).
pub fn read_corpus(path: &Path) -> Result<Vec<Passage>, EvalError> {
    let passages: Vec<Passage> = read_jsonl(path, PASSAGE_SHAPE)?;
    if passages.is_empty() {
        return Err(EvalError::Empty { path: path.to_path_buf(), what: "passages" });
    }
    Ok(passages)
}

/// Reads a question file (JSONL `question`, `gold_titles`, optional `answer`); a question without
/// gold passages cannot be scored and is refused.
pub fn read_questions(path: &Path) -> Result<Vec<Question>, EvalError> {
    let questions: Vec<Question> = read_jsonl(path, QUESTION_SHAPE)?;
    if let Some(i) = questions.iter().position(|q| q.gold_titles.is_empty() || q.question.trim().is_empty()) {
        return Err(EvalError::Line {
            path: path.to_path_buf(),
            line: line_of(path, i),
            reason: "empty question or no gold titles".into(),
            expected: QUESTION_SHAPE,
        });
    }
    if questions.is_empty() {
        return Err(EvalError::Empty { path: path.to_path_buf(), what: "questions" });
    }
    Ok(questions)
}

/// The 1-based line of the `index`-th non-blank line (for messages).
fn line_of(path: &Path, index: usize) -> usize {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|text| text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).nth(index).map(|(n, _)| n + 1))
        .unwrap_or(index + 1)
}

fn read_jsonl<T: DeserializeOwned>(path: &Path, expected: &'static str) -> Result<Vec<T>, EvalError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EvalError::Read { path: path.to_path_buf(), reason: e.to_string() })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let value = serde_json::from_str(line).map_err(|e| EvalError::Line {
            path: path.to_path_buf(),
            line: n + 1,
            reason: e.to_string(),
            expected,
        })?;
        out.push(value);
    }
    Ok(out)
}

/// The file source that names a passage's document: its title, with the path separators a file
/// source would cut at replaced by `_` (a document's file path keeps only the base name).
pub fn passage_source(title: &str) -> String {
    title.trim().replace(['/', '\\'], "_")
}

/// The text a passage is indexed as: its title, a blank line, its text.
pub fn passage_text(passage: &Passage) -> String {
    format!("{}\n\n{}", passage.title.trim(), passage.text.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_questions_with_and_without_answers_and_names_bad_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.jsonl");
        std::fs::write(
            &path,
            "{\"question\": \"Who?\", \"gold_titles\": [\"A\"], \"answer\": \"Ann\", \"extra\": 1}\n\n\
             {\"question\": \"Where?\", \"gold_titles\": [\"B\", \"C\"]}\n",
        )
        .unwrap();
        let qs = read_questions(&path).unwrap();
        assert_eq!(qs.len(), 2);
        assert_eq!(qs[0].answer.as_deref(), Some("Ann"));
        assert_eq!(qs[1].gold_titles, vec!["B", "C"]);

        std::fs::write(&path, "{\"question\": \"Who?\", \"gold_titles\": [\"A\"]}\n{\"question\": 3}\n").unwrap();
        let err = read_questions(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        std::fs::write(&path, "\n{\"question\": \"Who?\", \"gold_titles\": []}\n").unwrap();
        let err = read_questions(&path).unwrap_err().to_string();
        assert!(err.contains("line 2") && err.contains("no gold titles"), "{err}");
    }

    #[test]
    fn an_empty_corpus_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.jsonl");
        std::fs::write(&path, "\n").unwrap();
        assert!(read_corpus(&path).unwrap_err().to_string().contains("no passages"));
    }

    #[test]
    fn a_title_with_a_slash_keeps_its_whole_name_as_the_source() {
        assert_eq!(passage_source("AC/DC (band)"), "AC_DC (band)");
        let p = Passage { title: "T".into(), text: " body ".into() };
        assert_eq!(passage_text(&p), "T\n\nbody");
    }
}
