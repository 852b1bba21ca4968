//! A small rule-driven walk over an XML part that keeps its readable text: shared by the Office
//! Open XML (DOCX, PPTX) and OpenDocument (ODT) readers. Element names are matched as written,
//! with the prefixes these formats use by convention (`w:`, `a:`, `text:`, `table:`).

use quick_xml::Reader;
use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesStart, Event};

use crate::DocTextError;
use crate::structure::{heading_mark, strip_marks};

/// Which elements carry text and which ones stand for layout.
pub(crate) struct Rules {
    /// Text inside these elements (at any depth) is kept; other text is ignored.
    pub text: &'static [&'static str],
    /// Paragraph-like elements: a line break at their end (a space inside a table cell).
    pub paragraph: &'static [&'static str],
    /// Elements that stand for a tab.
    pub tab: &'static [&'static str],
    /// Elements that stand for a line break.
    pub line_break: &'static [&'static str],
    /// Elements that stand for spaces (count in the attribute [`Rules::space_count`], default 1).
    pub space: &'static [&'static str],
    /// Attribute with the number of spaces of a [`Rules::space`] element.
    pub space_count: &'static str,
    /// Table cells: a tab after each.
    pub cell: &'static [&'static str],
    /// Table rows: a line break after each.
    pub row: &'static [&'static str],
    /// Elements whose whole content is ignored.
    pub skip: &'static [&'static str],
    /// The element that makes its paragraph a heading (met even inside skipped elements, where
    /// paragraph properties live), and how its attributes give the level.
    pub heading: Option<HeadingRule>,
}

/// How a format marks headings: an element with an attribute whose value gives the level.
pub(crate) struct HeadingRule {
    /// The element (`w:pStyle`, `text:h`, `p:ph`).
    pub element: &'static str,
    /// Its attribute (`w:val`, `text:outline-level`, `type`).
    pub attribute: &'static str,
    /// The level an attribute value stands for (`None`: not a heading).
    pub level: fn(&str) -> Option<u8>,
}

/// Appends the text of the XML document `xml` to `out` according to `rules`; `format` and `part`
/// name the file and the part in errors.
pub(crate) fn append_text(
    format: &'static str,
    part: &str,
    xml: &str,
    rules: &Rules,
    out: &mut String,
) -> Result<(), DocTextError> {
    let mut reader = Reader::from_str(xml);
    let (mut text_depth, mut skip_depth, mut cell_depth) = (0usize, 0usize, 0usize);
    loop {
        let event = reader
            .read_event()
            .map_err(|e| DocTextError::corrupt(format, format!("malformed XML in '{part}': {e}")))?;
        match event {
            Event::Start(e) => {
                let name = e.name().0;
                mark_heading(&e, rules, out);
                if skip_depth > 0 || rules.skip.contains(&name) {
                    skip_depth += 1;
                } else {
                    text_depth += usize::from(rules.text.contains(&name));
                    cell_depth += usize::from(rules.cell.contains(&name));
                    layout(&e, rules, out);
                }
            }
            Event::Empty(e) => {
                let name = e.name().0;
                mark_heading(&e, rules, out);
                if skip_depth == 0 && !rules.skip.contains(&name) {
                    layout(&e, rules, out);
                    end_of(name, rules, cell_depth > 0, out);
                }
            }
            Event::End(e) => {
                let name = e.name().0;
                if skip_depth > 0 {
                    skip_depth -= 1;
                    continue;
                }
                text_depth = text_depth.saturating_sub(usize::from(rules.text.contains(&name)));
                if rules.cell.contains(&name) {
                    cell_depth = cell_depth.saturating_sub(1);
                }
                end_of(name, rules, cell_depth > 0, out);
            }
            Event::Text(t) if text_depth > 0 && skip_depth == 0 => out.push_str(&strip_marks(&t.xml10_content())),
            Event::CData(t) if text_depth > 0 && skip_depth == 0 => out.push_str(&strip_marks(&t.xml10_content())),
            Event::GeneralRef(r) if text_depth > 0 && skip_depth == 0 => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    out.push(c);
                } else if let Some(s) = resolve_xml_entity(&r.xml10_content()) {
                    out.push_str(s);
                }
            }
            Event::Eof => return Ok(()),
            _ => {}
        }
    }
}

/// A heading mark where a heading element of `rules` says its paragraph is one.
fn mark_heading(e: &BytesStart<'_>, rules: &Rules, out: &mut String) {
    let Some(rule) = &rules.heading else { return };
    if e.name().0 != rule.element {
        return;
    }
    let level = e.try_get_attribute(rule.attribute).ok().flatten().and_then(|a| (rule.level)(&a.value));
    if let Some(level) = level {
        out.push(heading_mark(level));
    }
}

/// Text standing for a layout element met where it starts (tabs, breaks, spaces).
fn layout(e: &BytesStart<'_>, rules: &Rules, out: &mut String) {
    let name = e.name().0;
    if rules.tab.contains(&name) {
        out.push('\t');
    } else if rules.line_break.contains(&name) {
        out.push('\n');
    } else if rules.space.contains(&name) {
        let count = e
            .try_get_attribute(rules.space_count)
            .ok()
            .flatten()
            .and_then(|a| a.value.trim().parse::<usize>().ok())
            .unwrap_or(1)
            .min(64);
        out.extend(std::iter::repeat_n(' ', count));
    }
}

/// Text standing for the end of a paragraph, cell or row.
fn end_of(name: &str, rules: &Rules, in_cell: bool, out: &mut String) {
    if rules.paragraph.contains(&name) {
        out.push(if in_cell { ' ' } else { '\n' });
    } else if rules.cell.contains(&name) {
        trim_end_spaces(out);
        out.push('\t');
    } else if rules.row.contains(&name) {
        trim_end_spaces(out);
        out.push('\n');
    }
}

fn trim_end_spaces(out: &mut String) {
    let kept = out.trim_end_matches([' ', '\t']).len();
    out.truncate(kept);
}

#[cfg(test)]
mod tests {
    use super::*;

    const RULES: Rules = Rules {
        text: &["t"],
        paragraph: &["p"],
        tab: &["tab"],
        line_break: &["br"],
        space: &["s"],
        space_count: "c",
        cell: &["tc"],
        row: &["tr"],
        skip: &["hidden"],
        heading: None,
    };

    fn run(xml: &str) -> Result<String, DocTextError> {
        let mut out = String::new();
        append_text("TEST", "part.xml", xml, &RULES, &mut out)?;
        Ok(out)
    }

    #[test]
    fn text_layout_and_entities() {
        let xml = "<doc><p><t>A &amp; B&#x21;</t><tab/><t>C</t><br/><s c=\"3\"/><t><![CDATA[<D>]]></t></p>\
                   <p><t>ignored?</t><x>no</x><hidden><t>secret</t></hidden></p>\
                   <tbl><tr><tc><p><t>r1</t></p><p><t>c1</t></p></tc><tc><p><t>r1c2</t></p></tc></tr></tbl></doc>";
        assert_eq!(run(xml).unwrap(), "A & B!\tC\n   <D>\nignored?\nr1 c1\tr1c2\n");
    }

    #[test]
    fn malformed_xml_is_corrupt() {
        let e = run("<doc><p><t>x</p></doc>").unwrap_err();
        assert!(e.to_string().contains("malformed XML in 'part.xml'"), "{e}");
    }
}
