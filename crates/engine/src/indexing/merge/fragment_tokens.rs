//! Token counts of description fragments, kept between merges.
//!
//! A record's description is its fragments joined with `<SEP>`; every merge of the record splits
//! the stored description again and, once it is large enough to be summarised, counts every
//! fragment to decide (`SUMMARY_MAX_TOKENS`, the map-reduce groups of `SUMMARY_CONTEXT_SIZE`). A
//! hub entity merged by hundreds of chunks would have its same fragments encoded at every merge
//! (O(N²) BPE work over its life). [`FragmentTokens`] remembers each fragment's count, keyed by
//! the fragment's **whole text** (never a hash of it, so one text's count is never taken for
//! another's): the counts, and so every decision made from them, are those of the tokenizer.
//!
//! The memo holds at most [`FragmentTokens::BUDGET_BYTES`] bytes of keys and is emptied when that
//! is reached (the counts are then made again as they are needed).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use lightrag_ports::Tokenizer;

/// Remembered token counts of description fragments (one per engine).
pub(crate) struct FragmentTokens {
    memo: Mutex<Memo>,
    /// Key bytes held before the memo is emptied.
    budget: usize,
}

impl Default for FragmentTokens {
    fn default() -> Self {
        Self { memo: Mutex::default(), budget: Self::BUDGET_BYTES }
    }
}

#[derive(Default)]
struct Memo {
    counts: HashMap<Box<str>, usize>,
    /// Bytes of the keys in `counts`.
    bytes: usize,
}

impl FragmentTokens {
    /// Key bytes held before the memo is emptied (about twice that in memory).
    pub(crate) const BUDGET_BYTES: usize = 16 << 20;

    /// The token count of every fragment, from the memo or the tokenizer (texts not seen before
    /// are counted outside the memo's lock).
    pub(crate) fn counts(&self, tokenizer: &dyn Tokenizer, fragments: &[String]) -> Vec<usize> {
        let mut sizes: Vec<Option<usize>> = {
            let memo = self.memo.lock().unwrap_or_else(PoisonError::into_inner);
            fragments.iter().map(|f| memo.counts.get(f.as_str()).copied()).collect()
        };
        let missing: Vec<(usize, usize)> = sizes
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_none())
            .map(|(i, _)| (i, tokenizer.count(&fragments[i])))
            .collect();
        if !missing.is_empty() {
            let mut memo = self.memo.lock().unwrap_or_else(PoisonError::into_inner);
            for &(i, n) in &missing {
                sizes[i] = Some(n);
                memo.insert(&fragments[i], n, self.budget);
            }
        }
        sizes.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// How many counts are remembered (tests).
    #[cfg(test)]
    fn len(&self) -> usize {
        self.memo.lock().unwrap_or_else(PoisonError::into_inner).counts.len()
    }
}

impl Memo {
    fn insert(&mut self, text: &str, count: usize, budget: usize) {
        if self.counts.contains_key(text) {
            return;
        }
        if self.bytes + text.len() > budget {
            self.counts.clear();
            self.bytes = 0;
            if text.len() > budget {
                return;
            }
        }
        self.bytes += text.len();
        self.counts.insert(text.into(), count);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {

    use super::*;

    use crate::indexing::text::tests_support::CountingWords as CountingTokenizer;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_fragment_is_counted_once_across_merges() {
        let tokenizer = CountingTokenizer::default();
        let memo = FragmentTokens::default();
        assert_eq!(memo.counts(&tokenizer, &strings(&["a b", "c"])), vec![2, 1]);
        assert_eq!(tokenizer.asked(), 2);
        // the next merge of the record: the stored fragments again, and a new one
        assert_eq!(memo.counts(&tokenizer, &strings(&["a b", "c", "d e f"])), vec![2, 1, 3]);
        assert_eq!(tokenizer.asked(), 3, "only the new fragment is counted");
    }

    #[test]
    fn a_fragments_count_is_not_reused_for_a_different_text() {
        let tokenizer = CountingTokenizer::default();
        let memo = FragmentTokens::default();
        assert_eq!(memo.counts(&tokenizer, &strings(&["the Senate met"])), vec![3]);
        // same length, same prefix, a different text: counted, not taken from the memo
        assert_eq!(memo.counts(&tokenizer, &strings(&["the Senate  me"])), vec![3]);
        assert_eq!(memo.counts(&tokenizer, &strings(&["the Senate m t"])), vec![4]);
        assert_eq!(memo.counts(&tokenizer, &strings(&["the Senate met "])), vec![3]);
        assert_eq!(tokenizer.asked(), 4);
        assert_eq!(memo.len(), 4);
    }

    #[test]
    fn the_memo_is_emptied_when_its_budget_is_reached() {
        let tokenizer = CountingTokenizer::default();
        let memo = FragmentTokens { budget: 10, ..FragmentTokens::default() };
        assert_eq!(memo.counts(&tokenizer, &strings(&["a b c", "d e"])), vec![3, 2]);
        assert_eq!(memo.len(), 2, "8 bytes held");
        // 8 + 5 bytes would pass the budget: the memo starts again with the new text alone
        assert_eq!(memo.counts(&tokenizer, &strings(&["f g h"])), vec![3]);
        assert_eq!(memo.len(), 1);
        assert_eq!(memo.counts(&tokenizer, &strings(&["a b c"])), vec![3], "counted again after the reset");
        assert_eq!(tokenizer.asked(), 4);
        // a text larger than the whole budget is counted every time, never kept
        assert_eq!(memo.counts(&tokenizer, &strings(&["i j k l m n"])), vec![6]);
        assert_eq!(memo.counts(&tokenizer, &strings(&["i j k l m n"])), vec![6]);
        assert_eq!(tokenizer.asked(), 6);
        assert_eq!(memo.len(), 0);
    }
}
