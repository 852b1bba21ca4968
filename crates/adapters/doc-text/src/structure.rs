//! The structure of an extracted text: where its pages start and where its headings are, so that a
//! later stage can say where in the document a passage sits (page numbers, heading path).
//!
//! Readers mark structure in the text they produce with Unicode noncharacters
//! ([`PAGE_MARK`], [`heading_mark`]), which no interchanged text may contain: a page mark where a
//! page's text starts, a heading mark (one code point per level 1–9) where a heading's line
//! starts. [`Structure::take`] then tidies the text (as every non-verbatim format is tidied) and
//! takes the marks out, recording their byte offsets in the final text. Marks that came with the
//! file itself are dropped by [`strip_marks`] before a reader adds its own, so a file cannot forge
//! structure.

use serde::{Deserialize, Serialize};

/// Marks the start of a page (PDF pages, PPTX slides).
pub(crate) const PAGE_MARK: char = '\u{FDD0}';
/// The first of the nine heading marks (level 1 is `U+FDD1`, level 9 `U+FDD9`).
const HEADING_MARK_1: u32 = 0xFDD1;
/// The longest heading title kept (characters); a longer line is cut.
pub const MAX_TITLE_CHARS: usize = 200;

/// The mark of a heading of `level` (1–9; other levels are clamped).
pub(crate) fn heading_mark(level: u8) -> char {
    char::from_u32(HEADING_MARK_1 + u32::from(level.clamp(1, 9)) - 1).unwrap_or(PAGE_MARK)
}

fn is_mark(c: char) -> bool {
    ('\u{FDD0}'..='\u{FDD9}').contains(&c)
}

/// `text` without any structure mark (what a file brought itself is not structure).
pub(crate) fn strip_marks(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(is_mark) { text.chars().filter(|c| !is_mark(*c)).collect() } else { text.into() }
}

/// A heading of the document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    /// Byte offset in the text where its line starts.
    pub offset: usize,
    /// Its level (1 = top).
    pub level: u8,
    /// Its text (at most [`MAX_TITLE_CHARS`] characters).
    pub title: String,
}

/// Where a text's pages start and where its headings are. Empty for formats without either.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Structure {
    /// Byte offset in the text where each page starts, in page order (page 1 first); empty for
    /// formats without pages.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pages: Vec<usize>,
    /// The headings, in text order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<Heading>,
}

impl Structure {
    /// Whether nothing is known of the text's structure.
    pub fn is_empty(&self) -> bool {
        self.pages.is_empty() && self.headings.is_empty()
    }

    /// The 1-based page holding byte `offset` (`None` for formats without pages).
    pub fn page_at(&self, offset: usize) -> Option<usize> {
        if self.pages.is_empty() {
            return None;
        }
        Some(self.pages.partition_point(|&start| start <= offset).max(1))
    }

    /// The 1-based pages the bytes `start..end` run over, first and last (`None` without pages).
    pub fn pages_of(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        let first = self.page_at(start)?;
        let last = self.page_at(end.saturating_sub(1).max(start))?;
        Some((first, last.max(first)))
    }

    /// The heading path at byte `offset`: the last heading of each level above it, outermost
    /// first (`["3 Results", "3.2 Revenue"]`); empty before the first heading.
    pub fn section_at(&self, offset: usize) -> Vec<&str> {
        let mut path: Vec<&Heading> = Vec::new();
        for heading in self.headings.iter().take_while(|h| h.offset <= offset) {
            while path.last().is_some_and(|h| h.level >= heading.level) {
                path.pop();
            }
            path.push(heading);
        }
        path.into_iter().map(|h| h.title.as_str()).collect()
    }

    /// Tidies `raw` (trims line ends, drops leading and trailing blank lines, keeps at most one
    /// blank line in a row — a line holding only marks counts as blank) and takes the marks out:
    /// the text and where its marks were.
    pub(crate) fn take(raw: &str) -> (String, Structure) {
        let mut out = String::with_capacity(raw.len());
        let mut structure = Structure::default();
        let mut pending: Vec<char> = Vec::new();
        let mut blank_run = 0usize;
        for line in raw.lines() {
            let line = line.trim_end();
            // most lines hold no mark: those are borrowed as they are
            let has_marks = line.chars().any(is_mark);
            let bare: std::borrow::Cow<'_, str> =
                if has_marks { line.chars().filter(|c| !is_mark(*c)).collect::<String>().into() } else { line.into() };
            if bare.trim_end().is_empty() {
                pending.extend(line.chars().filter(|c| is_mark(*c)));
                blank_run += 1;
                continue;
            }
            if !out.is_empty() {
                out.push_str(if blank_run > 0 { "\n\n" } else { "\n" });
            }
            blank_run = 0;
            let line_start = out.len();
            let bare = bare.trim_end();
            // marks carried over blank lines belong to the start of this line
            for mark in pending.drain(..) {
                structure.record(mark, line_start, bare);
            }
            // marks within the line: at their place (a heading mark is at its line's start in practice)
            let mut written = 0usize;
            if has_marks {
                for c in line.chars() {
                    if is_mark(c) {
                        let at = written.min(bare.len());
                        structure.record(c, line_start + at, &bare[at..]);
                    } else {
                        written += c.len_utf8();
                    }
                }
            }
            out.push_str(bare);
        }
        // marks after the last text (an empty last page) point at its end
        for mark in pending {
            structure.record(mark, out.len(), "");
        }
        (out, structure)
    }

