// A pack generated from rungrad itself (`hcp init --from-exe rungrad`): a verb that runs a program the agent names
// (score's target, --from-exe) is never a plain read. Served to an agent, it runs nothing without a person's approval.
// Likewise a pack generated from hcp itself: its run, exec and serve run other packs' verbs, init runs a program, and
// credentials get prints a secret.

import assert from "node:assert/strict";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { RUNGRAD, rungrad } from "./helpers.js";
import { isolatedEnv } from "./hardening.js";
import { HCP, hcp, mcpClient, tempDir } from "../transports/support.js";

type Text = { type: string; text: string }[];

/** A program that appends a line to `log` each time it really runs: the witness. */
function witness(): { program: string; log: string; runs: () => number } {
  const dir = tempDir("hcp-witness-");
  const log = join(dir, "ran.log");
  writeFileSync(log, "");
  const program = join(dir, "agent-program");
  writeFileSync(program, `#!/bin/sh\necho ran >> '${log}'\n`);
  chmodSync(program, 0o755);
  return { program, log, runs: () => readFileSync(log, "utf8").split("\n").filter((l) => l !== "").length };
}

test("rungrad's own manifest: score, agentmeta and skill run a program they are given, so each is destructive and asks for confirmation", async () => {
  const r = await rungrad(["__rungrad_manifest"]);
  assert.equal(r.code, 0, r.stderr);
  const commands = (JSON.parse(r.stdout) as { commands: { path: string[]; mutates: boolean; destructive: boolean; requires_confirmation: boolean }[] }).commands;
  const flags = (path: string) => commands.find((c) => c.path.join(" ") === path)!;
  for (const path of ["score", "agentmeta", "skill"]) {
    assert.deepEqual([flags(path).mutates, flags(path).destructive, flags(path).requires_confirmation], [true, true, true], path);
  }
  assert.equal(flags("manifest validate").mutates, false, "a command that only reads a file stays a read");
});

test("a pack generated from rungrad: the agent cannot run score (or agentmeta --from-exe) on its own program without a person's approval; the witness stays empty", async () => {
  const env = isolatedEnv();
  const w = witness();
  // The witness is a real witness: rungrad score run by a person runs it.
  const direct = await rungrad(["score", w.program], { env });
  assert.ok(w.runs() > 0, `rungrad score runs its target: ${direct.stderr}`);
  writeFileSync(w.log, "");

  const pack = join(tempDir(), "rungrad");
  const init = await hcp(["init", "--from-exe", RUNGRAD, "--out", pack], { env });
  assert.equal(init.code, 0, init.stderr);
  const policy = JSON.parse(readFileSync(join(pack, "policy.json"), "utf8")) as { verbs: Record<string, unknown> };
  for (const verb of ["score", "agentmeta", "skill"]) assert.deepEqual(policy.verbs[verb], { policy: "write", confirm: true }, verb);
  assert.match(readFileSync(join(pack, "HARNESS.md"), "utf8"), /^### `score` \(write, needs a person's approval\)$/m);

  // Served read-only (no --allow-write): a write verb does not run.
  const ro = await mcpClient([pack], { env });
  try {
    const r = await ro.client.callTool({ name: "rungrad_score", arguments: { target: w.program, auto_probes: true } });
    assert.equal(r.isError, true, JSON.stringify(r.content));
  } finally {
    await ro.client.close();
  }
  // Writes allowed: each call is refused for want of a person's approval, with its dry run's id or without.
  const rw = await mcpClient([pack], { env, allowWrite: true });
  try {
    for (const [tool, args] of [
      ["rungrad_score", { target: w.program, auto_probes: true }],
      ["rungrad_agentmeta", { from_exe: w.program }],
      ["rungrad_skill", { from_exe: w.program, out: tempDir() }],
    ] as const) {
      const refused = await rw.client.callTool({ name: tool, arguments: args });
      assert.equal(refused.isError, true, `${tool}: ${JSON.stringify(refused.content)}`);
      assert.match((refused.content as Text)[0]!.text, /hcp approve /, tool);
      const dry = await rw.client.callTool({ name: tool, arguments: { ...args, dry_run: true } });
      const id = /"plan_id":\s*"([^"]+)"/.exec(JSON.stringify(dry.structuredContent))?.[1];
      assert.ok(id !== undefined, JSON.stringify(dry.structuredContent));
      const confirmed = await rw.client.callTool({ name: tool, arguments: { ...args, confirm: id } });
      assert.equal(confirmed.isError, true, `${tool} with its own plan id: ${JSON.stringify(confirmed.content)}`);
    }
  } finally {
    await rw.client.close();
  }
  // And over hcp exec.
  const exec = await hcp(["exec", pack, "--allow-write"], { env, stdin: `${JSON.stringify({ id: 1, pack: "rungrad", verb: "score", args: { target: w.program } })}\n` });
  assert.match(exec.stdout, /"ok":false/);
  assert.equal(w.runs(), 0, "the agent's program never ran");
});

