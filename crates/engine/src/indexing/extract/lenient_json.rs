//! A forgiving JSON reader for model output: finds the one JSON object in a response and reads
//! it even when it is slightly broken — inside a markdown fence, with prose around it, with
//! trailing commas, single-quoted strings, unquoted keys, a missing comma, or cut off at the end
//! (open strings, arrays and objects are closed). A top-level array is refused (LightRAG
//! refuses it too: one element is never taken for the whole answer). Never panics; nesting is
//! bounded.

use serde_json::{Map, Number, Value};

/// Deepest nesting read; deeper input is cut off there.
const MAX_DEPTH: usize = 64;

/// How an object was recovered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Valid JSON as it was (fences and surrounding prose aside).
    Clean,
    /// Read with repairs.
    Repaired,
}

/// The first JSON object of `text`, and whether it needed repairs. `None` when there is no
/// object, or the first structure is an array.
pub fn find_object(text: &str) -> Option<(Map<String, Value>, Recovery)> {
    let body = strip_fence(text.trim());
    let start = first_opener(body)?;
    let slice = &body[start..];
    if !slice.starts_with('{') {
        return None;
    }
    let end = balanced_end(slice).unwrap_or(slice.len());
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&slice[..end]) {
        return Some((map, Recovery::Clean));
    }
    let mut reader = Reader { chars: slice.char_indices().collect(), at: 0, text: slice };
    match reader.value(0) {
        Some(Value::Object(map)) => Some((map, Recovery::Repaired)),
        _ => None,
    }
}

/// The text inside a surrounding markdown code fence (```json … ```), or the text itself.
fn strip_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else { return text };
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let rest = rest.strip_suffix("```").unwrap_or(rest);
    rest.trim()
}

/// Byte offset of the first `{` or `[` outside a double-quoted string.
fn first_opener(text: &str) -> Option<usize> {
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => return Some(i),
            _ => {}
        }
    }
    None
}

/// End (exclusive) of the balanced structure starting at byte 0, if it closes.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + c.len_utf8());
                }
            }
            _ => {}
        }
    }
    None
}

struct Reader<'a> {
    chars: Vec<(usize, char)>,
    at: usize,
    text: &'a str,
}

impl Reader<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).map(|(_, c)| *c)
    }

    fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.at += 1;
            } else if c == '/' && self.chars.get(self.at + 1).map(|(_, c)| *c) == Some('/') {
                // a // comment up to the end of the line
                while self.peek().is_some_and(|c| c != '\n') {
                    self.at += 1;
                }
            } else {
                break;
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        self.skip_space();
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            '{' => {
                self.at += 1;
                Some(Value::Object(self.object(depth + 1)))
            }
            '[' => {
                self.at += 1;
                Some(Value::Array(self.array(depth + 1)))
            }
            '"' | '\'' => self.string().map(Value::String),
            _ => self.bare(),
        }
    }

    fn object(&mut self, depth: usize) -> Map<String, Value> {
        let mut map = Map::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => return map,
                Some('}') => {
                    self.at += 1;
                    return map;
                }
                Some(',') => {
                    self.at += 1;
                    continue;
                }
                Some(']') => {
                    // a stray closer: the object ends here
                    self.at += 1;
                    return map;
                }
                _ => {}
            }
            let Some(key) = self.key() else { return map };
            self.skip_space();
            if self.peek() == Some(':') {
                self.at += 1;
            }
            match self.value(depth) {
                Some(v) => {
                    map.insert(key, v);
                }
                None => return map,
            }
        }
    }

    fn array(&mut self, depth: usize) -> Vec<Value> {
        let mut items = Vec::new();
        loop {
            self.skip_space();
            match self.peek() {
                None => return items,
                Some(']') | Some('}') => {
                    self.at += 1;
                    return items;
                }
                Some(',') => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let before = self.at;
            match self.value(depth) {
                Some(v) => items.push(v),
                None => return items,
            }
            if self.at == before {
                self.at += 1;
            }
        }
    }

    fn key(&mut self) -> Option<String> {
        match self.peek()? {
            '"' | '\'' => self.string(),
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') {
                    self.at += 1;
                }
                if self.at == start {
                    // not a key at all: skip the character so the reader moves on
                    self.at += 1;
                    return Some(String::new());
                }
                Some(self.chars[start..self.at].iter().map(|(_, c)| c).collect())
            }
        }
    }

    /// A quoted string; an unterminated one runs to the end of the text.
    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        self.at += 1;
        let mut out = String::new();
        while let Some(c) = self.peek() {
            self.at += 1;
            if c == quote {
                return Some(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.peek() else { break };
            self.at += 1;
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                '/' | '\\' | '"' | '\'' => out.push(e),
                'u' => {
                    let hex: String = self.chars.iter().skip(self.at).take(4).map(|(_, c)| c).collect();
                    match u32::from_str_radix(&hex, 16).ok().filter(|_| hex.len() == 4).and_then(char::from_u32) {
                        Some(ch) => {
                            out.push(ch);
                            self.at += 4;
                        }
                        None => out.push_str("\\u"),
                    }
                }
                // an unknown escape (LaTeX such as \alpha): keep it as written
                other => {
                    out.push('\\');
                    out.push(other);
                }
            }
        }
        Some(out)
    }

    /// A number, `true`, `false`, `null`, or an unquoted word (kept as a string).
    fn bare(&mut self) -> Option<Value> {
        let start = self.at;
        while self.peek().is_some_and(|c| !matches!(c, ',' | '}' | ']' | '\n')) {
            self.at += 1;
        }
        let from = self.chars.get(start).map(|(i, _)| *i)?;
        let to = self.chars.get(self.at).map_or(self.text.len(), |(i, _)| *i);
        let word = self.text[from..to].trim();
        Some(match word {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" | "" => Value::Null,
            w => match (w.parse::<i64>(), w.parse::<f64>().ok().and_then(Number::from_f64)) {
                (Ok(i), _) => Value::Number(i.into()),
                (_, Some(n)) => Value::Number(n),
                _ => Value::String(w.to_string()),
            },
        })
    }
}

