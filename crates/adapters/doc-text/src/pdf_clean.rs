//! Cleaning a PDF's page texts before they are joined: running headers and footers (the same line
//! at the top or bottom of most pages, page numbers aside) are dropped, and words hyphenated across
//! a line break are joined again. Both make passages read as the document does, so chunks, vectors
//! and citations are not littered with "ACME Annual Report 2024 — Page 7" or "inter- national".

/// A header or footer must repeat on at least this many pages …
const MIN_REPEATS: usize = 3;
/// … and on at least this share of the pages.
const MIN_SHARE: f64 = 0.6;
/// Lines longer than this are body text, never a running header or footer.
const MAX_RUNNING_LINE_CHARS: usize = 120;

/// Cleans `pages` in place (see the module docs).
pub(crate) fn clean_pages(pages: &mut [String]) {
    // a header of two lines (title, then chapter) loses one line per round; a second round only
    // where the first found a running line at that edge
    for edge in [Edge::Top, Edge::Bottom] {
        if drop_running_line(pages, edge) {
            drop_running_line(pages, edge);
        }
    }
    for page in pages.iter_mut() {
        *page = dehyphenate(page);
    }
}

#[derive(Clone, Copy)]
enum Edge {
    Top,
    Bottom,
}

/// The line's shape with page numbers and other digits made equal (`Page 3 of 10` and `Page 4 of
/// 10` are one shape), whitespace collapsed.
fn shape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut last_digit = false;
    for word in line.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in word.chars() {
            let digit = c.is_ascii_digit();
            if !(digit && last_digit) {
                out.push(if digit { '#' } else { c });
            }
            last_digit = digit;
        }
        last_digit = false;
    }
    out
}

/// The index of the first (or last) non-blank line of `lines`.
fn edge_line(lines: &[&str], edge: Edge) -> Option<usize> {
    match edge {
        Edge::Top => lines.iter().position(|l| !l.trim().is_empty()),
        Edge::Bottom => lines.iter().rposition(|l| !l.trim().is_empty()),
    }
}

/// Drops the line at `edge` of every page where its shape is one that most pages share there;
/// whether it dropped any.
fn drop_running_line(pages: &mut [String], edge: Edge) -> bool {
    if pages.len() < MIN_REPEATS {
        return false;
    }
    let shapes: Vec<Option<String>> = pages
        .iter()
        .map(|page| {
            let lines: Vec<&str> = page.lines().collect();
            let line = lines.get(edge_line(&lines, edge)?)?;
            let trimmed = line.trim();
            (trimmed.chars().count() <= MAX_RUNNING_LINE_CHARS).then(|| shape(trimmed))
        })
        .collect();
    let mut counts: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for s in shapes.iter().flatten() {
        *counts.entry(s.as_str()).or_default() += 1;
    }
    let needed = MIN_REPEATS.max((pages.len() as f64 * MIN_SHARE).ceil() as usize);
    let running: Vec<String> = counts.into_iter().filter(|(_, n)| *n >= needed).map(|(s, _)| s.to_string()).collect();
    if running.is_empty() {
        return false;
    }
    for (page, s) in pages.iter_mut().zip(&shapes) {
        if s.as_ref().is_some_and(|s| running.contains(s)) {
            let lines: Vec<&str> = page.lines().collect();
            if let Some(at) = edge_line(&lines, edge) {
                let kept: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, l)| *l).collect();
                *page = kept.join("\n");
            }
        }
    }
    true
}

/// Joins words hyphenated across a line break: a line ending in a letter and `-`, followed by a
/// line starting with a lower-case letter, loses the hyphen and the break (`inter-` / `national`
/// → `international`). A hyphen after a digit or before a capital is kept (`1990-` / `Today`).
fn dehyphenate(page: &str) -> String {
    let lines: Vec<&str> = page.lines().collect();
    let mut out = String::with_capacity(page.len());
    let mut i = 0;
    while i < lines.len() {
        let mut line = lines[i].trim_end().to_string();
        while let Some(stem) = line.strip_suffix('-')
            && stem.chars().last().is_some_and(char::is_alphabetic)
            && let Some(next) = lines.get(i + 1)
            && next.trim_start().chars().next().is_some_and(char::is_lowercase)
        {
            let next = next.trim_start();
            let (word, rest) = next.split_once(char::is_whitespace).unwrap_or((next, ""));
            let mut joined = format!("{stem}{word}");
            if !rest.trim().is_empty() {
                // the rest of the next line goes on a line of its own, as it was
                joined.push('\n');
                joined.push_str(rest.trim_start());
            }
            line = joined;
            i += 1;
        }
        out.push_str(&line);
        out.push('\n');
        i += 1;
    }
    if !page.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pages(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn running_headers_and_page_numbers_are_dropped() {
        let mut p = pages(&[
            "ACME Annual Report\nIntro text here.\nPage 1 of 4",
            "ACME Annual Report\nResults are good.\nPage 2 of 4",
            "ACME Annual Report\nCosts went down.\nPage 3 of 4",
            "Appendix title\nTables.\nPage 4 of 4",
        ]);
        clean_pages(&mut p);
        assert_eq!(p, pages(&["Intro text here.", "Results are good.", "Costs went down.", "Appendix title\nTables."]));
    }

    #[test]
    fn too_few_pages_or_repeats_keep_everything() {
        let mut two = pages(&["Title\nA", "Title\nB"]);
        clean_pages(&mut two);
        assert_eq!(two, pages(&["Title\nA", "Title\nB"]));
        let mut rare = pages(&["H\na", "H\nb", "x\nc", "y\nd", "z\ne"]);
        clean_pages(&mut rare);
        assert_eq!(rare[0], "H\na", "2 of 5 pages is not most of them");
    }

    #[test]
    fn hyphenated_words_are_joined_and_other_hyphens_kept() {
        assert_eq!(dehyphenate("the inter-\nnational trade\nrose"), "the international\ntrade\nrose");
        assert_eq!(dehyphenate("in 1990-\n2000"), "in 1990-\n2000");
        assert_eq!(dehyphenate("well-\nKnown"), "well-\nKnown");
        assert_eq!(dehyphenate("end-\n"), "end-\n");
        assert_eq!(dehyphenate("a co-\nop-\nerative"), "a cooperative");
    }

    #[test]
    fn shapes_ignore_numbers() {
        assert_eq!(shape("Page  12 of 300"), "Page # of #");
        assert_eq!(shape("Report 2024"), "Report #");
    }
}