test("rungrad score --dry-run and agentmeta --from-exe --dry-run say what they would run and run nothing", async () => {
  const w = witness();
  const score = await rungrad(["score", w.program, "--dry-run", "--json"]);
  assert.equal(score.code, 0, score.stderr);
  assert.deepEqual(JSON.parse(score.stdout), { dry_run: true, would_run: [w.program] });
  const meta = await rungrad(["agentmeta", "--from-exe", w.program, "--dry-run"]);
  assert.equal(meta.code, 0, meta.stderr);
  assert.equal(meta.stdout, `DRY RUN: would run ${JSON.stringify(w.program)} "__rungrad_manifest" (to read its manifest)\n`);
  assert.equal(w.runs(), 0);
});

test("a pack generated from hcp: the agent cannot run a pack of its own through exec, serve, run or init, nor read a stored credential, without a person's approval; the witness stays empty", async () => {
  const env = isolatedEnv();
  const w = witness();
  // The agent's pack: its one read verb runs the witness. hcp exec, run by a person, runs it without asking.
  const evil = tempDir("hcp-agent-pack-");
  writeFileSync(join(evil, "surface.json"), JSON.stringify({ id: "evil", kind: "wrap", wrap: { bin: w.program }, verbs: { go: { description: "Go.", cli: ["go"], policy: "read" } } }));
  writeFileSync(join(evil, "HARNESS.md"), "---\nname: evil\ndescription: Evil.\n---\n\nEvil.\n");
  const request = `${JSON.stringify({ id: 1, pack: "evil", verb: "go", args: {} })}\n`;
  await hcp(["exec", evil], { env, stdin: request });
  assert.equal(w.runs(), 1, "the witness is a real witness: hcp exec of the agent's pack runs it");
  writeFileSync(w.log, "");

  const pack = join(tempDir(), "hcp");
  const init = await hcp(["init", "--from-exe", HCP, "--out", pack], { env });
  assert.equal(init.code, 0, init.stderr);
  const policy = JSON.parse(readFileSync(join(pack, "policy.json"), "utf8")) as { verbs: Record<string, unknown> };
  const gated = ["run", "exec", "serve", "init", "credentials.get", "credentials.set", "credentials.delete"];
  for (const verb of gated) assert.deepEqual(policy.verbs[verb], { policy: "write", confirm: true }, verb);
  for (const verb of ["describe", "list", "validate"]) assert.equal(policy.verbs[verb], "read", verb);
  // hcp run's --confirm takes a plan id: the generated argv never passes it bare.
  const surface = JSON.parse(readFileSync(join(pack, "surface.json"), "utf8")) as { verbs: Record<string, { cli: string[] }> };
  assert.ok(!surface.verbs["run"]!.cli.includes("--confirm"), surface.verbs["run"]!.cli.join(" "));

  const attempts: [string, Record<string, unknown>][] = [
    ["exec", { packs: [evil], allow_write: true }],
    ["run", { pack: evil, _verb: "go" }],
    ["serve", { packs: [evil], mcp: true }],
    ["init", { from_exe: w.program, out: tempDir() }],
    ["credentials.get", { family: "bank", name: "TOKEN", reveal: true }],
  ];
  // Read-only, then with writes allowed: each is refused for want of a person's approval, over MCP and hcp exec.
  for (const allowWrite of [false, true]) {
    const { client } = await mcpClient([pack], { env, allowWrite });
    try {
      for (const [verb, args] of attempts) {
        const r = await client.callTool({ name: `hcp_${verb.replace(".", "_")}`, arguments: args });
        assert.equal(r.isError, true, `${verb}: ${JSON.stringify(r.content)}`);
        if (allowWrite) assert.match((r.content as Text)[0]!.text, /hcp approve /, verb);
      }
    } finally {
      await client.close();
    }
  }
  const lines = attempts.map(([verb, args], i) => JSON.stringify({ id: i, pack: "hcp", verb, args, stdin: request })).join("\n");
  const exec = await hcp(["exec", pack, "--allow-write"], { env, stdin: `${lines}\n` });
  const answers = exec.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { ok: boolean; error?: { code: string } });
  assert.deepEqual(answers.map((a) => [a.ok, a.error?.code]), attempts.map(() => [false, "approval_required"]));
  assert.equal(w.runs(), 0, "the agent's program never ran");
});

