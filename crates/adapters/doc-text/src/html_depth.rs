//! A cheap scan of how deeply an HTML document nests its elements, run before the HTML is
//! rendered: `html2text` takes time quadratic in the nesting depth (80,000 nested `<div>`s, under
//! a megabyte, take tens of seconds), so documents nested deeper than [`MAX_DEPTH`] are refused.
//!
//! The scan is a small tokenizer with a rough model of how HTML builds its tree, not a parser:
//! - a stack of open elements, popped to the matching element on a closing tag (as HTML does
//!   for misnested tags);
//! - elements HTML closes by itself do not pile up: a new `<p>` or block element closes an open
//!   `<p>`, a new `<li>` an open `<li>`, `<dt>`/`<dd>` each other, `<td>`/`<tr>` the cells and
//!   rows before them, `<option>` an open `<option>`; these elements are not counted either;
//! - formatting elements (`<b>`, `<font>`, …) left open are remembered the way HTML does (it
//!   reopens them in every following paragraph), with HTML's limit of three identical ones, and
//!   counted on top of the stack;
//! - as in HTML, `<div/>` opens a `div` (the `/` only closes elements inside `<svg>` and
//!   `<math>`), and a link inside a link closes the first one;
//! - void elements (`<br>`, `<img>`, …), `html`/`head`/`body`, comments, doctypes, processing
//!   instructions and the content of `script`, `style`, `textarea`, `title` and `xmp` are not
//!   counted.
//!
//! It errs on the side of counting too much (a formatting element still open is counted twice).

/// Documents whose elements nest deeper than this are refused.
pub(crate) const MAX_DEPTH: usize = 512;

/// The most open elements of any kind (counted or not) the scan keeps track of.
const MAX_OPEN: usize = 8 * MAX_DEPTH;

/// How far down the stack a search for an open element looks (keeping the scan linear); an
/// element further down is taken as not open, which can only count too much.
const SEARCH: usize = 128;

/// Elements without content.
#[rustfmt::skip]
const VOID: &[&[u8]] = &[
    b"area", b"base", b"br", b"col", b"embed", b"hr", b"img", b"input", b"link", b"meta", b"source", b"track", b"wbr",
    b"param", b"keygen", b"frame", b"basefont", b"bgsound", b"image",
];

/// Elements HTML closes implicitly, so that they are not counted.
#[rustfmt::skip]
const IMPLICIT: &[&[u8]] = &[
    b"p", b"li", b"dt", b"dd", b"tr", b"td", b"th", b"option", b"optgroup", b"thead", b"tbody", b"tfoot", b"rb",
    b"rt", b"rp", b"rtc", b"colgroup", b"caption",
];

/// Elements that are never put on the stack (HTML merges repeated ones).
const ROOTS: &[&[u8]] = &[b"html", b"head", b"body"];

/// Start tags that close an open `<p>` first.
#[rustfmt::skip]
const CLOSES_P: &[&[u8]] = &[
    b"address", b"article", b"aside", b"blockquote", b"center", b"details", b"dialog", b"dir", b"div", b"dl",
    b"fieldset", b"figcaption", b"figure", b"footer", b"header", b"hgroup", b"main", b"menu", b"nav", b"ol", b"p",
    b"section", b"summary", b"ul", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6", b"pre", b"listing", b"form", b"table",
    b"dd", b"dt", b"li",
];

/// Elements a search for an open `<p>` does not look past ("button scope").
#[rustfmt::skip]
const P_SCOPE: &[&[u8]] = &[
    b"applet", b"caption", b"html", b"table", b"td", b"th", b"marquee", b"object", b"template", b"button",
];

/// Formatting elements: reopened by HTML after the block they were left open in ends.
#[rustfmt::skip]
const FORMATTING: &[&[u8]] = &[
    b"a", b"b", b"big", b"code", b"em", b"font", b"i", b"nobr", b"s", b"small", b"strike", b"strong", b"tt", b"u",
];

/// Phrasing elements a search for an open `<li>`/`<dt>`/`<dd>` looks past (with `div`,
/// `address` and `p`); any other element stops it.
#[rustfmt::skip]
const PHRASING: &[&[u8]] = &[
    b"abbr", b"bdi", b"bdo", b"cite", b"data", b"dfn", b"kbd", b"mark", b"q", b"ruby", b"samp", b"span", b"sub",
    b"sup", b"time", b"var", b"label", b"div", b"address", b"p",
];

