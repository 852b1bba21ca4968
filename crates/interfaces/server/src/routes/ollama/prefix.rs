//! Mode prefixes of the last chat message (LightRAG's `parse_query_mode`): `/local …`,
//! `/global …`, `/naive …`, `/hybrid …`, `/mix …`, `/bypass …`, `/context…`,
//! `/localcontext…` (and the other `…context` forms), and the instruction syntax
//! `/mode[instructions] query`.

use lightrag_engine::retrieval::query::QueryMode;

/// What the last chat message asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatQuery {
    /// The question with the prefix removed.
    pub query: String,
    /// The retrieval mode; [`QueryMode::Bypass`] means straight to the LLM.
    pub mode: QueryMode,
    /// Return the retrieved context instead of an answer.
    pub only_need_context: bool,
    /// Instructions given in brackets (`/mix[use a table] …`), for the answer prompt.
    pub user_prompt: Option<String>,
}

/// Prefixes in the order LightRAG tries them. The plain modes need a trailing space; the context
/// forms do not.
const PREFIXES: [(&str, QueryMode, bool); 12] = [
    ("/local ", QueryMode::Local, false),
    ("/global ", QueryMode::Global, false),
    ("/naive ", QueryMode::Naive, false),
    ("/hybrid ", QueryMode::Hybrid, false),
    ("/mix ", QueryMode::Mix, false),
    ("/bypass ", QueryMode::Bypass, false),
    ("/context", QueryMode::Mix, true),
    ("/localcontext", QueryMode::Local, true),
    ("/globalcontext", QueryMode::Global, true),
    ("/hybridcontext", QueryMode::Hybrid, true),
    ("/naivecontext", QueryMode::Naive, true),
    ("/mixcontext", QueryMode::Mix, true),
];

/// Splits `/word[instructions] rest` into (`word`, `instructions`, `rest`). The word is lowercase
/// ASCII letters (possibly none); the instructions end at the first `]` and stay on one line.
fn bracket_form(text: &str) -> Option<(&str, &str, &str)> {
    let after_slash = text.strip_prefix('/')?;
    let word_len = after_slash.bytes().take_while(u8::is_ascii_lowercase).count();
    let (word, rest) = after_slash.split_at(word_len);
    let inside = rest.strip_prefix('[')?;
    let close = inside.find(']')?;
    let instructions = &inside[..close];
    if instructions.contains('\n') {
        return None;
    }
    Some((word, instructions, &inside[close + 1..]))
}

/// Reads the mode prefix and bracketed instructions of `text`. Without a known prefix the whole
/// text is the query, in `default_mode` (`DEFAULT_QUERY_MODE`: `auto`; LightRAG's is `mix`).
///
/// Like LightRAG 1.5.7, `/mode[instructions] query` is rewritten to `/mode query` (the space kept,
/// so `/local[x]` is the `local` prefix with an empty query) and `/[instructions] query` to
/// `query`, before the prefix is matched; later lines stay in the query.
pub fn parse_chat_query(text: &str, default_mode: QueryMode) -> ChatQuery {
    let mut user_prompt = None;
    let rewritten;
    let mut query = text;
    if let Some((word, instructions, rest)) = bracket_form(text) {
        user_prompt = Some(instructions.to_string());
        rewritten =
            if word.is_empty() { rest.trim_start().to_string() } else { format!("/{word} {}", rest.trim_start()) };
        query = &rewritten;
    }
    for (prefix, mode, only_need_context) in PREFIXES {
        if let Some(rest) = query.strip_prefix(prefix) {
            return ChatQuery { query: rest.trim_start().to_string(), mode, only_need_context, user_prompt };
        }
    }
    ChatQuery { query: query.to_string(), mode: default_mode, only_need_context: false, user_prompt }
}