test("a pack generated from hcp passes hcp's places to the hcp its verbs run: approve --list and audit through it read the serving hcp's state and audit log", async () => {
  // The person's places are not the defaults under HOME: state, configuration, credentials and audit log of their own.
  const env = isolatedEnv();
  const pack = join(tempDir(), "hcp");
  assert.equal((await hcp(["init", "--from-exe", HCP, "--out", pack], { env })).code, 0);
  const policy = JSON.parse(readFileSync(join(pack, "policy.json"), "utf8")) as { env?: string[] };
  assert.deepEqual(policy.env, ["HCP_CREDENTIALS", "HCP_AUDIT", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HCP_AGENT_FOLDERS"]);
  const other = tempDir("hcp-no-places-");
  for (const file of ["surface.json", "HARNESS.md"]) writeFileSync(join(other, file), readFileSync(join(pack, file)));
  writeFileSync(join(other, "policy.json"), JSON.stringify({ ...policy, env: undefined }));

  const evil = tempDir("hcp-agent-pack-");
  writeFileSync(join(evil, "surface.json"), JSON.stringify({ id: "evil", kind: "wrap", wrap: { bin: "/bin/true" }, verbs: { go: { description: "Go.", cli: ["go"], policy: "read" } } }));
  writeFileSync(join(evil, "HARNESS.md"), "---\nname: evil\ndescription: Evil.\n---\n\nEvil.\n");
  type Answer = { id: number; result: { plan_id?: string; stdout: string } };
  // The answers in the order asked (hcp exec answers each as it ends).
  const ask = async (root: string, requests: object[]) => {
    const r = await hcp(["exec", root, "--allow-write"], { env, stdin: requests.map((q, id) => JSON.stringify({ id, pack: "hcp", ...q }) + "\n").join("") });
    return r.stdout.trim().split("\n").map((l) => JSON.parse(l) as Answer).sort((a, b) => a.id - b.id);
  };
  const outputOf = (a: Answer | undefined) => JSON.parse(a!.result.stdout) as { pending?: { plan_id: string }[]; entries?: unknown[] };
  // The agent's dry run of hcp run leaves a plan waiting for the person, in the person's state.
  const [dry] = await ask(pack, [{ verb: "run", args: { pack: evil, _verb: "go" }, dry_run: true }]);
  const planId = dry!.result.plan_id;
  assert.ok(planId, JSON.stringify(dry));

  const listed = await ask(pack, [{ verb: "approve", args: { list: true } }, { verb: "audit", args: {} }]);
  assert.deepEqual(outputOf(listed[0]).pending!.map((p) => p.plan_id), [planId], "approve --list through the pack reads the person's state");
  assert.ok(outputOf(listed[1]).entries!.length > 0, "audit through the pack reads the person's audit log");
  // Without the places, the hcp the verbs run looks under HOME, where nothing is, and a listing makes nothing there.
  const blind = await ask(other, [{ verb: "approve", args: { list: true } }, { verb: "audit", args: {} }]);
  assert.deepEqual(outputOf(blind[0]).pending, []);
  assert.deepEqual(outputOf(blind[1]).entries ?? [], []);
  assert.equal(existsSync(join(env["HOME"]!, ".local", "state", "hcp", "key")), false);
});
