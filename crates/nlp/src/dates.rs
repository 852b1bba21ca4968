//! Dates: `July 4, 1776`, `4 July 1776`, `December 1941`, `July 4th`, and years standing alone.

use crate::doc::Doc;
use crate::lexicon::{MONTHS, contains};
use crate::tokens::Kind;

/// Earliest and latest year recognised alone.
const YEARS: std::ops::RangeInclusive<u32> = 1700..=2099;

/// Words before a number that say it is a year.
const YEAR_CUES: &[&str] = &[
    "after", "before", "between", "by", "during", "from", "in", "of", "since", "through", "till", "to", "until", "year",
];

/// If a date starts at token `i` (and ends before `end`), returns the index one past it.
pub fn date_at(doc: &Doc<'_>, i: usize, end: usize) -> Option<usize> {
    let get = |k: usize| if k < end { doc.tokens.get(k) } else { None };
    let t = get(i)?;
    if is_month(doc, i) {
        let mut k = i + 1;
        // Allow "Dec." with its dot.
        if get(k).is_some_and(|n| n.is_punct(doc.src, '.') && n.start == t.end) {
            k += 1;
        }
        if get(k).is_some_and(|_| day_number(doc.text(k)).is_some()) {
            let after_day = k + 1;
            let comma = usize::from(get(after_day).is_some_and(|n| n.is_punct(doc.src, ',')));
            if get(after_day + comma).is_some_and(|n| n.kind == Kind::Number && is_year(doc.text(after_day + comma))) {
                return Some(after_day + comma + 1);
            }
            return Some(after_day);
        }
        let comma = usize::from(get(k).is_some_and(|n| n.is_punct(doc.src, ',')));
        if get(k + comma).is_some_and(|n| n.kind == Kind::Number && is_year(doc.text(k + comma))) {
            return Some(k + comma + 1);
        }
        return None;
    }
    if day_number(doc.text(i)).is_some() && i + 2 < end && is_month(doc, i + 1) {
        let y = i + 2;
        if get(y).is_some_and(|n| n.kind == Kind::Number && is_year(doc.text(y))) {
            return Some(y + 1);
        }
    }
    None
}

/// Whether the number at token `i` reads as a year on its own: a four-digit number in range, not
/// followed by a content word ("1800 miles") and either preceded by a time word or followed by
/// punctuation or a stop-word.
pub fn standalone_year(doc: &Doc<'_>, i: usize, end: usize) -> bool {
    let Some(t) = doc.tokens.get(i) else {
        return false;
    };
    if t.kind != Kind::Number || !is_year(doc.text(i)) {
        return false;
    }
    let next_ok = match doc.tokens.get(i + 1).filter(|_| i + 1 < end) {
        None => true,
        Some(n) => match n.kind {
            Kind::Word => doc.stop.get(i + 1).copied().unwrap_or(false),
            Kind::Punct => !matches!(n.first_char(doc.src), Some('%' | '$' | '-' | '/')),
            _ => false,
        },
    };
    let prev_cue = i > 0 && contains(YEAR_CUES, doc.lower(i - 1));
    let prev_money = i > 0 && doc.tokens[i - 1].is_punct(doc.src, '$');
    next_ok && !prev_money && (prev_cue || doc.tokens.get(i + 1).is_none_or(|n| n.kind == Kind::Punct))
}

/// Whether a number token is a plain four-digit year in the accepted range.
fn is_year(text: &str) -> bool {
    text.len() == 4 && text.bytes().all(|b| b.is_ascii_digit()) && text.parse::<u32>().is_ok_and(|y| YEARS.contains(&y))
}

fn is_month(doc: &Doc<'_>, i: usize) -> bool {
    let Some(t) = doc.tokens.get(i) else {
        return false;
    };
    t.kind == Kind::Word && t.first_char(doc.src).is_some_and(char::is_uppercase) && contains(MONTHS, doc.lower(i))
}

/// A day of the month, written `4` or `4th`.
fn day_number(text: &str) -> Option<u32> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &text[digits.len()..];
    if digits.is_empty() || digits.len() > 2 || !matches!(suffix, "" | "st" | "nd" | "rd" | "th") {
        return None;
    }
    digits.parse::<u32>().ok().filter(|d| (1..=31).contains(d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Mode;

    fn dates(src: &str) -> Vec<String> {
        let doc = Doc::new(src, Mode::Document);
        let mut out = Vec::new();
        let mut i = 0;
        let n = doc.tokens.len();
        while i < n {
            if let Some(e) = date_at(&doc, i, n) {
                out.push(doc.span_text(i, e));
                i = e;
            } else {
                if standalone_year(&doc, i, n) {
                    out.push(doc.text(i).to_string());
                }
                i += 1;
            }
        }
        out
    }

    #[test]
    fn full_and_partial_dates() {
        assert_eq!(dates("on December 7, 1941 and July 4th, 1776"), vec!["December 7, 1941", "July 4th, 1776"]);
        assert_eq!(dates("from 4 July 1776 to March 1861."), vec!["4 July 1776", "March 1861"]);
        assert_eq!(dates("He may go in May."), Vec::<String>::new());
    }

    #[test]
    fn years_alone_need_context() {
        assert_eq!(dates("In 1861 the war began, and by 1865, it ended."), vec!["1861", "1865"]);
        assert!(dates("We marched 1800 miles for $1900 and 2500 men.").is_empty());
        assert!(dates("the year 12345 and 1492").is_empty());
    }
}
