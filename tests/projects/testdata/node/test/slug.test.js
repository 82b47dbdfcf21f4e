import { test } from "node:test";
import assert from "node:assert/strict";
import { slugify } from "../dist/index.js";

test("lowercases and joins words with dashes", () => {
  assert.equal(slugify("Hello World"), "hello-world");
});

test("drops accents", () => {
  assert.equal(slugify("Crème brûlée"), "creme-brulee");
});

test("uses the separator given", () => {
  assert.equal(slugify("a b c", { separator: "_" }), "a_b_c");
});

test("cuts the slug to maxLength", () => {
  assert.equal(slugify("abcdef", { maxLength: 3 }), "abc");
});
