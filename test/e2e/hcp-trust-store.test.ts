// Trust records under concurrency: several people (or one, in several terminals) trusting packs at once, and
// revoking them, never lose or bring back a record: each pack has its own record file, written atomically.

import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, run, asAgentInThisFile } from "./helpers.js";
import { agentPack, recorded, scene } from "./trust-support.js";

// These tests exercise the trust gate itself: every hcp run here is the agent's alone; a test trusts a pack where a person would.
asAgentInThisFile();

/** A node process that trusts each pack in turn, through the runtime's own trustPack (what `hcp trust` calls on y). */
const trustLoop = (packs: readonly string[], env: NodeJS.ProcessEnv) =>
  run(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { loadPack } from ${JSON.stringify(`${REPO}dist/src/pack/load.js`)};
       import { stateDirOf } from ${JSON.stringify(`${REPO}dist/src/runtime/approval/state.js`)};
       import { trustPack } from ${JSON.stringify(`${REPO}dist/src/runtime/trust/trust.js`)};
       const packs = ${JSON.stringify(packs)}.map((p) => loadPack(p));
       for (const p of packs) trustPack(p, stateDirOf(process.env));`,
    ],
    { env, timeoutMs: 120_000 },
  );

test("several hcp trust at once, at their own terminals: every record is kept and every pack runs", async () => {
  const s = scene();
  const roots = Array.from({ length: 4 }, (_, i) => agentPack(join(s.ws, `p${i}`), join(s.ws, `w${i}.log`), undefined, `p${i}`));
  const answers = await Promise.all(roots.map((root) => s.onTerminal(["trust", root], "[y/N]", "y")));
  for (const a of answers) assert.equal(a.code, 0, a.stdout);
  assert.equal(recorded(s), roots.length);
  for (const root of roots) assert.equal((await s.hcp(["run", root, "dump"])).code, 0, root);
  const list = JSON.parse((await s.hcp(["trust", "--list", "--json"])).stdout) as { packs: { root: string; matches: boolean }[] };
  assert.deepEqual(list.packs.map((p) => [p.root, p.matches]), roots.map((r) => [r, true]).sort());
});

test("processes trusting packs at once, and revoking one meanwhile, never lose a record nor bring the revoked one back", async () => {
  const s = scene();
  // Six processes, each trusting 30 packs of its own once: a record lost by any of them stays lost.
  const sets = Array.from({ length: 6 }, (_, i) => Array.from({ length: 30 }, (__, j) => agentPack(join(s.ws, `p${i}-${j}`), join(s.ws, "w.log"), undefined, `p${i}-${j}`)));
  const revoked = agentPack(join(s.ws, "gone"), join(s.ws, "gone.log"), undefined, "gone");
  assert.equal((await trustLoop([revoked], s.env)).code, 0);
  const [loops, revoke] = await Promise.all([Promise.all(sets.map((packs) => trustLoop(packs, s.env))), s.hcp(["trust", "--revoke", revoked])]);
  for (const l of loops) assert.equal(l.code, 0, l.stderr);
  assert.equal(revoke.code, 0, revoke.stderr);
  assert.equal(recorded(s), 6 * 30, "every pack trusted is recorded, the revoked one is not");
  for (const root of [sets[0]![0]!, sets[5]![29]!]) assert.equal((await s.hcp(["run", root, "dump"])).code, 0, root);
  const gone = await s.hcp(["run", revoked, "dump"]);
  assert.equal(gone.code, 4);
  assert.match(gone.stderr, /a person has never trusted it/);
});
