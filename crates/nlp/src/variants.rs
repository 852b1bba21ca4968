//! Other written forms of an entity name that denote the same thing, found by normalisation:
//! the name without its leading titles ("King Dikkha" → "Dikkha") and with roman numerals in
//! capitals ("Lothair Ii" → "Lothair II").

use crate::lexicon::{TITLES, contains, lower};

/// The other forms of `name` (never `name` itself, each once, in the order above).
pub fn name_variants(name: &str) -> Vec<String> {
    let words: Vec<&str> = name.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut push = |candidate: String| {
        if !candidate.is_empty() && candidate != name && !out.contains(&candidate) {
            out.push(candidate);
        }
    };
    // leading titles, but never the whole name ("Queen" stays a name of its own)
    let titles = words.iter().take_while(|w| contains(TITLES, &lower(w.trim_end_matches('.')))).count();
    if titles > 0 && titles < words.len() {
        push(words[titles..].join(" "));
    }
    // a regnal number is never the first word ("Xi Jinping" stays)
    let numerals: Vec<String> =
        words.iter().enumerate().map(|(i, w)| if i > 0 { roman_upper(w) } else { (*w).to_string() }).collect();
    push(numerals.join(" "));
    out
}

/// `w` in capitals when it is a roman numeral up to 39 written in mixed case ("Ii", "Xiv"),
/// else as is.
fn roman_upper(w: &str) -> String {
    let upper = w.to_uppercase();
    let mixed = w.chars().next().is_some_and(char::is_uppercase) && w.chars().any(char::is_lowercase);
    if mixed && canonical_roman(&upper) { upper } else { w.to_string() }
}

/// Whether `s` (capitals) is a roman numeral from 1 to 39 in its one canonical spelling.
fn canonical_roman(s: &str) -> bool {
    const ONES: [&str; 10] = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"];
    // tens (at most three X) then ones, not both empty
    let tens = s.bytes().take_while(|&b| b == b'X').count();
    !s.is_empty() && tens <= 3 && ONES.contains(&&s[tens..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_roman_numerals() {
        assert_eq!(name_variants("King Dikkha"), ["Dikkha"]);
        assert_eq!(name_variants("President Abraham Lincoln"), ["Abraham Lincoln"]);
        assert_eq!(name_variants("Lothair Ii"), ["Lothair II"]);
        assert_eq!(name_variants("King Louis Xiv"), ["Louis Xiv", "King Louis XIV"]);
        assert!(name_variants("Lothair II").is_empty(), "already normal");
        assert!(name_variants("Queen").is_empty(), "a title alone stays itself");
        assert!(name_variants("Dr. No").first().is_some_and(|v| v == "No"));
        // words that merely look roman stay
        assert!(name_variants("Civic Vic Mix").is_empty());
        assert!(name_variants("Xi Jinping").is_empty(), "never the first word");
    }
}
