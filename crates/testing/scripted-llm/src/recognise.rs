//! Works out what a chat request is for, from the prompt layout contract shared with the engine
//! (see the crate docs): extraction, gleaning, description summary, keywords, or an answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a chat prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptKind {
    /// Entity/relation extraction of a chunk (`---Input Text---` + fenced text).
    Extract,
    /// The gleaning follow-up of an extraction (extraction in the history, no new input text).
    Glean,
    /// Description summary (`Name:` + `Description List:` + fenced JSON lines).
    Summary,
    /// Query keywords (`high_level_keywords`, `low_level_keywords`, `User Query:`).
    Keywords,
    /// An answer to judge for faithfulness (`lightrag eval --answers`: `"faithfulness"`,
    /// `Context:` and `Answer:` sections).
    Judge,
    /// A question to split into sub-questions (`"sub_questions"` and a `Question:` line; the
    /// engine's `QUERY_DECOMPOSITION`).
    Decompose,
    /// Anything else: an answer over context in the system prompt.
    Answer,
}

impl PromptKind {
    /// The lowercase name (`extract`, `glean`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            PromptKind::Extract => "extract",
            PromptKind::Glean => "glean",
            PromptKind::Summary => "summary",
            PromptKind::Keywords => "keywords",
            PromptKind::Judge => "judge",
            PromptKind::Decompose => "decompose",
            PromptKind::Answer => "answer",
        }
    }
}

/// One chat message as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text (array-of-parts content is joined).
    pub content: String,
}

/// Reads `messages` from an OpenAI/Ollama chat request body. Content given as an array of parts
/// keeps the text parts only.
pub fn messages_from_body(body: &Value) -> Vec<Message> {
    let Some(list) = body.get("messages").and_then(Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .map(|m| {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("user").to_string();
            let content = match m.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => {
                    parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
                }
                _ => String::new(),
            };
            Message { role, content }
        })
        .collect()
}

/// A recognised prompt with the pieces the generators need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recognised {
    /// Extraction of `text`.
    Extract {
        /// The chunk text from the fenced block.
        text: String,
    },
    /// Gleaning after an extraction of `text`.
    Glean {
        /// The chunk text of the extraction in the history.
        text: String,
    },
    /// Extraction of `text` in JSON mode (the prompt shows the `"entities"` /
    /// `"relationships"` object layout).
    ExtractJson {
        /// The chunk text from the fenced block.
        text: String,
    },
    /// Gleaning in JSON mode.
    GleanJson {
        /// The chunk text of the extraction in the history.
        text: String,
    },
    /// Summary of the descriptions of `name`.
    Summary {
        /// Entity or relation name.
        name: String,
        /// The descriptions, in order.
        descriptions: Vec<String>,
    },
    /// Keywords of `query`.
    Keywords {
        /// The user's question.
        query: String,
    },
    /// A faithfulness verdict on `answer` against `context`.
    Judge {
        /// The context section.
        context: String,
        /// The answer section.
        answer: String,
    },
    /// Sub-questions of `question`.
    Decompose {
        /// The question after the `Question:` line.
        question: String,
    },
    /// An answer.
    Answer {
        /// All system messages joined.
        system: String,
        /// The last user message.
        query: String,
    },
}

impl Recognised {
    /// The kind of prompt.
    pub fn kind(&self) -> PromptKind {
        match self {
            Recognised::Extract { .. } | Recognised::ExtractJson { .. } => PromptKind::Extract,
            Recognised::Glean { .. } | Recognised::GleanJson { .. } => PromptKind::Glean,
            Recognised::Summary { .. } => PromptKind::Summary,
            Recognised::Keywords { .. } => PromptKind::Keywords,
            Recognised::Judge { .. } => PromptKind::Judge,
            Recognised::Decompose { .. } => PromptKind::Decompose,
            Recognised::Answer { .. } => PromptKind::Answer,
        }
    }
}

const INPUT_MARKER: &str = "---Input Text---";

/// Whether an extraction conversation asks for LightRAG's JSON layout: a message shows both
/// quoted keys `"entities"` and `"relationships"`.
fn asks_json(messages: &[Message]) -> bool {
    messages.iter().any(|m| m.content.contains("\"entities\"") && m.content.contains("\"relationships\""))
}

