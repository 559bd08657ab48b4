// The generated reference pages (docs/reference/) are what `npm run docs` makes from the built programs today.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, run } from "./e2e/helpers.js";
import { EXIT_CODES, exitCodeOf } from "../src/transports/errors.js";

test("docs/reference is up to date with the command trees and the error-code table (else: run npm run docs)", async () => {
  const r = await run(process.execPath, [join(REPO, "scripts/docs.mjs"), "--check"]);
  assert.equal(r.stderr, "", "run npm run docs, and commit docs/reference");
  assert.equal(r.code, 0, "run npm run docs, and commit docs/reference");
});

test("docs/reference/error-codes.md gives every machine code the exit code hcp uses for it", () => {
  const text = readFileSync(join(REPO, "docs/reference/error-codes.md"), "utf8");
  const rows = [...text.matchAll(/^\| `([a-z_]+)` \| (\d+) \|$/gm)].map((m) => [m[1]!, Number(m[2])] as const);
  assert.equal(rows.length, Object.keys(EXIT_CODES).length);
  for (const [code, exit] of rows) assert.equal(exitCodeOf(code), exit, code);
});
