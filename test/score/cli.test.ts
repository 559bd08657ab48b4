// `rungrad score` usage errors (§e): exact texts on stderr, exit 1, nothing on stdout; PATH lookup of a bare name.

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, rungrad } from "../e2e/helpers.js";
import { TARGETS } from "./support.js";

const TIE = join(TARGETS, "tie");

async function usageError(args: string[], message: string): Promise<void> {
  const r = await rungrad(["score", ...args]);
  assert.deepEqual([r.code, r.stdout, r.stderr], [1, "", `Error: ${message}\n`], args.join(" "));
}

test("score: target errors with Go's texts", async () => {
  await usageError(["/tmp/does/not/exist"], "target is not executable: /tmp/does/not/exist");
  await usageError([" "], "target path is required");
  await usageError([TARGETS], `target is a directory: ${TARGETS}`);
  const plainFile = fixture("examples/rungrad/conformance_score.json");
  await usageError([plainFile], `target is not executable: ${plainFile}`);
  await usageError(["no-such-program-on-path-xyz"], "target is not executable: no-such-program-on-path-xyz");
});

test("score: manifest mode errors; a bad target wins over a bad mode", async () => {
  await usageError([TIE, "--manifest", "bogus"], 'unknown manifest mode "bogus" (want auto, off, or required)');
  await usageError(["/tmp/does/not/exist", "--manifest", "bogus"], "target is not executable: /tmp/does/not/exist");
  await usageError(
    [TIE, "--read", "list", "--manifest", "required"],
    'manifest required but discovery reported status "missing": manifest endpoint not found: exit 1 with no manifest JSON on stdout',
  );
  const json = await rungrad(["score", TIE, "--manifest", "required", "--json"]);
  assert.equal(json.stdout, "");
  assert.equal(json.code, 1);
  assert.deepEqual(JSON.parse(json.stderr), {
    error: 'manifest required but discovery reported status "missing": manifest endpoint not found: exit 1 with no manifest JSON on stdout',
    exit_code: 1,
  });
});

test("score: exactly one target; a bare name is looked up on PATH; --manifest off skips discovery", async () => {
  const none = await rungrad(["score"]);
  assert.deepEqual([none.code, none.stdout, none.stderr], [1, "", "Error: accepts 1 arg(s), received 0\n"]);
  const r = await rungrad(["score", "tie", "--auth", "whoami", "--manifest", "off"], { env: { ...process.env, PATH: `${TARGETS}:${process.env["PATH"]}` } });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Manifest: disabled \(manifest discovery disabled\)$/m);
  assert.match(r.stdout, /^ {2}\[PASS\] exit\.missing-credential-auth missing credential exited 3$/m);
});
