//! A cheap scan of how deeply an HTML document nests its elements, run before the HTML is
//! rendered: `html2text` takes time quadratic in the nesting depth (80,000 nested `<div>`s, under
//! a megabyte, take tens of seconds), so documents nested deeper than [`MAX_DEPTH`] are refused.
//!
//! The scan is a small tokenizer, not a parser. It keeps a stack of open elements and pops it to
//! the matching element on a closing tag (as HTML does for misnested tags). It does not count:
//! void elements (`<br>`, `<img>`, …), elements written self-closing (`<x/>`), elements HTML
//! closes implicitly when they are left open (`<p>`, `<li>`, `<td>`, …, and `html`/`head`/`body`),
//! comments, doctypes, processing instructions, and the content of `script`, `style`,
//! `textarea`, `title` and `xmp`.

/// Documents whose elements nest deeper than this are refused.
pub(crate) const MAX_DEPTH: usize = 512;

/// Elements without content.
const VOID: &[&[u8]] = &[
    b"area",
    b"base",
    b"br",
    b"col",
    b"embed",
    b"hr",
    b"img",
    b"input",
    b"link",
    b"meta",
    b"source",
    b"track",
    b"wbr",
    b"param",
    b"keygen",
    b"frame",
    b"basefont",
    b"bgsound",
    b"image",
];

/// Elements HTML closes implicitly (or merges), so that leaving them open does not nest.
const IMPLICIT: &[&[u8]] = &[
    b"p",
    b"li",
    b"dt",
    b"dd",
    b"tr",
    b"td",
    b"th",
    b"option",
    b"optgroup",
    b"thead",
    b"tbody",
    b"tfoot",
    b"rb",
    b"rt",
    b"rp",
    b"rtc",
    b"colgroup",
    b"caption",
    b"html",
    b"head",
    b"body",
];

/// Elements whose content is text up to their closing tag.
const RAW_TEXT: &[&[u8]] = &[b"script", b"style", b"textarea", b"title", b"xmp"];

/// `Err(depth)` when the elements of `html` nest deeper than [`MAX_DEPTH`].
pub(crate) fn check(html: &[u8]) -> Result<(), usize> {
    let mut open: Vec<&[u8]> = Vec::new();
    let mut i = 0;
    while let Some(offset) = memchr(b'<', &html[i..]) {
        i += offset + 1;
        let rest = &html[i..];
        if rest.starts_with(b"!--") {
            i = find(html, i + 3, b"-->").map_or(html.len(), |end| end + 3);
            continue;
        }
        if rest.first().is_some_and(|b| *b == b'!' || *b == b'?') {
            i = memchr(b'>', rest).map_or(html.len(), |end| i + end + 1);
            continue;
        }
        let closing = rest.first() == Some(&b'/');
        let name_start = i + usize::from(closing);
        if !html.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_end = html[name_start..]
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-' || *b == b':' || *b == b'_'))
            .map_or(html.len(), |n| name_start + n);
        let name = &html[name_start..name_end];
        let (tag_end, self_closing) = end_of_tag(html, name_end);
        i = tag_end;
        if closing {
            if let Some(at) = open.iter().rposition(|n| n.eq_ignore_ascii_case(name)) {
                open.truncate(at);
            }
            continue;
        }
        if let Some(raw) = RAW_TEXT.iter().find(|raw| raw.eq_ignore_ascii_case(name)) {
            if !self_closing {
                i = skip_raw_text(html, i, raw);
            }
            continue;
        }
        if self_closing || is_one_of(name, VOID) || is_one_of(name, IMPLICIT) {
            continue;
        }
        open.push(name);
        if open.len() > MAX_DEPTH {
            return Err(open.len());
        }
    }
    Ok(())
}

fn is_one_of(name: &[u8], list: &[&[u8]]) -> bool {
    list.iter().any(|item| item.eq_ignore_ascii_case(name))
}

/// The position just past the `>` ending a tag whose attributes start at `from`, and whether the
/// tag ends with `/>`. Quoted attribute values may hold `>`.
fn end_of_tag(html: &[u8], from: usize) -> (usize, bool) {
    let mut quote = None;
    let mut previous = 0u8;
    for (offset, &b) in html[from..].iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return (from + offset + 1, previous == b'/'),
            None => {}
        }
        previous = b;
    }
    (html.len(), false)
}

/// The position past the closing tag of the raw-text element `name` whose content starts at
/// `from` (the end of the document when it is not closed).
fn skip_raw_text(html: &[u8], from: usize, name: &[u8]) -> usize {
    let mut i = from;
    while let Some(at) = find(html, i, b"</") {
        let after = at + 2;
        let candidate = html.get(after..after + name.len());
        if candidate.is_some_and(|c| c.eq_ignore_ascii_case(name)) {
            return end_of_tag(html, after + name.len()).0;
        }
        i = after;
    }
    html.len()
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|b| *b == needle)
}

/// The position of `needle` in `haystack` at or after `from`.
fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    haystack.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|at| from + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_divs_count_and_closed_ones_do_not() {
        let deep = "<div>".repeat(MAX_DEPTH + 1);
        assert_eq!(check(deep.as_bytes()), Err(MAX_DEPTH + 1));
        let flat = "<div>x</div>".repeat(10_000);
        assert_eq!(check(flat.as_bytes()), Ok(()));
        let just = format!("{}{}", "<DIV class='a>b'>".repeat(MAX_DEPTH), "</div>".repeat(MAX_DEPTH));
        assert_eq!(check(just.as_bytes()), Ok(()));
    }

    #[test]
    fn sloppy_html_passes() {
        let sloppy = "<p>para<li>item<br><img src=x><td>cell<input>".repeat(5_000);
        assert_eq!(check(sloppy.as_bytes()), Ok(()));
        // a misnested close pops everything above the element it closes
        let misnested = "<div><span><b>x</div>".repeat(5_000);
        assert_eq!(check(misnested.as_bytes()), Ok(()));
        let self_closing = "<span/><a id='x'/>".repeat(5_000);
        assert_eq!(check(self_closing.as_bytes()), Ok(()));
    }

    #[test]
    fn comments_scripts_and_styles_are_not_markup() {
        let inner = "<div>".repeat(MAX_DEPTH * 2);
        for wrapped in [
            format!("<!-- {inner} -->"),
            format!("<script>{inner}</script>"),
            format!("<STYLE type=x>{inner}</style >"),
            format!("<!DOCTYPE html><title>{inner}</TITLE>"),
        ] {
            assert_eq!(check(wrapped.as_bytes()), Ok(()), "{}", &wrapped[..30]);
        }
        // markup after a closed script counts again
        let after = format!("<script>x</script>{inner}");
        assert!(check(after.as_bytes()).is_err());
    }
}
