//! How a document's text is normalised before it is stored and chunked, as LightRAG does:
//!
//! * text handed in directly (`/documents/text(s)`, `lightrag insert`, the SDK's `ainsert`):
//!   [`sanitize_text`] = LightRAG's `sanitize_text_for_encoding` — strip, decode HTML character
//!   references (Python's `html.unescape`), drop non-characters and control characters except
//!   `\t \n \r`, strip again;
//! * text extracted from an uploaded or scanned file: [`strip_control_characters`] only (no strip,
//!   no unescape), as LightRAG's server does.
//!
//! "Strip" is Python's `str.strip()`: it also removes `\x1c`–`\x1f`, which Rust's
//! `char::is_whitespace` keeps. Chunk boundaries depend on every one of these details, and
//! imported LLM-cache entries are keyed by chunk text.

/// Python's `str.isspace()` for one character.
pub fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.strip()`.
pub fn python_strip(s: &str) -> &str {
    s.trim_matches(is_python_space)
}

/// Control characters LightRAG removes (`[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]`) and the
/// non-characters U+FFFE/U+FFFF (surrogates cannot occur in a Rust string).
fn is_removed(c: char) -> bool {
    matches!(c, '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}' | '\u{fffe}' | '\u{ffff}')
}

/// LightRAG's `strip_control_characters`: the text of an uploaded file, control characters out.
pub fn strip_control_characters(text: &str) -> String {
    if !text.chars().any(is_removed) {
        return text.to_string();
    }
    text.chars().filter(|&c| !is_removed(c)).collect()
}

/// LightRAG's `sanitize_text_for_encoding`: the text of a direct insert.
pub fn sanitize_text(text: &str) -> String {
    let stripped = python_strip(text);
    if stripped.is_empty() {
        return String::new();
    }
    let unescaped = html_unescape(stripped);
    python_strip(&strip_control_characters(&unescaped)).to_string()
}

/// Python's `html.unescape`: numeric and named character references (HTML5 table, including
/// the legacy names accepted without `;` and the longest-prefix rule).
pub fn html_unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        match reference(after) {
            Some((replacement, used)) => {
                out.push_str(&replacement);
                rest = &after[used..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Decodes the reference at the start of `s` (just after `&`): (replacement, bytes used).
fn reference(s: &str) -> Option<(String, usize)> {
    if let Some(num) = s.strip_prefix('#') {
        let (digits, radix, skip) = match num.strip_prefix(['x', 'X']) {
            Some(hex) => (hex.bytes().take_while(u8::is_ascii_hexdigit).count(), 16, 2),
            None => (num.bytes().take_while(u8::is_ascii_digit).count(), 10, 1),
        };
        if digits == 0 {
            return None;
        }
        let text = &s[skip..skip + digits];
        let mut used = skip + digits;
        if s[used..].starts_with(';') {
            used += 1;
        }
        // big numbers are out of range: Python maps them to U+FFFD
        let value = u32::from_str_radix(text, radix).unwrap_or(u32::MAX);
        return Some((numeric(value), used));
    }
    // named: up to 32 characters that are not \t \n \f space < & # ;, then an optional ';'
    let name_len: usize = s
        .char_indices()
        .take_while(|&(_, c)| !matches!(c, '\t' | '\n' | '\u{c}' | ' ' | '<' | '&' | '#' | ';'))
        .take(32)
        .map(|(_, c)| c.len_utf8())
        .sum();
    if name_len == 0 {
        return None;
    }
    let with_semicolon = s[name_len..].starts_with(';');
    let full = &s[..name_len + usize::from(with_semicolon)];
    if let Some(text) = entity(full) {
        return Some((text, full.len()));
    }
    // the longest prefix (of at least 2 characters) that is a known name wins
    let bounds: Vec<usize> = full.char_indices().map(|(i, _)| i).skip(2).collect();
    for &end in bounds.iter().rev() {
        if let Some(text) = entity(&full[..end]) {
            return Some((text, end));
        }
    }
    None
}

fn entity(name: &str) -> Option<String> {
    // the table also holds every prefix of a name, mapped to (0, 0), for html5ever's tokenizer
    let &(first, second) = web_atoms::NAMED_ENTITIES.get(name).filter(|&&(first, _)| first != 0)?;
    let mut out = String::new();
    out.extend(char::from_u32(first));
    if second != 0 {
        out.extend(char::from_u32(second));
    }
    Some(out)
}

/// Python's rules for `&#N;`: Windows-1252 fix-ups, invalid code points to U+FFFD or nothing.
fn numeric(n: u32) -> String {
    const CP1252: [(u32, char); 28] = [
        (0x80, '\u{20ac}'),
        (0x82, '\u{201a}'),
        (0x83, '\u{0192}'),
        (0x84, '\u{201e}'),
        (0x85, '\u{2026}'),
        (0x86, '\u{2020}'),
        (0x87, '\u{2021}'),
        (0x88, '\u{02c6}'),
        (0x89, '\u{2030}'),
        (0x8a, '\u{0160}'),
        (0x8b, '\u{2039}'),
        (0x8c, '\u{0152}'),
        (0x8e, '\u{017d}'),
        (0x91, '\u{2018}'),
        (0x92, '\u{2019}'),
        (0x93, '\u{201c}'),
        (0x94, '\u{201d}'),
        (0x95, '\u{2022}'),
        (0x96, '\u{2013}'),
        (0x97, '\u{2014}'),
        (0x98, '\u{02dc}'),
        (0x99, '\u{2122}'),
        (0x9a, '\u{0161}'),
        (0x9b, '\u{203a}'),
        (0x9c, '\u{0153}'),
        (0x9e, '\u{017e}'),
        (0x9f, '\u{0178}'),
        (0x0d, '\r'),
    ];
    if n == 0 || n == 0x81 || n == 0x8d || n == 0x8f || n == 0x90 || n == 0x9d {
        return match n {
            0 => "\u{fffd}".to_string(),
            _ => char::from_u32(n).map(String::from).unwrap_or_default(),
        };
    }
    if let Some(&(_, c)) = CP1252.iter().find(|(k, _)| *k == n) {
        return c.to_string();
    }
    if (0xd800..=0xdfff).contains(&n) || n > 0x10ffff {
        return "\u{fffd}".to_string();
    }
    let invalid = matches!(n, 0x1..=0x8 | 0xe..=0x1f | 0x7f..=0x9f | 0xfdd0..=0xfdef | 0xb) || (n & 0xfffe) == 0xfffe;
    if invalid {
        return String::new();
    }
    char::from_u32(n).map(String::from).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_strip_removes_information_separators() {
        assert_eq!(python_strip("\u{1c} a b\u{1f}\n"), "a b");
        assert_eq!(python_strip("\u{200b}a"), "\u{200b}a", "zero-width space is not a space");
    }

    #[test]
    fn unescape_follows_python() {
        assert_eq!(html_unescape("&quot;x&quot; &mdash; &amp;c"), "\"x\" \u{2014} &c");
        assert_eq!(html_unescape("&ampx &notit; &bogus; a&b AT&T &No"), "&x \u{ac}it; &bogus; a&b AT&T &No");
        assert_eq!(html_unescape("&#65;&#x42;&#X43&#0;&#150;&#xD800;"), "ABC\u{fffd}\u{2013}\u{fffd}");
        assert_eq!(html_unescape("&#1; &# &#x; &"), " &# &#x; &");
        assert_eq!(html_unescape("&#99999999999999;"), "\u{fffd}");
    }

    #[test]
    fn sanitize_strips_unescapes_and_drops_controls() {
        assert_eq!(sanitize_text("  a\u{1}b &amp; c\t\u{7f}\n "), "ab & c");
        assert_eq!(sanitize_text(" \u{1e} "), "");
        assert_eq!(strip_control_characters(" a\u{0}b&amp; "), " ab&amp; ");
    }
}
