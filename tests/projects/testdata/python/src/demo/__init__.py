"""Small text statistics."""

from demo.core import count_lines, count_words, top_words

__all__ = ["count_lines", "count_words", "top_words"]
__version__ = "0.1.0"
