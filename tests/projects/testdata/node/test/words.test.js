import { test } from "node:test";
import assert from "node:assert/strict";
import { topWords, wordCount } from "../dist/index.js";

test("counts words, not spaces or punctuation", () => {
  assert.equal(wordCount("  one, two;  three...  "), 3);
  assert.equal(wordCount(""), 0);
});

test("keeps apostrophes inside words", () => {
  assert.equal(wordCount("don't stop"), 2);
});

test("orders the top words by count, then alphabetically", () => {
  const text = "b a c b a b d";
  assert.deepEqual(topWords(text, 3), [
    ["b", 3],
    ["a", 2],
    ["c", 1],
  ]);
});
