//! A fixed-size open-addressing hash set of words, built at compile time by a `const fn`, for
//! the word lists looked up once per token (a binary search costs several string comparisons).

/// A set of `&'static str` with `N` slots (`N` a power of two, at least twice the word count).
#[derive(Debug)]
pub struct WordSet<const N: usize> {
    slots: [&'static str; N],
}

/// FNV-1a over the bytes of a word.
const fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

impl<const N: usize> WordSet<N> {
    /// Builds the set; fails to compile when `N` is not a power of two or too small, or a word
    /// is empty (the empty string marks a free slot).
    pub const fn new(words: &[&'static str]) -> Self {
        assert!(N.is_power_of_two() && words.len() * 2 <= N, "WordSet too small");
        let mut slots = [""; N];
        let mut w = 0;
        while w < words.len() {
            let word = words[w];
            assert!(!word.is_empty(), "WordSet words must not be empty");
            let mut at = (hash(word.as_bytes()) as usize) & (N - 1);
            loop {
                if slots[at].is_empty() || same(slots[at].as_bytes(), word.as_bytes()) {
                    slots[at] = word;
                    break;
                }
                at = (at + 1) & (N - 1);
            }
            w += 1;
        }
        WordSet { slots }
    }

    /// Whether `word` is in the set.
    pub fn contains(&self, word: &str) -> bool {
        if word.is_empty() {
            return false;
        }
        let mut at = (hash(word.as_bytes()) as usize) & (N - 1);
        for _ in 0..N {
            let slot = self.slots[at];
            if slot.is_empty() {
                return false;
            }
            if slot == word {
                return true;
            }
            at = (at + 1) & (N - 1);
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS: &[&str] = &["alpha", "beta", "gamma", "delta", "epsilon"];
    static SET: WordSet<16> = WordSet::new(WORDS);

    #[test]
    fn finds_members_only() {
        for w in WORDS {
            assert!(SET.contains(w), "{w}");
        }
        for w in ["", "alph", "alphas", "zeta", "Beta"] {
            assert!(!SET.contains(w), "{w}");
        }
    }
}
