const UNITS: ReadonlyArray<[string, number]> = [
  ["d", 86_400_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1_000],
  ["ms", 1],
];

/** parseDuration reads "1h30m", "90s" or "250ms" as a number of milliseconds. */
export function parseDuration(text: string): number {
  let total = 0;
  let consumed = 0;
  for (const match of text.matchAll(/(\d+)(ms|d|h|m|s)/g)) {
    if (match.index !== consumed) break;
    const unit = UNITS.find(([name]) => name === match[2]);
    total += Number(match[1]) * (unit ? unit[1] : 0);
    consumed += match[0].length;
  }
  if (consumed === 0 || consumed !== text.length) {
    throw new RangeError(`invalid duration: ${JSON.stringify(text)}`);
  }
  return total;
}

/** formatDuration writes milliseconds as "1h 30m", leaving out the units that are zero. */
export function formatDuration(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [name, size] of UNITS) {
    const count = Math.floor(rest / size);
    if (count > 0) {
      parts.push(`${count}${name}`);
      rest -= count * size;
    }
  }
  return parts.length > 0 ? parts.join(" ") : "0s";
}
