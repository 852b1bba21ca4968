//! Small text helpers shared by the recognisers and generators: sentences, word tokens,
//! capitalised name runs, stop words, trimming.

/// Words that never start or join a name and never count as keywords. Lowercase.
const STOPWORDS: &[&str] = &[
    "a",
    "about",
    "after",
    "again",
    "all",
    "also",
    "although",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "both",
    "but",
    "by",
    "can",
    "could",
    "did",
    "do",
    "does",
    "during",
    "each",
    "every",
    "few",
    "for",
    "from",
    "had",
    "has",
    "have",
    "he",
    "her",
    "here",
    "hers",
    "him",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "just",
    "many",
    "me",
    "more",
    "most",
    "my",
    "no",
    "nor",
    "not",
    "of",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "out",
    "over",
    "she",
    "should",
    "since",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "today",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "whose",
    "why",
    "will",
    "with",
    "would",
    "yet",
    "you",
    "your",
    "yours",
    "tell",
    "explain",
    "describe",
    "please",
    "meanwhile",
    "later",
    "finally",
    "yesterday",
    "tomorrow",
    "there's",
    "it's",
    "let",
];

/// Abbreviations after which a period does not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "inc", "corp", "ltd", "co", "dr", "mr", "mrs", "ms", "st", "jr", "sr", "prof", "vs", "etc", "no", "mt", "gen",
    "col", "capt", "u.s", "e.g", "i.e",
];

/// Whether `word` is a stop word (case-insensitive).
pub(crate) fn is_stopword(word: &str) -> bool {
    let lower = word.to_lowercase();
    STOPWORDS.contains(&lower.as_str())
}

/// Whether `word` starts with an uppercase letter.
pub(crate) fn is_capitalised(word: &str) -> bool {
    word.chars().next().is_some_and(char::is_uppercase)
}

/// Splits text into sentences: at `.`, `!` or `?` followed by whitespace (or the end), except
/// after common abbreviations and initials, and at every line break. Sentences are trimmed and
/// never empty.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == '\n' || c == '\r' {
            push_trimmed(&mut out, &mut current);
            continue;
        }
        current.push(c);
        let at_boundary = chars.get(i + 1).is_none_or(|next| next.is_whitespace());
        if matches!(c, '.' | '!' | '?') && at_boundary && !(c == '.' && ends_with_abbreviation(&current)) {
            push_trimmed(&mut out, &mut current);
        }
    }
    push_trimmed(&mut out, &mut current);
    out
}

fn push_trimmed(out: &mut Vec<String>, current: &mut String) {
    let trimmed = current.trim();
    if !trimmed.is_empty() {
        out.push(trimmed.to_string());
    }
    current.clear();
}

/// `current` ends with `.`; true when the word before it is an abbreviation or an initial.
fn ends_with_abbreviation(current: &str) -> bool {
    let without_dot = &current[..current.len() - 1];
    let last = without_dot.rsplit(char::is_whitespace).next().unwrap_or("");
    let last = last.trim_start_matches(|c: char| !c.is_alphanumeric());
    if last.chars().count() == 1 && is_capitalised(last) {
        return true;
    }
    ABBREVIATIONS.contains(&last.to_lowercase().as_str())
}

/// The first sentence of `text` (or the whole trimmed text when it has no sentence break).
pub(crate) fn first_sentence(text: &str) -> String {
    sentences(text).into_iter().next().unwrap_or_default()
}

/// Cuts `text` to at most `max` characters (on a character boundary), trimmed.
pub(crate) fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => text[..cut].trim_end().to_string(),
        None => text.trim_end().to_string(),
    }
}

/// Collapses every run of whitespace to one space.
pub(crate) fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Number of whitespace-separated words, the scripted server's notion of a "token".
pub(crate) fn word_count(text: &str) -> u64 {
    text.split_whitespace().count() as u64
}

/// A word of a sentence with the punctuation around it stripped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    /// The word (letters, digits, inner `-`, `'`, `&`, `.`).
    pub word: String,
    /// Punctuation stood before the word (a quote, a bracket).
    pub breaks_before: bool,
    /// Punctuation followed the word (a comma, a period, a possessive `'s`).
    pub breaks_after: bool,
}

