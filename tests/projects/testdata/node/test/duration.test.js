import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { formatDuration, parseDuration } from "../dist/index.js";

describe("parseDuration", () => {
  test("reads one unit", () => {
    assert.equal(parseDuration("90s"), 90_000);
    assert.equal(parseDuration("250ms"), 250);
  });

  test("reads several units", () => {
    assert.equal(parseDuration("1h30m"), 5_400_000);
  });

  test("refuses what is not a duration", () => {
    assert.throws(() => parseDuration("soon"), RangeError);
    assert.throws(() => parseDuration("5 m"), RangeError);
    assert.throws(() => parseDuration(""), RangeError);
  });
});

describe("formatDuration", () => {
  test("leaves out the units that are zero", () => {
    assert.equal(formatDuration(5_400_000), "1h 30m");
    assert.equal(formatDuration(86_400_000 + 1_000), "1d 1s");
  });

  test("writes zero as 0s", () => {
    assert.equal(formatDuration(0), "0s");
  });
});
