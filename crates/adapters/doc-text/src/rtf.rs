//! RTF (`.rtf`): the text of the body, with paragraphs, tabs and table rows. Font and colour
//! tables, metadata, pictures, field instructions, headers/footers and `\*` destinations are
//! skipped; `\uN` characters and `\'hh` bytes (read as Windows-1252) are decoded. Text in other
//! 8-bit code pages comes out wrong (modern writers also emit `\uN`, which is right).

use crate::DocTextError;

/// Destinations whose content is not body text.
const SKIPPED: &[&str] = &[
    "fonttbl",
    "colortbl",
    "stylesheet",
    "info",
    "pict",
    "object",
    "fldinst",
    "header",
    "headerl",
    "headerr",
    "headerf",
    "footer",
    "footerl",
    "footerr",
    "footerf",
    "listtable",
    "listoverridetable",
    "revtbl",
    "rsidtbl",
    "generator",
    "xmlnstbl",
    "themedata",
    "colorschememapping",
    "datastore",
    "latentstyles",
    "filetbl",
    "pgdsctbl",
    "footnote",
    "annotation",
    "bkmkstart",
    "bkmkend",
    "nonshppict",
    "shppict",
    "blipuid",
];

/// Windows-1252 characters for the bytes 0x80–0x9F (the rest of the upper half is Latin-1).
const CP1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8D}', 'Ž', '\u{8F}', '\u{90}', '‘', '’',
    '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9D}', 'ž', 'Ÿ',
];

fn cp1252(byte: u8) -> char {
    match byte {
        0x80..=0x9F => CP1252_HIGH[usize::from(byte - 0x80)],
        other => char::from(other),
    }
}

#[derive(Clone, Copy)]
struct Group {
    /// Inside a destination that is not body text.
    skip: bool,
    /// Fallback characters that follow a `\uN` (`\ucN`, default 1).
    uc: usize,
}

/// Groups nested deeper than this are refused (real documents stay far below; the stack of
/// groups would otherwise grow with the input).
pub(crate) const MAX_GROUP_DEPTH: usize = 1024;

/// The text of an RTF document.
pub(crate) fn extract(bytes: &[u8]) -> Result<String, DocTextError> {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    if !bytes[start..].starts_with(b"{\\rtf") {
        return Err(DocTextError::corrupt("RTF", "no {\\rtf header"));
    }
    let mut out = String::new();
    let mut stack: Vec<Group> = Vec::new();
    let mut group = Group { skip: false, uc: 1 };
    let mut fallback = 0usize;
    let mut i = start;
    while i < bytes.len() {
        let byte = bytes[i];
        i += 1;
        match byte {
            b'{' => {
                if stack.len() >= MAX_GROUP_DEPTH {
                    return Err(DocTextError::corrupt(
                        "RTF",
                        format!("its groups are nested more than {MAX_GROUP_DEPTH} deep"),
                    ));
                }
                stack.push(group);
            }
            b'}' => match stack.pop() {
                Some(outer) => group = outer,
                None => break,
            },
            b'\r' | b'\n' => {}
            b'\\' => {
                let Some(&next) = bytes.get(i) else { break };
                if next.is_ascii_alphabetic() {
                    let word_start = i;
                    while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                        i += 1;
                    }
                    let word = std::str::from_utf8(&bytes[word_start..i]).unwrap_or_default();
                    let param_start = i;
                    if bytes.get(i) == Some(&b'-') {
                        i += 1;
                    }
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    let param = std::str::from_utf8(&bytes[param_start..i]).ok().and_then(|p| p.parse::<i64>().ok());
                    if bytes.get(i) == Some(&b' ') {
                        i += 1;
                    }
                    if word == "bin" {
                        i = i.saturating_add(usize::try_from(param.unwrap_or(0)).unwrap_or(0)).min(bytes.len());
                        continue;
                    }
                    control_word(word, param, &mut group, &mut fallback, &mut out);
                } else {
                    i += 1;
                    match next {
                        b'\'' => {
                            let value = bytes
                                .get(i..i + 2)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u8::from_str_radix(h, 16).ok());
                            if let Some(value) = value {
                                i += 2;
                                text(cp1252(value), group, &mut fallback, &mut out);
                            } else {
                                // a broken escape: drop its digits
                                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                                    i += 1;
                                }
                            }
                        }
                        b'\\' | b'{' | b'}' => text(char::from(next), group, &mut fallback, &mut out),
                        b'~' => text(' ', group, &mut fallback, &mut out),
                        b'_' => text('-', group, &mut fallback, &mut out),
                        b'*' => group.skip = true,
                        b'\r' | b'\n' if !group.skip => out.push('\n'),
                        _ => {}
                    }
                }
            }
            other => text(cp1252(other), group, &mut fallback, &mut out),
        }
    }
    Ok(out)
}

