// The pack's author, or a careless policy: a pass-through that allows `remote` runs `remote remove` and `remote
// set-url` too, whatever policy.json says of the verbs that run them. Such a policy.json is an error: the pack neither
// validates nor loads, so hcp run's pass-through runs nothing, and a review never tells the person a verb is denied
// or approved at each run while the pass-through runs it. Spawns the built hcp; the pack's program records each run.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { isolatedEnv, recordingPackFolder } from "./hardening.js";
import { hcp } from "../transports/support.js";

/**
 * Writes the wrap pack `id` into `dir`, whose tool.sh it runs: a pass-through allowing `allowed`, `verbs`, `policy` as
 * its policy.json (beside surface_id), and `wrap`'s more fields (an argv_template).
 */
function writeWrapPack(dir: string, id: string, allowed: string[], verbs: Record<string, unknown>, policy: Record<string, unknown>, wrap: Record<string, unknown> = {}): void {
  const surface = { id, kind: "wrap", wrap: { bin: "./tool.sh", ...wrap }, binding: { mode: "local", hub: "none" }, pass_through: { allowedSubcommands: allowed, maxArgv: 6 }, verbs };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(dir, "HARNESS.md"), `---\nname: ${id}\ndescription: A ${id} tool.\n---\n\nA ${id} tool.\n`);
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: id, ...policy }));
}

/** A git-like wrap pack whose pass-through allows `remote`, with the verbs under `remote` given `verbs` by policy.json. */
function remotePack(passThrough: string, verbs: Record<string, unknown>): { pack: string; runs: () => string[] } {
  const { dir, runs } = recordingPackFolder("gitlike");
  const gitVerbs = {
    "remote.list": { description: "List remotes.", cli: ["git", "remote", "-v"] },
    "remote.remove": { description: "Remove a remote.", cli: ["git", "remote", "remove", "{{name}}"] },
    "remote.set-url": { description: "Change a remote's URL.", cli: ["git", "--no-pager", "remote", "set-url", "{{name}}", "{{url}}"] },
    status: { description: "Show the status.", cli: ["git", "status"] },
    push: { description: "Push.", cli: ["git", "push"] },
  };
  writeWrapPack(dir, "gitlike", ["remote", "status"], gitVerbs, { verbs: { "remote.list": "read", status: "read", push: "deny", ...verbs }, pass_through: passThrough });
  return { pack: dir, runs };
}

