//! A tokenized, sentence-split text with the per-text facts the rules need, and the mention type.

use std::cell::OnceCell;
use std::collections::HashSet;

use crate::lexicon::{is_stop, lower};
use crate::sentences::{self, Sentence};
use crate::tokens::{self, Kind, Token};

/// How capitalised words at the start of a sentence are judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A passage: a sentence-initial word needs evidence to be a name.
    Document,
    /// A question: its first word may be a name unless it is a question word or a stop-word.
    Query,
}

/// A text prepared for extraction.
#[derive(Debug)]
pub struct Doc<'a> {
    /// The source text.
    pub src: &'a str,
    /// Its tokens.
    pub tokens: Vec<Token>,
    /// Its sentences.
    pub sentences: Vec<Sentence>,
    /// Per token: it starts a sentence or clause, so capitalisation proves nothing.
    pub initial: Vec<bool>,
    /// Per sentence: written mostly in capitals (a header), so capitalisation proves nothing.
    pub shouting: Vec<bool>,
    /// Lower-cased words seen capitalised away from a sentence start, or in the text's title line
    /// (evidence of a name).
    pub mid_caps: HashSet<String>,
    /// How sentence-initial words are judged.
    pub mode: Mode,
    /// Lower-cased token texts, concatenated (see [`Doc::lower`]).
    lowered: String,
    /// Byte span of each token in `lowered`.
    lowered_spans: Vec<(usize, usize)>,
    /// Per token: a stop-word.
    pub stop: Vec<bool>,
    /// Text of each sentence, whitespace collapsed, made on first use.
    sentence_texts: Vec<OnceCell<String>>,
}

/// One occurrence of an entity in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Mention {
    /// Normalised name as written.
    pub name: String,
    /// Type of this occurrence.
    pub entity_type: &'static str,
    /// Sentence index.
    pub sentence: usize,
    /// First token index.
    pub first: usize,
    /// One past the last token index.
    pub last: usize,
}

impl<'a> Doc<'a> {
    /// Tokenizes and splits `src`, and gathers capitalisation evidence.
    pub fn new(src: &'a str, mode: Mode) -> Self {
        let tokens = tokens::tokenize(src);
        let sentences = sentences::split(src, &tokens);
        let mut initial = vec![false; tokens.len()];
        let mut shouting = Vec::with_capacity(sentences.len());
        let mut mid_caps = HashSet::new();
        let mut lowered = String::with_capacity(src.len());
        let mut lowered_spans = Vec::with_capacity(tokens.len());
        let mut stop = Vec::with_capacity(tokens.len());
        for t in &tokens {
            let begin = lowered.len();
            let text = t.text(src);
            if text.is_ascii() {
                lowered.extend(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
            } else {
                lowered.push_str(&lower(text));
            }
            lowered_spans.push((begin, lowered.len()));
            stop.push(t.kind == Kind::Word && is_stop(&lowered[begin..]));
        }
        for s in &sentences {
            mark_initials(src, &tokens, s, &mut initial);
            let is_shouting = is_shouting(src, &tokens[s.first..s.last]);
            shouting.push(is_shouting);
            if is_shouting {
                continue;
            }
            for i in s.first..s.last {
                let t = &tokens[i];
                if !initial[i] && t.kind == Kind::Word && t.first_char(src).is_some_and(char::is_uppercase) {
                    let (a, b) = lowered_spans[i];
                    mid_caps.insert(strip_possessive(&lowered[a..b]).to_string());
                }
            }
        }
        if mode == Mode::Document
            && let Some(end) = heading_end(src)
        {
            // a title line names what the text is about: its capitalised words are names, also
            // where a sentence starts with them ("Gundobad\n\nGundobad was King of …")
            for (i, t) in tokens.iter().enumerate().take_while(|(_, t)| t.end <= end) {
                if t.kind == Kind::Word && !stop[i] && t.first_char(src).is_some_and(char::is_uppercase) {
                    let (a, b) = lowered_spans[i];
                    mid_caps.insert(strip_possessive(&lowered[a..b]).to_string());
                }
            }
        }
        let sentence_texts = vec![OnceCell::new(); sentences.len()];
        Doc { src, tokens, sentences, initial, shouting, mid_caps, mode, lowered, lowered_spans, stop, sentence_texts }
    }

    /// Lower-cased text of token `i` (typographic apostrophes mapped to `'`).
    pub fn lower(&self, i: usize) -> &str {
        self.lowered_spans.get(i).and_then(|&(a, b)| self.lowered.get(a..b)).unwrap_or("")
    }

    /// Text of token `i`.
    pub fn text(&self, i: usize) -> &'a str {
        self.tokens.get(i).map_or("", |t| t.text(self.src))
    }

    /// The source text between the start of token `first` and the end of token `last - 1`, with
    /// runs of whitespace collapsed to one space.
    pub fn span_text(&self, first: usize, last: usize) -> String {
        match (self.tokens.get(first), last.checked_sub(1).and_then(|l| self.tokens.get(l))) {
            (Some(a), Some(b)) if a.start <= b.end => collapse(self.src.get(a.start..b.end).unwrap_or("")),
            _ => String::new(),
        }
    }

