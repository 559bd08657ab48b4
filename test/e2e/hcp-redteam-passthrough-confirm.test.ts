// The agent writes hcp run's command line: a plan_id given to a pass-through, which takes no confirmation, is refused
// as on a verb that needs none, never ignored (the caller would believe the id's plan ran, checked). Spawns the
// built hcp; the pack's program appends each real run to a witness file.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { isolatedEnv, recordingPackFolder } from "./hardening.js";
import { hcp } from "../transports/support.js";

/** A wrap pack whose pass-through allows `hello` (read, or write) and whose program records each run. */
function passThroughPack(policy: "read" | "write"): { pack: string; runs: () => string[] } {
  const { dir, runs } = recordingPackFolder("pt");
  const surface = {
    id: "pt",
    kind: "wrap",
    wrap: { bin: "./tool.sh" },
    binding: { mode: "local", hub: "none" },
    verbs: { hello: { description: "Hello.", cli: ["tool", "hello"] } },
    pass_through: { allowedSubcommands: ["hello"], maxArgv: 4 },
  };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "pt", verbs: { hello: "read" }, pass_through: policy }));
  return { pack: dir, runs };
}

test("hcp run: a plan_id given to a pass-through (which takes no confirmation) is refused, not ignored; nothing runs", async () => {
  const env = isolatedEnv();
  for (const policy of ["read", "write"] as const) {
    const w = passThroughPack(policy);
    const r = await hcp(["run", w.pack, "--allow-write", "--confirm", "a-plan-id", "--", "hello", "world"], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /pass-through of pack "pt" needs no confirmation, so a confirm \(plan_id\) is not taken: call it again without confirm; nothing was run/);
    assert.deepEqual(w.runs(), [], `${policy}: nothing ran`);
    // Without it, it runs: the refusal was about the confirm alone.
    const ok = await hcp(["run", w.pack, "--allow-write", "--", "hello", "world"], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(w.runs(), ["hello world"]);
  }
});
