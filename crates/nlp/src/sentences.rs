//! Sentence splitting over the token stream.
//!
//! A sentence ends at `.`, `!`, `?` or `…` (closing quotes and brackets stay with it), at a blank
//! line, at a line that starts a list item or heading, and after a heading line. A dot after an
//! abbreviation (`Mr.`, `Gen.`, `St.`), an initial (`Q.`) or before a lower-case word does not end
//! a sentence. Very long runs without punctuation are cut so one sentence stays bounded.

use crate::lexicon::{ABBREVIATIONS, contains, is_stop, lower};
use crate::tokens::{Kind, Token};

/// Longest sentence, in tokens, before it is cut.
const MAX_SENTENCE_TOKENS: usize = 160;

/// A sentence: a range of tokens and the byte span it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sentence {
    /// First token index.
    pub first: usize,
    /// One past the last token index.
    pub last: usize,
    /// Byte offset of the first token.
    pub start: usize,
    /// Byte offset one past the last token.
    pub end: usize,
}

/// Splits the token stream of `src` into sentences (never empty ones).
pub fn split(src: &str, tokens: &[Token]) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut first = 0;
    let mut heading_line = false;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        if i > first && starts_new_block(src, tokens, i, heading_line) {
            push(&mut out, tokens, first, i);
            first = i;
        }
        if t.newlines_before > 0 || i == 0 {
            heading_line = t.is_punct(src, '#');
        }
        let mut end_here = is_terminal(src, tokens, i);
        if !end_here && i + 1 - first >= MAX_SENTENCE_TOKENS {
            end_here = true;
        }
        if end_here {
            // Keep closing quotes and brackets with the sentence they close.
            while i + 1 < tokens.len() && is_closer(src, &tokens[i + 1]) && tokens[i + 1].newlines_before == 0 {
                i += 1;
            }
            push(&mut out, tokens, first, i + 1);
            first = i + 1;
        }
        i += 1;
    }
    push(&mut out, tokens, first, tokens.len());
    out
}

fn push(out: &mut Vec<Sentence>, tokens: &[Token], first: usize, last: usize) {
    if first < last {
        out.push(Sentence { first, last, start: tokens[first].start, end: tokens[last - 1].end });
    }
}

fn is_closer(src: &str, t: &Token) -> bool {
    t.kind == Kind::Punct
        && !t.space_before
        && matches!(t.first_char(src), Some('"' | '”' | '’' | '\'' | ')' | ']' | '»'))
}

/// Whether token `i` starts a new block (paragraph, list item, heading) on a new line.
fn starts_new_block(src: &str, tokens: &[Token], i: usize, prev_line_heading: bool) -> bool {
    let t = tokens[i];
    if t.newlines_before >= 2 {
        return true;
    }
    if t.newlines_before == 0 {
        return false;
    }
    if prev_line_heading {
        return true;
    }
    let bullet = t.kind == Kind::Punct && matches!(t.first_char(src), Some('#' | '-' | '*' | '•' | '>' | '|'));
    let numbered =
        t.kind == Kind::Number && tokens.get(i + 1).is_some_and(|n| n.is_punct(src, '.') || n.is_punct(src, ')'));
    let after_colon = tokens.get(i.wrapping_sub(1)).is_some_and(|p| p.is_punct(src, ':'));
    bullet || numbered || after_colon
}

/// Whether token `i` ends a sentence.
fn is_terminal(src: &str, tokens: &[Token], i: usize) -> bool {
    let t = tokens[i];
    let next = tokens.get(i + 1);
    let next_is_lower_word =
        next.is_some_and(|n| n.kind == Kind::Word && n.first_char(src).is_some_and(char::is_lowercase));
    let next_is_capital_stop = next.is_some_and(|n| {
        n.kind == Kind::Word && n.first_char(src).is_some_and(char::is_uppercase) && is_stop(&lower(n.text(src)))
    });
    match t.kind {
        // A dotted acronym swallowed its dot; it ends a sentence only before an obvious starter.
        Kind::Word => t.text(src).ends_with('.') && next_is_capital_stop,
        Kind::Punct => match t.first_char(src) {
            Some('!' | '?' | '…') => !next_is_lower_word,
            Some('.') => {
                if next_is_lower_word || next.is_some_and(|n| n.is_punct(src, '.')) {
                    return false;
                }
                let prev_is_abbrev = i > 0
                    && tokens[i - 1].end == t.start
                    && tokens[i - 1].kind == Kind::Word
                    && is_abbreviation(tokens[i - 1].text(src));
                !prev_is_abbrev || next_is_capital_stop
            }
            _ => false,
        },
        _ => false,
    }
}

/// Abbreviations and single-letter initials, whose dot does not end a sentence.
fn is_abbreviation(word: &str) -> bool {
    let mut chars = word.chars();
    let single_capital = matches!((chars.next(), chars.next()), (Some(c), None) if c.is_uppercase());
    single_capital || contains(ABBREVIATIONS, &lower(word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::tokenize;

    fn sentences(src: &str) -> Vec<&str> {
        let toks = tokenize(src);
        split(src, &toks).iter().map(|s| &src[s.start..s.end]).collect()
    }

    #[test]
    fn splits_on_terminal_punctuation() {
        assert_eq!(
            sentences("War came. Did it end? Yes! \"It did.\" Then peace."),
            vec!["War came.", "Did it end?", "Yes!", "\"It did.\"", "Then peace."]
        );
    }

    #[test]
    fn abbreviations_and_initials_do_not_split() {
        assert_eq!(
            sentences("Mr. Smith met Gen. Grant and John Q. Adams in St. Louis. We left."),
            vec!["Mr. Smith met Gen. Grant and John Q. Adams in St. Louis.", "We left."]
        );
        assert_eq!(sentences("It came from the U.S. We left."), vec!["It came from the U.S.", "We left."]);
        assert_eq!(sentences("Plan B. We won."), vec!["Plan B.", "We won."]);
    }

    #[test]
    fn blank_lines_and_headings_split() {
        assert_eq!(
            sentences("# Foreign Affairs\nThe treaty\nwas signed\n\nNext part"),
            vec!["# Foreign Affairs", "The treaty\nwas signed", "Next part"]
        );
        assert_eq!(sentences("Items:\n- one\n- two"), vec!["Items:", "- one", "- two"]);
    }

    #[test]
    fn empty_and_punctuation_only() {
        assert!(sentences("").is_empty());
        assert_eq!(sentences("..."), vec!["..."]);
    }
}
