"""The demo command."""

import argparse
import sys
from typing import List, Optional

from demo.core import count_lines, count_words, top_words


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="demo", description="Text statistics.")
    parser.add_argument("what", choices=["words", "lines", "top"])
    parser.add_argument("path")
    parser.add_argument("-n", type=int, default=3, help="how many words for top")
    args = parser.parse_args(argv)
    try:
        with open(args.path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"demo: {e.strerror}: {args.path}", file=sys.stderr)
        return 1
    if args.what == "words":
        print(count_words(text))
    elif args.what == "lines":
        print(count_lines(text))
    else:
        for word, count in top_words(text, args.n):
            print(f"{count} {word}")
    return 0