/// Whether the query is one of Open WebUI's background tasks (chat title, tags, follow-ups),
/// which quote the conversation in a `<chat_history>` block and are sent straight to the LLM.
pub fn is_open_webui_task(query: &str) -> bool {
    query.contains("\n<chat_history>\nUSER:")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> (String, QueryMode, bool, Option<String>) {
        let q = parse_chat_query(text, QueryMode::Auto);
        (q.query, q.mode, q.only_need_context, q.user_prompt)
    }

    #[test]
    fn plain_mode_prefixes_need_a_space_and_are_removed() {
        let cases = [
            ("/local who is Alice?", QueryMode::Local),
            ("/global who is Alice?", QueryMode::Global),
            ("/naive who is Alice?", QueryMode::Naive),
            ("/hybrid who is Alice?", QueryMode::Hybrid),
            ("/mix who is Alice?", QueryMode::Mix),
            ("/bypass who is Alice?", QueryMode::Bypass),
        ];
        for (text, mode) in cases {
            assert_eq!(parsed(text), ("who is Alice?".into(), mode, false, None), "{text}");
        }
        assert_eq!(parsed("/local    spaced"), ("spaced".into(), QueryMode::Local, false, None));
        // no space: not a prefix, the text stays the query in the default mode
        assert_eq!(parsed("/localquestion"), ("/localquestion".into(), QueryMode::Auto, false, None));
        assert_eq!(parsed("/bypass"), ("/bypass".into(), QueryMode::Auto, false, None));
    }

    #[test]
    fn context_prefixes_set_only_need_context() {
        let cases = [
            ("/context who?", QueryMode::Mix),
            ("/localcontext who?", QueryMode::Local),
            ("/globalcontext who?", QueryMode::Global),
            ("/hybridcontext who?", QueryMode::Hybrid),
            ("/naivecontext who?", QueryMode::Naive),
            ("/mixcontext who?", QueryMode::Mix),
        ];
        for (text, mode) in cases {
            assert_eq!(parsed(text), ("who?".into(), mode, true, None), "{text}");
        }
        // the context forms need no space
        assert_eq!(parsed("/contextwho?"), ("who?".into(), QueryMode::Mix, true, None));
    }

    #[test]
    fn no_prefix_means_the_default_mode_with_the_text_unchanged() {
        assert_eq!(parsed("Who is Alice?"), ("Who is Alice?".into(), QueryMode::Auto, false, None));
        assert_eq!(parsed("/unknown x"), ("/unknown x".into(), QueryMode::Auto, false, None));
        assert_eq!(parsed(""), (String::new(), QueryMode::Auto, false, None));
    }

    #[test]
    fn bracket_instructions_become_the_user_prompt() {
        assert_eq!(
            parsed("/mix[Use mermaid format for diagrams] draw the org chart"),
            ("draw the org chart".into(), QueryMode::Mix, false, Some("Use mermaid format for diagrams".into()))
        );
        assert_eq!(
            parsed("/local[be brief]who is Bob?"),
            ("who is Bob?".into(), QueryMode::Local, false, Some("be brief".into()))
        );
        assert_eq!(
            parsed("/bypass[answer in French] hello"),
            ("hello".into(), QueryMode::Bypass, false, Some("answer in French".into()))
        );
        assert_eq!(parsed("/context[x] q"), ("q".into(), QueryMode::Mix, true, Some("x".into())));
        assert_eq!(parsed("/hybrid[] q"), ("q".into(), QueryMode::Hybrid, false, Some(String::new())));
    }

    #[test]
    fn bracket_with_empty_mode_leaves_the_query_alone() {
        assert_eq!(parsed("/[x] q"), ("q".into(), QueryMode::Auto, false, Some("x".into())));
    }

    #[test]
    fn bracket_edge_cases() {
        // a mode with nothing after the bracket keeps its space: the prefix, with an empty query
        assert_eq!(parsed("/local[x]"), (String::new(), QueryMode::Local, false, Some("x".into())));
        // unclosed or multi-line brackets are not instructions
        assert_eq!(parsed("/local[x q"), ("/local[x q".into(), QueryMode::Auto, false, None));
        assert_eq!(parsed("/mix[a\nb] q"), ("/mix[a\nb] q".into(), QueryMode::Auto, false, None));
        // upper-case mode words are not recognised
        assert_eq!(parsed("/LOCAL[x] q"), ("/LOCAL[x] q".into(), QueryMode::Auto, false, None));
        // later lines of the query are kept
        assert_eq!(
            parsed("/naive[short] first line\nsecond line"),
            ("first line\nsecond line".into(), QueryMode::Naive, false, Some("short".into()))
        );
    }

    #[test]
    fn open_webui_tasks_are_recognised() {
        let task = "### Task:\nGenerate a concise title.\n<chat_history>\nUSER: hi\nASSISTANT: hello\n</chat_history>";
        assert!(is_open_webui_task(task));
        assert!(!is_open_webui_task("<chat_history>\nUSER: at the start, no newline before"));
        assert!(!is_open_webui_task("Who is Alice?"));
    }
}
