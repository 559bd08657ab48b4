// Every case of conformance_score.json through the built `rungrad score`: JSON and text bytes, exit codes, --strict errors.

import { test } from "node:test";
import assert from "node:assert/strict";
import { stableJSON } from "../../src/json/stable.js";
import { rungrad } from "../e2e/helpers.js";
import { EXAMPLES, scoreArgs, type ScoreCase } from "./support.js";

/** The stderr the framework renders for a usage error: human, or the machine-mode body. */
const errorText = (msg: string, json: boolean) => (json ? stableJSON({ error: msg, exit_code: 1 }) : `Error: ${msg}\n`);

async function check(c: ScoreCase, json: boolean): Promise<void> {
  const label = `${c.name}${json ? " --json" : ""}`;
  const r = await rungrad(json ? [...scoreArgs(c), "--json"] : scoreArgs(c));
  if (c.expect_error !== undefined) {
    assert.equal(r.stdout, "", label);
    assert.equal(r.stderr, errorText(c.expect_error, json), label);
    assert.equal(r.code, 1, label);
    return;
  }
  const expected = json ? c.expect_score_json : c.expect_report;
  if (expected !== undefined) assert.equal(r.stdout, expected, label);
  // Our one addition to Go's output: without any probe, a person (not --json) is told how little was scored.
  const bare = Object.keys(c.target).every((k) => k === "ManifestMode");
  const applicable = (JSON.parse(c.expect_score_json!) as { applicable: number; total: number });
  const warning = bare && !json ? `Warning: no probe given: only ${applicable.applicable} of ${applicable.total} rules applied; give probes (--read, --mutate, …) or use --auto-probes\n` : "";
  assert.equal(r.stderr, warning + (c.expect_strict_error !== undefined ? errorText(c.expect_strict_error, json) : ""), label);
  assert.equal(r.code, c.expect_exit, label);
}

for (const c of EXAMPLES.cases) {
  test(`conformance_score.json: ${c.name}`, async () => {
    await Promise.all([check(c, true), check(c, false)]);
  });
}
