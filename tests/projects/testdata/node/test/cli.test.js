import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../bin/textkit.js", import.meta.url));

function textkit(...args) {
  return spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
}

test("slug prints the slug of its arguments", () => {
  const run = textkit("slug", "Release", "notes");
  assert.equal(run.status, 0);
  assert.equal(run.stdout, "release-notes\n");
});

test("duration normalizes its argument", () => {
  assert.equal(textkit("duration", "90m").stdout, "1h 30m\n");
});

test("an unknown command prints the usage and exits 2", () => {
  const run = textkit("frobnicate");
  assert.equal(run.status, 2);
  assert.match(run.stderr, /^usage: textkit/);
});
