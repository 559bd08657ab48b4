// The result's `json` (§6.5): a run's stdout parsed when it is exactly one JSON value, of any kind; absent otherwise.

import { test } from "node:test";
import assert from "node:assert/strict";
import { compactJSON } from "../../src/json/stable.js";
import { loadPack } from "../../src/pack/load.js";
import { executeVerb, isDryRun } from "../../src/runtime/execute.js";
import { BASE_ENV, writePack } from "./support.js";

const pack = loadPack(
  writePack(
    {
      id: "say",
      kind: "wrap",
      cliBin: "printf",
      binding: { mode: "local", hub: "none" },
      wrap: { bin: "/usr/bin/printf" },
      verbs: {
        say: {
          description: "Prints its text as is.",
          cli: ["printf", "%s", "{{text}}"],
          args: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false },
        },
      },
    },
    { surface_id: "say", default: "deny", verbs: { say: "read" } },
  ),
);

test("stdout that is one JSON value of any kind becomes json; anything else leaves it out", async () => {
  assert.ok(pack.ok, JSON.stringify(pack.ok ? [] : pack.issues));
  const cases: [string, unknown][] = [
    [" \n\t-12\n", -12],
    ["0.5", 0.5],
    ["true", true],
    ["false", false],
    ["null", null],
    ['"text"', "text"],
    ["[1, 2]", [1, 2]],
    ['\r\n{"a": {"b": 9007199254740993}}', undefined], // the big number is kept as its literal: checked below
    ["hello", undefined],
    ["{", undefined],
    ["12 13", undefined],
    ["nothing", undefined],
    ["", undefined],
  ];
  for (const [text, expected] of cases) {
    const r = await executeVerb(pack, "say", { text }, { env: BASE_ENV });
    assert.ok(!isDryRun(r) && "stdout" in r);
    assert.equal(r.stdout, text);
    if (text.includes("9007199254740993")) {
      assert.equal(compactJSON(r.json), '{"a":{"b":9007199254740993}}', text);
      continue;
    }
    assert.equal("json" in r, expected !== undefined, JSON.stringify(text));
    if (expected !== undefined) assert.deepEqual(r.json, expected, JSON.stringify(text));
  }
});
