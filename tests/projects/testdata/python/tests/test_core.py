from demo.core import count_lines, count_words, top_words


def test_count_words():
    assert count_words("a b  c\nd") == 4


def test_count_lines():
    assert count_lines("") == 0
    assert count_lines("one\ntwo\n") == 2
    assert count_lines("one\ntwo") == 2


def test_top_words():
    assert top_words("b a b c a b", 2) == [("b", 3), ("a", 2)]