/// One character of text, unless it is the fallback of a `\uN` or in a skipped destination.
fn text(c: char, group: Group, fallback: &mut usize, out: &mut String) {
    if *fallback > 0 {
        *fallback -= 1;
    } else if !group.skip {
        out.push(c);
    }
}

fn control_word(word: &str, param: Option<i64>, group: &mut Group, fallback: &mut usize, out: &mut String) {
    if SKIPPED.contains(&word) {
        group.skip = true;
        return;
    }
    if word == "uc" {
        group.uc = usize::try_from(param.unwrap_or(1)).unwrap_or(1).min(8);
        return;
    }
    *fallback = 0;
    if group.skip {
        return;
    }
    let piece = match word {
        "u" => {
            let code = param.unwrap_or(0);
            let code = if code < 0 { code + 65_536 } else { code };
            if let Some(c) = u32::try_from(code).ok().and_then(char::from_u32) {
                out.push(c);
            }
            *fallback = group.uc;
            return;
        }
        "par" | "line" | "sect" | "page" => "\n",
        "row" => {
            let kept = out.trim_end_matches(['\t', ' ']).len();
            out.truncate(kept);
            "\n"
        }
        "tab" | "cell" => "\t",
        "emdash" => "—",
        "endash" => "–",
        "bullet" => "•",
        "lquote" => "‘",
        "rquote" => "’",
        "ldblquote" => "“",
        "rdblquote" => "”",
        "emspace" | "enspace" | "qmspace" => " ",
        _ => "",
    };
    out.push_str(piece);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_text_with_escapes_tables_and_fields() {
        let rtf = br#"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fswiss Helvetica;}}{\colortbl;\red0\green0\blue0;}
{\*\generator Riched20;}{\info{\title Secret title}}
\pard\f0\fs24 Hello {\b bold} world\par
Caf\'e9 na\u239?ve \u8364?5 \{x\}\par
\trowd\cellx1000\cellx2000 A1\cell B1\cell\row
{\field{\*\fldinst HYPERLINK "http://x"}{\fldrslt link text}}\par
{\uc2 two\u8220\'93\'93 fallbacks}\par
}"#;
        let text = extract(rtf).unwrap();
        assert_eq!(text, "Hello bold world\nCafé naïve €5 {x}\nA1\tB1\nlink text\ntwo“ fallbacks\n");
    }

    #[test]
    fn not_rtf_is_corrupt() {
        assert!(matches!(extract(b"hello"), Err(DocTextError::Corrupt { format: "RTF", .. })));
        // unbalanced or truncated input is read as far as it goes, never panics
        assert_eq!(extract(br"{\rtf1 abc\par}}} trailing").unwrap(), "abc\n");
        assert_eq!(extract(br"{\rtf1 abc\'4").unwrap(), "abc");
        assert_eq!(extract(br"{\rtf1 x\bin99999999999 y}").unwrap(), "x");
    }

    #[test]
    fn rtf_groups_nested_too_deeply_are_refused() {
        let fine = format!("{{\\rtf1 {}deep{}}}", "{".repeat(MAX_GROUP_DEPTH - 1), "}".repeat(MAX_GROUP_DEPTH - 1));
        assert_eq!(extract(fine.as_bytes()).unwrap(), "deep");
        let hostile = format!("{{\\rtf1 {}x", "{".repeat(1_000_000));
        let e = extract(hostile.as_bytes()).unwrap_err();
        assert!(e.to_string().contains("nested more than 1024 deep"), "{e}");
    }
}
