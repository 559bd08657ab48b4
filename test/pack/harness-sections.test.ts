import assert from "node:assert/strict";
import { test } from "node:test";
import { verbSections } from "../../src/pack/harness-sections.js";

test("verbSections: each `### \\`verb\\`` heading, its marks when in parentheses, its text to the next heading of level 1 to 3", () => {
  const text = "# T\n\n### `a.b` (write, needs a person's approval)\n\nA.\n#### deeper\nstill a\n## Next\n### `c` free words\nC.\n";
  const sections = verbSections(text);
  assert.deepEqual(
    sections.map((s) => ({ key: s.key, marks: s.marks, text: text.slice(s.start, s.end) })),
    [
      { key: "a.b", marks: ["write", "needs a person's approval"], text: "### `a.b` (write, needs a person's approval)\n\nA.\n#### deeper\nstill a\n" },
      { key: "c", marks: null, text: "### `c` free words\nC.\n" },
    ],
  );
});
