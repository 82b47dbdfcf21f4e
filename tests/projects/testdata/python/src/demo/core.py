"""Counting words and lines."""

from collections import Counter
from typing import List, Tuple


def count_words(text: str) -> int:
    """Return the number of whitespace-separated words in text."""
    return len(text.split())


def count_lines(text: str) -> int:
    """Return the number of lines in text; a last line without a newline counts."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def top_words(text: str, n: int = 3) -> List[Tuple[str, int]]:
    """Return the n most common words, lower-cased, most common first."""
    words = [w.strip(".,;:!?\"'()").lower() for w in text.split()]
    counts = Counter(w for w in words if w)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