const P: &[&[u8]] = &[b"p"];
const FOREIGN: &[&[u8]] = &[b"svg", b"math"];
const RUBY: &[&[u8]] = &[b"rb", b"rt", b"rp", b"rtc"];

/// Elements whose content is text up to their closing tag.
const RAW_TEXT: &[&[u8]] = &[b"script", b"style", b"textarea", b"title", b"xmp"];

/// The open elements, as the scan models them.
#[derive(Default)]
struct Tree<'a> {
    /// Open elements (names as written), innermost last.
    open: Vec<&'a [u8]>,
    /// How many of `open` are counted (not implicitly closed elements).
    counted: usize,
    /// How many of `open` are tables.
    tables: usize,
    /// How many of `open` are `svg` or `math` elements (foreign content, where `<x/>` closes
    /// itself).
    foreign: usize,
    /// Formatting elements left open: name and whole tag as written (HTML compares the
    /// attributes too).
    formatting: Vec<(&'a [u8], &'a [u8])>,
}

impl<'a> Tree<'a> {
    fn depth(&self) -> usize {
        self.counted + self.formatting.len()
    }

    /// Pops the element at `at` and everything above it.
    fn truncate(&mut self, at: usize) {
        for name in &self.open[at..] {
            self.counted -= usize::from(!is_one_of(name, IMPLICIT));
            self.tables -= usize::from(name.eq_ignore_ascii_case(b"table"));
            self.foreign -= usize::from(is_one_of(name, FOREIGN));
        }
        self.open.truncate(at);
    }

    /// The position of the innermost open element named one of `names`, not looking past an
    /// element for which `stop` is true (nor further than [`SEARCH`] elements down).
    fn find(&self, names: &[&[u8]], stop: impl Fn(&[u8]) -> bool) -> Option<usize> {
        for (at, name) in self.open.iter().enumerate().rev().take(SEARCH) {
            if is_one_of(name, names) {
                return Some(at);
            }
            if stop(name) {
                return None;
            }
        }
        None
    }

    fn start(&mut self, name: &'a [u8], tag: &'a [u8]) {
        if is_one_of(name, CLOSES_P)
            && let Some(at) = self.find(P, |n| is_one_of(n, P_SCOPE))
        {
            self.truncate(at);
        }
        let list_item = |n: &[u8]| !is_one_of(n, FORMATTING) && !is_one_of(n, PHRASING);
        let table = |n: &[u8]| n.eq_ignore_ascii_case(b"table");
        let in_table = self.tables > 0;
        match name.to_ascii_lowercase().as_slice() {
            b"li" => {
                if let Some(at) = self.find(&[b"li".as_slice()], list_item) {
                    self.truncate(at);
                }
            }
            b"dt" | b"dd" => {
                if let Some(at) = self.find(&[b"dt".as_slice(), b"dd"], list_item) {
                    self.truncate(at);
                }
            }
            // outside a table these are ignored
            b"td" | b"th" | b"tr" | b"thead" | b"tbody" | b"tfoot" | b"caption" | b"colgroup" if !in_table => return,
            b"td" | b"th" => {
                if let Some(at) = self.find(&[b"tr".as_slice()], table) {
                    self.truncate(at + 1);
                }
            }
            b"tr" => {
                if let Some(at) = self.find(&[b"tbody".as_slice(), b"thead", b"tfoot", b"table"], |_| false) {
                    self.truncate(at + 1);
                }
            }
            b"thead" | b"tbody" | b"tfoot" | b"caption" | b"colgroup" => {
                if let Some(at) = self.find(&[b"table".as_slice()], |_| false) {
                    self.truncate(at + 1);
                }
            }
            b"option" | b"optgroup" | b"rb" | b"rt" | b"rp" | b"rtc" => {
                let closes: &[&[u8]] = match name.to_ascii_lowercase().as_slice() {
                    b"option" => &[b"option"],
                    b"optgroup" => &[b"option", b"optgroup"],
                    _ => RUBY,
                };
                while self.open.last().is_some_and(|top| is_one_of(top, closes)) {
                    self.truncate(self.open.len() - 1);
                }
            }
            _ => {}
        }
        if name.eq_ignore_ascii_case(b"a")
            && let Some(at) = self.formatting.iter().rposition(|(n, _)| n.eq_ignore_ascii_case(b"a"))
        {
            // a link inside a link closes the first one
            self.formatting.remove(at);
            if let Some(at) = self.find(&[b"a".as_slice()], |_| false) {
                self.truncate(at);
            }
        }
        if is_one_of(name, FORMATTING) {
            // HTML keeps at most three identical formatting elements (Noah's ark)
            let same: Vec<usize> = self
                .formatting
                .iter()
                .enumerate()
                .filter(|(_, (_, t))| t.eq_ignore_ascii_case(tag))
                .map(|(i, _)| i)
                .collect();
            if same.len() >= 3 {
                self.formatting.remove(same[0]);
            }
            self.formatting.push((name, tag));
        }
        self.open.push(name);
        self.counted += usize::from(!is_one_of(name, IMPLICIT));
        self.tables += usize::from(name.eq_ignore_ascii_case(b"table"));
        self.foreign += usize::from(is_one_of(name, FOREIGN));
    }

