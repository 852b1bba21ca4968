//! Question cues on the walk's passage–entity edges.
//!
//! A passage names many entities, and the walk cannot tell which of them the question is after:
//! "Who is the mother of the director of film X?" reaches X's passage, which names the director
//! and five actors alike. The question's *cue words* — its lower-case content words ("mother",
//! "director") — tell them apart: the edge from a passage to an entity whose mention there has a
//! cue word nearby ("directed by John Doe") weighs more (`PPR_CUE_WEIGHT`), so the walk goes on
//! to the director's passage rather than to an actor's. Words are compared by their first
//! [`STEM_CHARS`] letters, so "director" matches "directed".

/// Letters of a word compared (a crude stem: "director" and "directed" share "direc").
const STEM_CHARS: usize = 5;
/// Words on each side of a mention in which a cue counts.
pub(crate) const CUE_WINDOW: usize = 6;

fn stem(word: &str) -> String {
    word.chars().flat_map(char::to_lowercase).take(STEM_CHARS).collect()
}

fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect()
}

/// The question's cue words, as stems: its words that are not names (not capitalised after the
/// first word), not numbers and not stop words, each once.
pub(crate) fn cue_stems(question: &str) -> Vec<String> {
    let mut cues: Vec<String> = words(question)
        .into_iter()
        .enumerate()
        .filter(|(i, w)| *i == 0 || !w.chars().next().is_some_and(char::is_uppercase))
        .map(|(_, w)| w)
        .filter(|w| !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| w.chars().count() >= 3 && !lightrag_nlp::is_stop_word(&w.to_lowercase()))
        .map(stem)
        .collect();
    cues.sort();
    cues.dedup();
    cues
}

/// The most distinct cue stems found within `window` words of one mention of `name` in `text`
/// (0 when `name` is not mentioned or nothing is near).
pub(crate) fn cues_near(text: &str, name: &str, cues: &[String], window: usize) -> usize {
    if cues.is_empty() {
        return 0;
    }
    let name_words: Vec<String> = words(name).into_iter().map(str::to_lowercase).collect();
    if name_words.is_empty() {
        return 0;
    }
    let text_words: Vec<&str> = words(text);
    let lowered: Vec<String> = text_words.iter().map(|w| w.to_lowercase()).collect();
    let mut best = 0;
    for start in 0..lowered.len() {
        let end = start + name_words.len();
        if end > lowered.len() || lowered[start..end] != name_words[..] {
            continue;
        }
        let from = start.saturating_sub(window);
        let to = (end + window).min(lowered.len());
        let near: Vec<String> = lowered[from..start].iter().chain(&lowered[end..to]).map(|w| stem(w)).collect();
        let found = cues.iter().filter(|c| near.contains(c)).count();
        best = best.max(found);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cues_are_the_lower_case_content_words() {
        assert_eq!(
            cue_stems("Who is the mother of the director of film Polish-Russian War (2009)?"),
            vec!["direc", "film", "mothe"]
        );
        assert!(cue_stems("Who is Ahab?").is_empty());
    }

    #[test]
    fn a_cue_near_the_mention_counts_once_per_cue() {
        let text = "Polish-Russian War is a 2009 Polish film directed by Xawery Żuławski, starring Borys Szyc and Maria Strzelecka.";
        let cues = cue_stems("Who is the mother of the director of film Polish-Russian War?");
        // "film directed by Xawery Żuławski": film and direc
        assert_eq!(cues_near(text, "Xawery Żuławski", &cues, CUE_WINDOW), 2);
        // the six words before Maria Strzelecka hold no cue
        assert_eq!(cues_near(text, "Maria Strzelecka", &cues, CUE_WINDOW), 0);
        assert_eq!(cues_near(text, "xawery żuławski", &cues, 0), 0, "no window, no cue");
        assert_eq!(cues_near(text, "Nobody Here", &cues, CUE_WINDOW), 0);
        assert_eq!(cues_near(text, "Xawery Żuławski", &[], CUE_WINDOW), 0);
    }

    #[test]
    fn the_best_mention_counts() {
        let text = "Anna sang. Later the director Anna Lee was born in Oslo.";
        let cues = vec![stem("director"), stem("born")];
        assert_eq!(cues_near(text, "Anna Lee", &cues, 3), 2);
        assert_eq!(cues_near(text, "Anna", &cues, 1), 1);
    }
}