    /// Text of sentence `s`, whitespace collapsed.
    pub fn sentence_text(&self, s: usize) -> &str {
        match (self.sentence_texts.get(s), self.sentences.get(s)) {
            (Some(cell), Some(span)) => cell.get_or_init(|| self.span_text(span.first, span.last)),
            _ => "",
        }
    }
}

/// Most words of a title line.
const MAX_HEADING_WORDS: usize = 10;

/// Where the text's title line ends, when it opens with one: a short first line in mixed case,
/// not ending like a sentence, followed by a blank line.
fn heading_end(src: &str) -> Option<usize> {
    let start = src.len() - src.trim_start().len();
    let rest = &src[start..];
    let line_end = rest.find('\n')?;
    let line = rest[..line_end].trim();
    let after = &rest[line_end + 1..];
    let blank_follows = after.split('\n').next().is_some_and(|l| l.trim().is_empty()) && after.contains('\n');
    let words = line.split_whitespace().count();
    let mixed_case = line.chars().any(char::is_lowercase) || words == 1;
    let sentence_like = line.ends_with(['.', ',', ';', ':', '!', '?']);
    (blank_follows && words > 0 && words <= MAX_HEADING_WORDS && mixed_case && !sentence_like)
        .then_some(start + line_end)
}

/// Collapses runs of whitespace to single spaces and trims the ends.
pub fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// Drops a possessive `'s` from a lower-cased word.
pub fn strip_possessive(lower: &str) -> &str {
    lower.strip_suffix("'s").unwrap_or(lower)
}

/// Marks the words that begin the sentence or a clause after `:`, an opening quote or bracket,
/// a dash, or a line break.
fn mark_initials(src: &str, tokens: &[Token], s: &Sentence, initial: &mut [bool]) {
    let mut expect_start = true;
    for i in s.first..s.last {
        let t = &tokens[i];
        match t.kind {
            Kind::Word => {
                if expect_start || t.newlines_before > 0 {
                    initial[i] = true;
                }
                expect_start = false;
            }
            Kind::Punct => {
                let c = t.first_char(src).unwrap_or(' ');
                if matches!(c, ':' | '"' | '“' | '(' | '[' | '—' | '#' | '*' | '•' | '>' | '|' | '«') {
                    expect_start = true;
                } else if matches!(c, '-' | '\'' | '‘') {
                    // A bullet at the very start, or an opening single quote.
                    expect_start = expect_start || i == s.first || t.space_before;
                }
            }
            Kind::Number | Kind::Alnum => {
                // "1. Item": a numbered list marker keeps the start position open.
                expect_start = expect_start && i == s.first;
            }
        }
    }
}

/// A sentence of at least three words whose words are mostly all-capitals.
fn is_shouting(src: &str, tokens: &[Token]) -> bool {
    let mut words = 0;
    let mut caps = 0;
    for t in tokens.iter().filter(|t| t.kind == Kind::Word) {
        let (mut letters, mut upper) = (0, 0);
        for c in t.text(src).chars().filter(|c| c.is_alphabetic()) {
            letters += 1;
            upper += usize::from(c.is_uppercase());
        }
        if letters < 2 {
            continue;
        }
        words += 1;
        if upper == letters {
            caps += 1;
        }
    }
    (words >= 3 && caps * 10 >= words * 7) || (words == 2 && caps == 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_line_is_evidence_of_its_names() {
        let doc = Doc::new("Gundobad\n\nGundobad was King of the Burgundians.", Mode::Document);
        assert!(doc.mid_caps.contains("gundobad"));
        // not a title: the first line runs on, ends like a sentence, or is shouted
        for src in [
            "Gundobad was King.\n\nHe ruled.",
            "Gundobad\nwas King of the Burgundians.",
            "THE BURGUNDIAN KINGS\n\nGundobad was King.",
        ] {
            assert!(!Doc::new(src, Mode::Document).mid_caps.contains("gundobad"), "{src:?}");
        }
        assert!(heading_end("Palo Alto (2013 film)\n\nPalo Alto is a film.").is_some());
        assert!(heading_end("One two three four five six seven eight nine ten eleven\n\nText").is_none());
        // a question has no title line
        assert!(!Doc::new("Gundobad\n\nGundobad ruled?", Mode::Query).mid_caps.contains("gundobad"));
    }

    #[test]
    fn evidence_and_initials() {
        let doc = Doc::new("However, the Senate met. Senate rules: Lincoln spoke.", Mode::Document);
        assert!(doc.mid_caps.contains("senate"));
        assert!(!doc.mid_caps.contains("however"));
        assert!(!doc.mid_caps.contains("lincoln"), "after a colon is a clause start");
        assert_eq!(doc.initial.iter().filter(|b| **b).count(), 3);
    }

    #[test]
    fn shouting_headers() {
        let doc = Doc::new("THE STATE OF THE UNION\n\nThe Union is strong.", Mode::Document);
        assert_eq!(doc.shouting, vec![true, false]);
    }

    #[test]
    fn spans_collapse_whitespace() {
        let doc = Doc::new("United\n  States", Mode::Document);
        assert_eq!(doc.span_text(0, 2), "United States");
        assert_eq!(doc.span_text(1, 0), "");
    }
}
