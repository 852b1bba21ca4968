//! Text helpers: content hashing, field clean-up for extracted records, token truncation.

use lightrag_ports::ids::md5_hex;

/// The normalised form of a document used for duplicate detection: line endings unified,
/// trailing whitespace of lines removed, surrounding blank space trimmed.
pub fn normalize_content(content: &str) -> String {
    let unified = content.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = unified.lines().map(str::trim_end).collect();
    lines.join("\n").trim().to_string()
}

/// MD5 of the normalised content.
pub fn content_hash(content: &str) -> String {
    md5_hex(&normalize_content(content))
}

/// Cleans one field of an extracted record: HTML entities decoded, `<p>`/`<br>` tags and control
/// characters removed, full-width ASCII folded to half-width, non-breaking spaces made plain,
/// whitespace collapsed, and one pair of matching outer quotes stripped.
pub fn clean_field(raw: &str) -> String {
    let decoded = decode_html_entities(raw);
    let mut out = String::with_capacity(decoded.len());
    let mut rest = decoded.as_str();
    while let Some(pos) = rest.find('<') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos..];
        let lower: String = after.chars().take(6).collect::<String>().to_ascii_lowercase();
        let tag_len =
            ["<br/>", "<br />", "<br>", "</p>", "<p>"].iter().find(|t| lower.starts_with(*t)).map(|t| t.len());
        match tag_len {
            Some(n) => {
                out.push(' ');
                rest = &after[n..];
            }
            None => {
                out.push('<');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    let folded: String = out
        .chars()
        .filter_map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0),
            '\u{3000}' | '\u{00A0}' | '\u{2007}' | '\u{202F}' => Some(' '),
            '\t' | '\n' | '\r' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let collapsed = folded.split_whitespace().collect::<Vec<_>>().join(" ");
    strip_outer_quotes(&collapsed).trim().to_string()
}

fn strip_outer_quotes(s: &str) -> &str {
    const PAIRS: [(char, char); 6] = [('"', '"'), ('\'', '\''), ('“', '”'), ('‘', '’'), ('《', '》'), ('`', '`')];
    let mut chars = s.chars();
    if let (Some(first), Some(last)) = (chars.next(), chars.next_back()) {
        for (open, close) in PAIRS {
            if first == open && last == close {
                return &s[first.len_utf8()..s.len() - last.len_utf8()];
            }
        }
    }
    s
}

/// Decodes the common named entities and numeric character references.
pub fn decode_html_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos..];
        let end = after.find(';').filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let name = &after[1..e];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" | "#39" => Some('\''),
                "nbsp" => Some(' '),
                _ if name.starts_with("#x") || name.starts_with("#X") => {
                    u32::from_str_radix(&name[2..], 16).ok().and_then(char::from_u32)
                }
                _ if name.starts_with('#') => name[1..].parse::<u32>().ok().and_then(char::from_u32),
                _ => None,
            };
            c.map(|c| (c, e + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &after[len..];
            }
            None => {
                out.push('&');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
pub(crate) mod tests_support {
    //! A whitespace "tokenizer" for unit tests: one token per word.
    use std::sync::Mutex;

    use lightrag_ports::Tokenizer;

    static VOCAB: Mutex<Vec<String>> = Mutex::new(Vec::new());

    /// One token per whitespace-separated word; decode joins with single spaces.
    pub struct WordTokenizer;

    impl Tokenizer for WordTokenizer {
        fn encode(&self, text: &str) -> Vec<u32> {
            let mut vocab = VOCAB.lock().unwrap_or_else(|e| e.into_inner());
            text.split_whitespace()
                .map(|w| match vocab.iter().position(|v| v == w) {
                    Some(i) => i as u32,
                    None => {
                        vocab.push(w.to_string());
                        (vocab.len() - 1) as u32
                    }
                })
                .collect()
        }
        fn decode(&self, tokens: &[u32]) -> String {
            let vocab = VOCAB.lock().unwrap_or_else(|e| e.into_inner());
            tokens.iter().filter_map(|&t| vocab.get(t as usize).cloned()).collect::<Vec<_>>().join(" ")
        }
    }

    /// One token per word, counting how many texts it was asked to encode (tests of work that
    /// must not be repeated); decodes nothing.
    #[derive(Default)]
    pub struct CountingWords {
        asked: std::sync::atomic::AtomicUsize,
    }

    impl CountingWords {
        /// Texts encoded so far.
        pub fn asked(&self) -> usize {
            self.asked.load(std::sync::atomic::Ordering::Relaxed)
        }
    }

    impl Tokenizer for CountingWords {
        fn encode(&self, text: &str) -> Vec<u32> {
            self.asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            text.split_whitespace().map(|_| 0).collect()
        }
        fn decode(&self, _tokens: &[u32]) -> String {
            String::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_ignores_line_endings_and_trailing_space() {
        assert_eq!(content_hash("a \r\nb\n\n"), content_hash("a\nb"));
        assert_ne!(content_hash("a b"), content_hash("a  c"));
        assert_ne!(content_hash("a b"), content_hash("a  b"), "spaces inside a line are content");
    }

    #[test]
    fn clean_field_handles_entities_tags_fullwidth_quotes() {
        assert_eq!(clean_field("&quot;Tom &amp; Jerry&quot;"), "Tom & Jerry");
        assert_eq!(clean_field("a<br>b</p>"), "a b");
        assert_eq!(clean_field("ＡＢＣ１２３"), "ABC123");
        assert_eq!(clean_field("“Moby Dick”"), "Moby Dick");
        assert_eq!(clean_field("x\u{0}y\u{7}"), "xy");
        assert_eq!(clean_field("  lots   of\tspace "), "lots of space");
        assert_eq!(clean_field("1 < 2"), "1 < 2");
        assert_eq!(clean_field("&#65;&#x42;&bogus;"), "AB&bogus;");
    }
}