test("attack: a pass-through that reaches a verb policy.json denies, gives to a person, or holds to --allow-write is an error: the pack does not load and hcp run's pass-through runs nothing", async () => {
  const env = { ...isolatedEnv(), HCP_NO_PROMPT: "1" };
  const cases = [
    // A read pass-through of `remote`: a denied verb, and one a person approves (its subcommand after a flag).
    { passThrough: "read", verbs: { "remote.remove": "deny", "remote.set-url": { policy: "write", confirm: true } }, named: /"remote\.remove" \(denied\), "remote\.set-url" \(a person approves each run\)/ },
    // A read pass-through of a plain write: it would run without --allow-write.
    { passThrough: "read", verbs: { "remote.remove": "write", "remote.set-url": "read" }, named: /verb "remote\.remove" \(a write, run with --allow-write\)/ },
    // A write pass-through of a verb a person approves: --allow-write would run it without the person.
    { passThrough: "write", verbs: { "remote.remove": "write", "remote.set-url": { policy: "write", confirm: "person" } }, named: /verb "remote\.set-url" \(a person approves each run\)/ },
  ];
  for (const { passThrough, verbs, named } of cases) {
    const w = remotePack(passThrough, verbs);
    const v = await hcp(["validate", w.pack], { env });
    assert.equal(v.code, 1, v.stderr);
    assert.match(v.stdout + v.stderr, /policy\.json: pass_through: policy: pass_through "(read|write)" runs "remote" with any arguments the agent writes/);
    assert.match(v.stdout + v.stderr, named);
    for (const argv of [["remote", "remove", "origin"], ["remote", "set-url", "origin", "https://evil.example/x"]]) {
      const r = await hcp(["run", w.pack, "--allow-write", "--", ...argv], { env });
      assert.notEqual(r.code, 0, r.stderr);
      assert.match(r.stderr, /pass_through "(read|write)" runs "remote"/);
    }
    assert.deepEqual(w.runs(), [], `${passThrough} pass-through, ${JSON.stringify(verbs)}: nothing ran`);
  }
  // The same pass-through, every verb under `remote` and `status` no tighter than it (a denied push is out of its
  // reach): the pack loads and the pass-through runs.
  const loose = remotePack("read", { "remote.remove": "read", "remote.set-url": "read" });
  const ok = await hcp(["run", loose.pack, "--", "remote", "-v"], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(loose.runs(), ["remote -v"]);
  const push = await hcp(["run", loose.pack, "--", "push"], { env });
  assert.notEqual(push.code, 0);
  assert.deepEqual(loose.runs(), ["remote -v"], "push is no allowed subcommand");
  // Denying a verb of another allowed subcommand is the same error.
  const status = remotePack("read", { "remote.remove": "read", "remote.set-url": "read", status: "deny" });
  const denied = await hcp(["validate", status.pack], { env });
  assert.equal(denied.code, 1);
  assert.match(denied.stdout + denied.stderr, /runs "status" with any arguments the agent writes, so it would run verb "status" \(denied\)/);
});

test("attack: a pass-through reaches a verb whose command names its subcommand after a flag's value, through a placeholder, or through wrap.argv_template (no cli of its own), and every verb when it allows a flag (--no-pager, then any subcommand): each such policy.json is an error too, and the pass-through runs nothing", async () => {
  const env = { ...isolatedEnv(), HCP_NO_PROMPT: "1" };
  const shapes: { verb: Record<string, unknown>; key: string; template?: string[]; allowed?: string[] }[] = [
    // No cli: the default argv_template runs `tool remote …` for the verb `remote`.
    { key: "remote", verb: { description: "Manage remotes." } },
    // The subcommand after a flag whose value is a token of its own (git -c, git -C, kubectl --context).
    { key: "remote.remove", verb: { description: "Remove a remote.", cli: ["git", "-c", "core.pager=cat", "remote", "remove", "{{name}}"] } },
    // A placeholder where the subcommand stands: any allowed subcommand may be it.
    { key: "remote.remove", verb: { description: "Remove a remote.", cli: ["git", "{{sub}}", "remove", "origin"] } },
    // No cli, a template whose {{verb}} follows a flag: `--no-pager remote remove {{name}}`.
    { key: "remote.remove", verb: { description: "Remove a remote." }, template: ["--no-pager", "{{verb}}", "{{name}}"] },
    // A flag allowed as a subcommand: `-- --no-pager remote remove origin`, any subcommand after it.
    { key: "remote.remove", verb: { description: "Remove a remote.", cli: ["git", "remote", "remove", "{{name}}"] }, allowed: ["status", "--no-pager"] },
  ];
  for (const [n, shape] of shapes.entries()) {
    const { dir, runs } = recordingPackFolder(`shape${n}`);
    const verbs = { status: { description: "Show the status.", cli: ["git", "status"] }, [shape.key]: shape.verb };
    const wrap = shape.template === undefined ? {} : { argv_template: shape.template };
    writeWrapPack(dir, "gitlike", shape.allowed ?? ["remote", "status"], verbs, { verbs: { status: "read", [shape.key]: "deny" }, pass_through: "read" }, wrap);
    const v = await hcp(["validate", dir], { env });
    assert.equal(v.code, 1, `shape ${n}: ${v.stdout}`);
    assert.match(v.stdout + v.stderr, new RegExp(`pass_through "read" runs .* with any arguments the agent writes.*"${shape.key.replace(".", "\\.")}" \\(denied\\)`), `shape ${n}`);
    for (const argv of [["remote", "remove", "origin"], ["--no-pager", "remote", "remove", "origin"]]) {
      const r = await hcp(["run", dir, "--", ...argv], { env });
      assert.notEqual(r.code, 0, r.stderr);
    }
    assert.deepEqual(runs(), [], `shape ${n}: nothing ran`);
  }
});

test("a verb whose command sets a flag's value by a placeholder before its subcommand (kubectl --namespace={{ns}} delete) is not taken for one the pass-through reaches: a pass-through of get and describe loads beside it", async () => {
  const { dir } = recordingPackFolder("kubelike");
  const verbs = {
    get: { description: "Get pods.", cli: ["kubectl", "get", "pods"] },
    delete: { description: "Delete a pod.", cli: ["kubectl", "--namespace={{ns}}", "delete", "pod", "{{pod}}"] },
  };
  writeWrapPack(dir, "kubelike", ["get", "describe"], verbs, { verbs: { get: "read", delete: { policy: "write", confirm: true } }, pass_through: "read" });
  const v = await hcp(["validate", dir], { env: isolatedEnv() });
  assert.equal(v.code, 0, v.stdout);
  assert.match(v.stdout, /1 pack: 1 valid, 0 invalid; 0 errors/);
});