/// Restores LaTeX commands that a JSON decoder turned into control characters: a form feed or a
/// backspace directly before a letter was `\f…` / `\b…` (`\frac`, `\beta`) in the model's text.
pub fn repair_latex(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next_is_letter = chars.peek().is_some_and(|n| n.is_ascii_alphabetic());
        match c {
            '\u{c}' if next_is_letter => out.push_str("\\f"),
            '\u{8}' if next_is_letter => out.push_str("\\b"),
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(text: &str) -> Option<Value> {
        find_object(text).map(|(m, _)| Value::Object(m))
    }

    #[test]
    fn clean_objects_in_fences_and_prose() {
        assert_eq!(find_object(r#"{"a": 1}"#).map(|(_, r)| r), Some(Recovery::Clean));
        assert_eq!(obj("```json\n{\"a\": 1}\n```"), Some(json!({"a": 1})));
        assert_eq!(obj("Here you go: {\"a\": [1, 2]} and {more}"), Some(json!({"a": [1, 2]})));
    }

    #[test]
    fn repairs_common_slips() {
        assert_eq!(obj("{\"a\": 1,}"), Some(json!({"a": 1})));
        assert_eq!(obj("{'a': 'x'}"), Some(json!({"a": "x"})));
        assert_eq!(obj("{a: 1, b: true, c: 2.5}"), Some(json!({"a": 1, "b": true, "c": 2.5})));
        assert_eq!(obj("{\"a\": [{\"n\": \"x\"} {\"n\": \"y\"}]}"), Some(json!({"a": [{"n": "x"}, {"n": "y"}]})));
        assert_eq!(obj("{\"a\": [{\"n\": \"x\"}, {\"n\": \"trunc"), Some(json!({"a": [{"n": "x"}, {"n": "trunc"}]})));
        assert_eq!(obj("{\"d\": \"\\alpha\"}"), Some(json!({"d": "\\alpha"})));
    }

    #[test]
    fn arrays_and_non_json_are_refused() {
        assert_eq!(obj("[{\"a\": 1}]"), None);
        assert_eq!(obj("no json here"), None);
        assert_eq!(obj(""), None);
    }

    #[test]
    fn latex_damage_is_restored() {
        assert_eq!(repair_latex("\u{c}rac{1}{2} and \u{8}eta"), "\\frac{1}{2} and \\beta");
        assert_eq!(repair_latex("tab\u{c} alone"), "tab\u{c} alone");
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let deep = format!("{{\"a\": {}", "[".repeat(10_000));
        let _ = find_object(&deep);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,400}") {
            let _ = find_object(&s);
            let _ = repair_latex(&s);
        }
    }
}
