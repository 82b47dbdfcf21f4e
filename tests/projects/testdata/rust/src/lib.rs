//! Word counting for the `tally` command.

use std::collections::BTreeMap;

/// Lines, words and characters of a text.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub lines: usize,
    pub words: usize,
    pub chars: usize,
}

/// Counts the lines, words and characters of `text`.
///
/// ```
/// let s = tally::stats("one two\nthree\n");
/// assert_eq!((s.lines, s.words, s.chars), (2, 3, 14));
/// ```
pub fn stats(text: &str) -> Stats {
    Stats {
        lines: text.lines().count(),
        words: text.split_whitespace().count(),
        chars: text.chars().count(),
    }
}

/// Splits `text` into lowercase words, dropping punctuation around them.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
}

/// Counts how often each word occurs.
pub fn frequencies(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for w in words(text) {
        *counts.entry(w).or_insert(0) += 1;
    }
    counts
}

/// The `n` most frequent words, most frequent first, ties in word order.
pub fn top(counts: &BTreeMap<String, usize>, n: usize) -> Vec<(&str, usize)> {
    let mut v: Vec<(&str, usize)> = counts.iter().map(|(w, c)| (w.as_str(), *c)).collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    v.truncate(n);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_counts_lines_words_chars() {
        assert_eq!(
            stats("a b\nc\n"),
            Stats {
                lines: 2,
                words: 3,
                chars: 6
            }
        );
        assert_eq!(stats(""), Stats::default());
    }

    #[test]
    fn words_are_lowercase_without_punctuation() {
        let got: Vec<String> = words("Hello, world! (Hello)").collect();
        assert_eq!(got, ["hello", "world", "hello"]);
    }

    #[test]
    fn top_orders_by_count_then_word() {
        let counts = frequencies("b a b c a b");
        assert_eq!(top(&counts, 2), [("b", 3), ("a", 2)]);
        assert_eq!(top(&counts, 10).len(), 3);
    }
}