    fn end(&mut self, name: &[u8]) {
        if is_one_of(name, FORMATTING)
            && let Some(at) = self.formatting.iter().rposition(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            self.formatting.remove(at);
        }
        if let Some(at) = self.find(&[name], |_| false) {
            self.truncate(at);
        }
    }
}

/// `Err(depth)` when the elements of `html` nest deeper than [`MAX_DEPTH`] (or more than
/// [`MAX_OPEN`] elements are open at once).
pub(crate) fn check(html: &[u8]) -> Result<(), usize> {
    let mut tree = Tree::default();
    let mut i = 0;
    while let Some(offset) = memchr(b'<', &html[i..]) {
        let tag_start = i + offset;
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
            tree.end(name);
            continue;
        }
        if let Some(raw) = RAW_TEXT.iter().find(|raw| raw.eq_ignore_ascii_case(name)) {
            if !self_closing {
                i = skip_raw_text(html, i, raw);
            }
            continue;
        }
        // HTML ignores the `/` of `<div/>` (the element stays open), except in SVG and MathML
        if (self_closing && tree.foreign > 0) || is_one_of(name, VOID) || is_one_of(name, ROOTS) {
            continue;
        }
        tree.start(name, &html[tag_start..tag_end]);
        if tree.depth() > MAX_DEPTH || tree.open.len() > MAX_OPEN {
            return Err(tree.depth().max(tree.open.len()));
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
        // XHTML habits: empty anchors and spans written self-closing, inside paragraphs
        let self_closing = "<p><a id='x1'/><span/>text<a id='x2'/></p>".repeat(5_000);
        assert_eq!(check(self_closing.as_bytes()), Ok(()));
        let svg = format!("<svg>{}</svg>", "<path d='M0 0'/><g/>".repeat(5_000));
        assert_eq!(check(svg.as_bytes()), Ok(()));
        // unclosed bold and spans in every paragraph: each paragraph closes the one before
        let unclosed = "<p><b>bold <span>x <font color=red>y".repeat(5_000);
        assert_eq!(check(unclosed.as_bytes()), Ok(()));
        let list = "<ul><li><span>a<li><em>b<dl><dt>t<dd>d</dl></ul>".repeat(5_000);
        assert_eq!(check(list.as_bytes()), Ok(()));
        let table = format!("<table>{}</table>", "<tr><td><div>a<td><span>b<th>c".repeat(5_000));
        assert_eq!(check(table.as_bytes()), Ok(()));
        let select = format!("<select>{}</select>", "<optgroup><option>a<option>b".repeat(5_000));
        assert_eq!(check(select.as_bytes()), Ok(()));
        let stray_cells = "<td>x<tr>y<tbody>".repeat(5_000);
        assert_eq!(check(stray_cells.as_bytes()), Ok(()));
    }

    #[test]
    fn formatting_left_open_with_different_attributes_accumulates() {
        // HTML reopens every one of these in each following paragraph
        let distinct: String = (0..MAX_DEPTH).map(|i| format!("<p><b id={i}>x")).collect();
        assert!(check(distinct.as_bytes()).is_err());
        // a block element does not hide the elements nested inside it
        let hidden = format!("<p>{}<p>", "<div>".repeat(MAX_DEPTH + 1));
        assert!(check(hidden.as_bytes()).is_err());
        let in_cells = format!("<table><tr><td>{}", "<span>".repeat(MAX_DEPTH + 1));
        assert!(check(in_cells.as_bytes()).is_err());
        // `<div/>` is an open div in HTML
        let self_closed = "<div/>".repeat(MAX_DEPTH + 1);
        assert!(check(self_closed.as_bytes()).is_err());
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