/// Classifies a conversation by the layout contract.
pub fn recognise(messages: &[Message]) -> Recognised {
    let last_user = messages.iter().rposition(|m| m.role == "user");
    let prompt = last_user.map(|i| messages[i].content.as_str()).unwrap_or("");
    if let Some(text) = block_after(prompt, |line| line.trim() == INPUT_MARKER) {
        return if asks_json(messages) { Recognised::ExtractJson { text } } else { Recognised::Extract { text } };
    }
    let earlier = &messages[..last_user.unwrap_or(0)];
    if let Some(text) = earlier
        .iter()
        .filter(|m| m.role == "user")
        .find_map(|m| block_after(&m.content, |line| line.trim() == INPUT_MARKER))
    {
        return if asks_json(messages) { Recognised::GleanJson { text } } else { Recognised::Glean { text } };
    }
    if let Some(summary) = summary_parts(prompt) {
        return summary;
    }
    if let Some(judge) = judge_parts(prompt) {
        return judge;
    }
    if prompt.contains("\"sub_questions\"")
        && let Some(question) = block_after(prompt, |l| l.trim() == "Question:")
    {
        let question = question.split("\n\n").next().unwrap_or("").trim().to_string();
        return Recognised::Decompose { question };
    }
    let all: String = messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
    let asks_keywords = all.contains("high_level_keywords") && all.contains("low_level_keywords");
    let query = messages.iter().rev().find_map(|m| user_query(&m.content));
    if let Some(query) = query.filter(|_| asks_keywords) {
        return Recognised::Keywords { query };
    }
    let system =
        messages.iter().filter(|m| m.role == "system").map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n");
    Recognised::Answer { system, query: prompt.to_string() }
}

/// The block after the last line matching `is_marker` (examples may come earlier): the content of a fenced block when the
/// next non-blank line opens a fence, otherwise the remaining text. `None` without the marker.
fn block_after(text: &str, is_marker: impl Fn(&str) -> bool) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().rposition(|l| is_marker(l))?;
    let mut rest = lines[start + 1..].iter().skip_while(|l| l.trim().is_empty()).peekable();
    let fenced = rest.peek().is_some_and(|l| l.trim_start().starts_with("```"));
    if fenced {
        rest.next();
        let body: Vec<&str> = rest.take_while(|l| l.trim() != "```").copied().collect();
        Some(body.join("\n"))
    } else {
        Some(rest.copied().collect::<Vec<_>>().join("\n").trim().to_string())
    }
}

fn summary_parts(prompt: &str) -> Option<Recognised> {
    let name = prompt.lines().rev().find_map(|l| l.trim_start().strip_prefix("Name:")).map(|n| n.trim().to_string())?;
    let block = block_after(prompt, |l| l.trim() == "Description List:")?;
    let descriptions = block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| {
            serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v.get("Description").and_then(Value::as_str).map(str::to_string))
                .unwrap_or_else(|| line.to_string())
        })
        .collect();
    Some(Recognised::Summary { name, descriptions })
}

/// A judge prompt: it asks for `"faithfulness"` and has a `Context:` section followed by an
/// `Answer:` section (each header on a line of its own).
fn judge_parts(prompt: &str) -> Option<Recognised> {
    if !prompt.contains("\"faithfulness\"") {
        return None;
    }
    let context_at = prompt.rfind("\nContext:\n")?;
    let rest = &prompt[context_at + "\nContext:\n".len()..];
    let answer_at = rest.rfind("\nAnswer:\n")?;
    Some(Recognised::Judge {
        context: rest[..answer_at].trim().to_string(),
        answer: rest[answer_at + "\nAnswer:\n".len()..].trim().to_string(),
    })
}

