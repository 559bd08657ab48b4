// End to end: `rungrad score` against our built rgref twin, with the fixtures of Go's rgref conformance test: 100%.

import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { rungrad } from "./helpers.js";

const RGREF = fileURLToPath(new URL("../../../examples/rgref/rgref", import.meta.url));
const FLAGS = [
  ["--read", "item list"],
  ["--mutate", "item create demo"],
  ["--auth", "whoami"],
  ["--ambiguous", "item get dup"],
  ["--not-found", "item get ghost"],
  ["--api-error", "item get broken"],
  ["--forbidden", "item get forbidden"],
  ["--rate-limited", "item get throttled"],
  ["--destructive", "item delete alpha"],
  ["--secret", "whoami"],
  ["--secret-env", "RGREF_TOKEN"],
].flat();

test("rungrad score --strict scores the rgref twin 22/22 with its manifest", async () => {
  const [json, text] = await Promise.all([
    rungrad(["score", RGREF, ...FLAGS, "--update", "--strict", "--json"]),
    rungrad(["score", RGREF, ...FLAGS, "--update", "--strict"]),
  ]);
  assert.equal(json.stderr, "");
  assert.equal(json.code, 0);
  const score = JSON.parse(json.stdout) as { overall: number; passed: number; applicable: number; manifest: { status: string; tool_name: string; used_rule_count: number }; rules: Array<{ id: string; result: string; reason: string }> };
  const failed = score.rules.filter((r) => r.result !== "pass").map((r) => `${r.id}: ${r.reason}`);
  assert.deepEqual(failed, []);
  assert.deepEqual([score.overall, score.passed, score.applicable], [1, 22, 22]);
  assert.deepEqual([score.manifest.status, score.manifest.tool_name, score.manifest.used_rule_count], ["present", "rgref", 21]);
  assert.equal(text.code, 0);
  assert.match(text.stdout, /^Overall: 100% weighted \(22\/22 applicable rules passed, 22 total rules\)\nManifest: present \(rungrad-manifest\/1, rgref v0\.3\.2, 8 commands\)\nManifest-backed: 21 rules used manifest data\n/m);
});
