//! A small, allocation-light tokenizer that keeps byte spans into the source text.
//!
//! Words keep inner apostrophes and hyphens (`Washington's`, `Fellow-Citizens`); dotted
//! acronyms (`U.S.`, `U.S.A.`) are one word including their dots; numbers keep inner `,` and `.`
//! between digits (`3,000,000`); every other visible character is a one-character punctuation
//! token. Whitespace is not a token, but each token remembers how many line breaks preceded it.

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Starts with a letter (may contain digits, inner `'`, `’`, `-`, or be a dotted acronym).
    Word,
    /// Starts with a digit and holds only digits and inner separators.
    Number,
    /// Starts with a digit and continues with letters (`4th`, `1920s`).
    Alnum,
    /// One visible non-alphanumeric character.
    Punct,
}

/// One token: a byte span of the source text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
    /// Token class.
    pub kind: Kind,
    /// Line breaks in the whitespace before this token (capped at 2).
    pub newlines_before: u8,
    /// Whether any whitespace precedes this token.
    pub space_before: bool,
}

impl Token {
    /// The token's text.
    pub fn text<'a>(&self, src: &'a str) -> &'a str {
        src.get(self.start..self.end).unwrap_or("")
    }

    /// First character of the token.
    pub fn first_char(&self, src: &str) -> Option<char> {
        self.text(src).chars().next()
    }

    /// Whether this is the punctuation character `c`.
    pub fn is_punct(&self, src: &str, c: char) -> bool {
        self.kind == Kind::Punct && self.first_char(src) == Some(c)
    }
}

fn is_inner_joiner(c: char) -> bool {
    matches!(c, '\'' | '’' | '-' | '‑')
}

/// Splits `src` into tokens.
pub fn tokenize(src: &str) -> Vec<Token> {
    let chars: Vec<(usize, char)> = src.char_indices().collect();
    let end_of = |i: usize| chars.get(i).map_or(src.len(), |&(b, _)| b);
    let mut tokens = Vec::with_capacity(src.len() / 5 + 1);
    let mut i = 0;
    let mut newlines: u8 = 0;
    let mut space = false;
    while i < chars.len() {
        let (start, c) = chars[i];
        if c.is_whitespace() {
            if c == '\n' {
                newlines = newlines.saturating_add(1).min(2);
            }
            space = true;
            i += 1;
            continue;
        }
        let begin = i;
        let kind = if c.is_alphabetic() {
            i = scan_word(&chars, i);
            Kind::Word
        } else if c.is_numeric() {
            i = scan_number(&chars, i);
            if chars[begin..i].iter().any(|&(_, ch)| ch.is_alphabetic()) { Kind::Alnum } else { Kind::Number }
        } else {
            i += 1;
            Kind::Punct
        };
        tokens.push(Token { start, end: end_of(i), kind, newlines_before: newlines, space_before: space });
        newlines = 0;
        space = false;
    }
    tokens
}

/// Scans a word starting at `i`; returns the index one past its end.
fn scan_word(chars: &[(usize, char)], mut i: usize) -> usize {
    let at = |k: usize| chars.get(k).map(|&(_, c)| c);
    // Dotted acronym: single letters each followed by a dot, at least two of them (U.S., U.S.A.).
    let mut k = i;
    let mut letters = 0;
    while at(k).is_some_and(|c| c.is_alphabetic() && c.is_uppercase()) && at(k + 1) == Some('.') {
        letters += 1;
        k += 2;
        if !at(k).is_some_and(|c| c.is_alphabetic() && c.is_uppercase()) || at(k + 1) != Some('.') {
            break;
        }
    }
    if letters >= 2 && !at(k).is_some_and(char::is_alphanumeric) {
        return k;
    }
    i += 1;
    while let Some(c) = at(i) {
        if c.is_alphanumeric() || c == '\u{301}' {
            i += 1;
        } else if is_inner_joiner(c) && at(i + 1).is_some_and(char::is_alphanumeric) {
            i += 2;
        } else {
            break;
        }
    }
    i
}

/// Scans a number (or digit-led alphanumeric word) starting at `i`.
fn scan_number(chars: &[(usize, char)], mut i: usize) -> usize {
    let at = |k: usize| chars.get(k).map(|&(_, c)| c);
    i += 1;
    while let Some(c) = at(i) {
        if c.is_alphanumeric() {
            i += 1;
        } else if matches!(c, ',' | '.') && at(i + 1).is_some_and(|d| d.is_ascii_digit()) {
            i += 2;
        } else {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        tokenize(src).iter().map(|t| t.text(src)).collect()
    }

    #[test]
    fn words_numbers_and_punctuation() {
        assert_eq!(
            texts("Washington's Fellow-Citizens paid 3,000,000 florins (in 1792)."),
            vec!["Washington's", "Fellow-Citizens", "paid", "3,000,000", "florins", "(", "in", "1792", ")", "."]
        );
    }

    #[test]
    fn dotted_acronyms_are_one_token() {
        assert_eq!(texts("the U.S. Army and U.S.A. now"), vec!["the", "U.S.", "Army", "and", "U.S.A.", "now"]);
        assert_eq!(texts("John Q. Adams"), vec!["John", "Q", ".", "Adams"]);
    }

    #[test]
    fn newlines_are_counted() {
        let src = "One\n\nTwo\nThree";
        let toks = tokenize(src);
        assert_eq!(toks.iter().map(|t| t.newlines_before).collect::<Vec<_>>(), vec![0, 2, 1]);
    }

    #[test]
    fn unicode_does_not_break_spans() {
        let src = "Ñandú «Zürich» — 東京 ok";
        for t in tokenize(src) {
            assert!(!t.text(src).is_empty());
        }
        assert_eq!(texts("Zürich’s"), vec!["Zürich’s"]);
    }
}
