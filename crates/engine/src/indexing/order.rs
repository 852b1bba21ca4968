//! Order-preserving helpers shared by retrieval and graph editing.

use std::collections::HashSet;
use std::hash::Hash;

/// The items without repeats, each at its first position.
pub(crate) fn dedup_in_order<T: Clone + Eq + Hash>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut seen = HashSet::new();
    items.into_iter().filter(|x| seen.insert(x.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_occurrences_stay_in_order() {
        assert_eq!(dedup_in_order(["b", "a", "b", "c", "a"]), vec!["b", "a", "c"]);
    }
}