/// The question after the last `User Query:` line (or on it), up to the next blank line.
fn user_query(text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().rposition(|l| l.trim_start().starts_with("User Query:"))?;
    let first = lines[at].trim_start().trim_start_matches("User Query:");
    let mut parts: Vec<&str> = Vec::new();
    if !first.trim().is_empty() {
        parts.push(first.trim());
    }
    for line in &lines[at + 1..] {
        if line.trim().is_empty() {
            if parts.is_empty() {
                continue;
            }
            break;
        }
        parts.push(line.trim());
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    fn msg(role: &str, content: &str) -> Message {
        Message { role: role.into(), content: content.into() }
    }

    const EXTRACT: &str = "Extract entities.\n---Input Text---\n```\nAlice met Bob.\nThey talked.\n```\n";

    #[test]
    fn extraction_is_recognised_with_its_fenced_text() {
        let r = recognise(&[msg("system", "rules <|#|>"), msg("user", EXTRACT)]);
        assert_eq!(r, Recognised::Extract { text: "Alice met Bob.\nThey talked.".into() });
    }

    #[test]
    fn gleaning_needs_an_extraction_in_the_history() {
        let r = recognise(&[
            msg("system", "rules"),
            msg("user", EXTRACT),
            msg("assistant", "entity<|#|>Alice<|#|>person<|#|>x\n<|COMPLETE|>"),
            msg("user", "Find the entities you missed."),
        ]);
        assert_eq!(r.kind(), PromptKind::Glean);
        assert_eq!(r, Recognised::Glean { text: "Alice met Bob.\nThey talked.".into() });
    }

    #[test]
    fn json_extraction_is_recognised_by_its_object_layout() {
        let system = "Answer with {\"entities\": [...], \"relationships\": [...]}";
        let r = recognise(&[msg("system", system), msg("user", EXTRACT)]);
        assert_eq!(r, Recognised::ExtractJson { text: "Alice met Bob.\nThey talked.".into() });
        assert_eq!(r.kind(), PromptKind::Extract);
        let g = recognise(&[msg("system", system), msg("user", EXTRACT), msg("assistant", "{}"), msg("user", "More?")]);
        assert_eq!(g.kind(), PromptKind::Glean);
        assert!(matches!(g, Recognised::GleanJson { .. }));
    }

    #[test]
    fn a_judge_prompt_is_told_apart_by_its_sections() {
        let prompt = "Reply with {\"faithfulness\": S}.\n\nQuestion:\nWho?\n\nContext:\nAnn met Bob.\n\nAnswer:\nAnn\n";
        let messages = vec![Message { role: "user".into(), content: prompt.into() }];
        assert_eq!(recognise(&messages), Recognised::Judge { context: "Ann met Bob.".into(), answer: "Ann".into() });
        let plain = vec![Message { role: "user".into(), content: "Context:\nx\nAnswer:\ny".into() }];
        assert_eq!(recognise(&plain).kind(), PromptKind::Answer, "no faithfulness asked for");
    }

    #[test]
    fn summary_reads_name_and_json_lines() {
        let prompt = "Summarise.\nName: Alice\nDescription List:\n\n```\n{\"Description\": \"Alice is a cook. She likes pie.\"}\n{\"Description\": \"Alice runs.\"}\n```\n";
        let r = recognise(&[msg("user", prompt)]);
        assert_eq!(
            r,
            Recognised::Summary {
                name: "Alice".into(),
                descriptions: vec!["Alice is a cook. She likes pie.".into(), "Alice runs.".into()]
            }
        );
    }

    #[test]
    fn a_decomposition_prompt_gives_its_last_question() {
        let prompt = "Answer {\"sub_questions\": [...]}.\nQuestion:\nWho directed Inception?\n\nOutput:\n{}\n\n\
                      Question:\nWhere was the director of Inception born?\n\nOutput:\n";
        let r = recognise(&[msg("user", prompt)]);
        assert_eq!(r, Recognised::Decompose { question: "Where was the director of Inception born?".into() });
        assert_eq!(r.kind(), PromptKind::Decompose);
        let no_key = recognise(&[msg("user", "Question:\nWho?\n")]);
        assert_eq!(no_key.kind(), PromptKind::Answer);
    }

    #[test]
    fn keywords_need_both_names_and_a_user_query() {
        let prompt =
            "Return high_level_keywords and low_level_keywords.\nUser Query:\nWho founded Acme Corp?\n\nOutput:";
        let r = recognise(&[msg("user", prompt)]);
        assert_eq!(r, Recognised::Keywords { query: "Who founded Acme Corp?".into() });
        let inline =
            recognise(&[msg("system", "high_level_keywords low_level_keywords"), msg("user", "User Query: Why?\n")]);
        assert_eq!(inline, Recognised::Keywords { query: "Why?".into() });
        let with_example = "high_level_keywords low_level_keywords\nExample:\nUser Query:\nOld one?\n\n---Real---\nUser Query:\nNew one?\n\n";
        assert_eq!(recognise(&[msg("user", with_example)]), Recognised::Keywords { query: "New one?".into() });
    }

    #[test]
    fn everything_else_is_an_answer() {
        let r = recognise(&[msg("system", "Context here"), msg("user", "What is up?")]);
        assert_eq!(r, Recognised::Answer { system: "Context here".into(), query: "What is up?".into() });
        let only_keywords_word = recognise(&[msg("user", "high_level_keywords only\nUser Query:\nx\n")]);
        assert_eq!(only_keywords_word.kind(), PromptKind::Answer);
    }

    #[test]
    fn array_content_parts_are_joined() {
        let body = serde_json::json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]});
        assert_eq!(messages_from_body(&body), vec![msg("user", "a\nb")]);
    }
}
