/** words splits text into lowercase words: runs of letters, digits and apostrophes. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
}

/** wordCount counts the words of text. */
export function wordCount(text: string): number {
  return words(text).length;
}

/** topWords returns the n most frequent words, most frequent first, ties in alphabetical order. */
export function topWords(text: string, n: number): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const word of words(text)) {
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, n);
}