    fn record(&mut self, mark: char, offset: usize, line: &str) {
        if mark == PAGE_MARK {
            self.pages.push(offset);
            return;
        }
        let level = u8::try_from(u32::from(mark) - HEADING_MARK_1 + 1).unwrap_or(1);
        let title: String = line.trim().chars().take(MAX_TITLE_CHARS).collect();
        if !title.is_empty() {
            self.headings.push(Heading { offset, level, title });
        }
    }

    /// The ATX headings (`# Title` … `###### Title`) of a Markdown text, outside fenced code
    /// blocks.
    pub(crate) fn of_markdown(text: &str) -> Structure {
        let mut structure = Structure::default();
        let mut fence: Option<&str> = None;
        let mut offset = 0usize;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let trimmed = line.trim_start_matches(' ');
            if line.len() - trimmed.len() > 3 {
                continue;
            }
            for marker in ["```", "~~~"] {
                if trimmed.starts_with(marker) {
                    fence = match fence {
                        Some(open) if open == marker => None,
                        None => Some(marker),
                        other => other,
                    };
                }
            }
            if fence.is_some() {
                continue;
            }
            let hashes = trimmed.bytes().take_while(|b| *b == b'#').count();
            let rest = &trimmed[hashes..];
            if !(1..=6).contains(&hashes) || !(rest.starts_with([' ', '\t']) || rest.trim().is_empty()) {
                continue;
            }
            let title = rest.trim().trim_end_matches('#').trim_end();
            if title.is_empty() {
                continue;
            }
            let level = u8::try_from(hashes).unwrap_or(6);
            structure.headings.push(Heading {
                offset: start,
                level,
                title: title.chars().take(MAX_TITLE_CHARS).collect(),
            });
        }
        structure
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(level: u8) -> char {
        heading_mark(level)
    }

    #[test]
    fn marks_are_taken_out_at_their_offsets_through_tidying() {
        let raw = format!(
            "{PAGE_MARK}  \n\n{}Intro  \nfirst page\n\n\n\n{PAGE_MARK}{}Results\n{}Revenue\nup\n{PAGE_MARK}\n",
            h(1),
            h(1),
            h(2)
        );
        let (text, s) = Structure::take(&raw);
        assert_eq!(text, "Intro\nfirst page\n\nResults\nRevenue\nup");
        assert_eq!(s.pages, vec![0, text.find("Results").unwrap(), text.len()]);
        let titles: Vec<(&str, u8)> = s.headings.iter().map(|h| (h.title.as_str(), h.level)).collect();
        assert_eq!(titles, vec![("Intro", 1), ("Results", 1), ("Revenue", 2)]);
        for heading in &s.headings {
            assert!(text[heading.offset..].starts_with(&heading.title), "{heading:?}");
        }
        assert_eq!(s.page_at(0), Some(1));
        assert_eq!(s.page_at(text.find("up").unwrap()), Some(2));
        assert_eq!(s.section_at(text.find("up").unwrap()), vec!["Results", "Revenue"]);
        assert_eq!(s.section_at(text.find("first").unwrap()), vec!["Intro"]);
        assert_eq!(s.pages_of(0, text.len()), Some((1, 2)), "the last page starts at the end: nothing of it");
    }

    #[test]
    fn without_marks_take_tidies_like_before() {
        let (text, s) = Structure::take("\n\n a  \n\n\n\nb\t\nc\n\n");
        assert_eq!(text, " a\n\nb\nc");
        assert!(s.is_empty());
    }

    #[test]
    fn marks_a_file_brings_are_dropped() {
        assert_eq!(strip_marks("a\u{FDD0}b\u{FDD3}c"), "abc");
        assert_eq!(strip_marks("plain"), "plain");
    }

    #[test]
    fn markdown_headings_outside_code_fences() {
        let md =
            "# Title\ntext\n## Part *one* ##\n```\n# not a heading\n```\n#nospace\n    # indented code\n### Deep\n";
        let s = Structure::of_markdown(md);
        let titles: Vec<(&str, u8, usize)> = s.headings.iter().map(|h| (h.title.as_str(), h.level, h.offset)).collect();
        assert_eq!(
            titles,
            vec![
                ("Title", 1, 0),
                ("Part *one*", 2, md.find("## Part").unwrap()),
                ("Deep", 3, md.find("### Deep").unwrap())
            ]
        );
        assert_eq!(s.section_at(md.len()), vec!["Title", "Part *one*", "Deep"]);
    }
}