/// Splits a sentence into word tokens.
pub(crate) fn tokens(sentence: &str) -> Vec<Token> {
    sentence
        .split_whitespace()
        .filter_map(|raw| {
            let start = raw.trim_start_matches(|c: char| !c.is_alphanumeric());
            let mut word = start.trim_end_matches(|c: char| !c.is_alphanumeric());
            if word.is_empty() {
                return None;
            }
            let breaks_before = start.len() != raw.len();
            let mut breaks_after = word.len() != start.len();
            for suffix in ["'s", "\u{2019}s"] {
                if let Some(stem) = word.strip_suffix(suffix) {
                    word = stem;
                    breaks_after = true;
                }
            }
            Some(Token { word: word.to_string(), breaks_before, breaks_after })
        })
        .collect()
}

/// A run of capitalised words (1–3 words) found in a sentence: a name candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NameRun {
    /// The words joined by single spaces.
    pub name: String,
    /// The word just before the run, lowercased, if any.
    pub preceded_by: Option<String>,
}

/// Finds name candidates: maximal runs of capitalised, non-stop words of at least two
/// characters, broken by punctuation and capped at three words.
pub(crate) fn name_runs(sentence: &str) -> Vec<NameRun> {
    let toks = tokens(sentence);
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    let mut run_start = 0;
    let flush = |run: &mut Vec<&str>, start: usize, out: &mut Vec<NameRun>| {
        if !run.is_empty() {
            let preceded_by = start.checked_sub(1).map(|i| toks[i].word.to_lowercase());
            out.push(NameRun { name: run.join(" "), preceded_by });
            run.clear();
        }
    };
    for (i, tok) in toks.iter().enumerate() {
        let is_name_word = is_capitalised(&tok.word) && tok.word.chars().count() >= 2 && !is_stopword(&tok.word);
        if !is_name_word {
            flush(&mut run, run_start, &mut out);
            continue;
        }
        if tok.breaks_before {
            flush(&mut run, run_start, &mut out);
        }
        if run.is_empty() {
            run_start = i;
        }
        run.push(&tok.word);
        if tok.breaks_after || run.len() == 3 {
            flush(&mut run, run_start, &mut out);
        }
    }
    flush(&mut run, run_start, &mut out);
    out
}

/// Lowercase words of `sentence` that are not stop words and not part of a name (alphabetic,
/// at least three letters), in order, without repeats.
pub(crate) fn plain_words(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for tok in tokens(sentence) {
        let word = tok.word;
        if is_capitalised(&word)
            || word.chars().count() < 3
            || !word.chars().all(char::is_alphabetic)
            || is_stopword(&word)
        {
            continue;
        }
        let lower = word.to_lowercase();
        if !out.contains(&lower) {
            out.push(lower);
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn sentences_split_on_punctuation_and_lines_but_not_abbreviations() {
        let got = sentences("Acme Inc. hired Bob. Did it work? Yes!\nA heading\n\nDr. Who left.");
        assert_eq!(got, vec!["Acme Inc. hired Bob.", "Did it work?", "Yes!", "A heading", "Dr. Who left."]);
    }

    #[test]
    fn tokens_strip_punctuation_and_possessives() {
        let got = tokens("\"Alice's\" dog, (Rex).");
        assert_eq!(got[0], Token { word: "Alice".into(), breaks_before: true, breaks_after: true });
        assert_eq!(got[1], Token { word: "dog".into(), breaks_before: false, breaks_after: true });
        assert_eq!(got[2].word, "Rex");
    }

    #[test]
    fn name_runs_skip_stop_words_and_break_on_punctuation() {
        let runs = name_runs("The Acme Corp hired Alice Smith, Bob and Carol Ann Jones Senior in Paris.");
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["Acme Corp", "Alice Smith", "Bob", "Carol Ann Jones", "Senior", "Paris"]);
        assert_eq!(runs[5].preceded_by.as_deref(), Some("in"));
        assert_eq!(runs[0].preceded_by.as_deref(), Some("the"));
    }

    #[test]
    fn plain_words_are_lowercase_content_words() {
        assert_eq!(plain_words("Alice founded the big company in 2020."), vec!["founded", "big", "company"]);
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate_chars("héllo wörld", 7), "héllo w");
        assert_eq!(truncate_chars("short", 10), "short");
    }
}
