// What hcp tells a person and an agent: `hcp describe`, validate on a named file, streamed output of `hcp run`,
// big integers kept exact in every JSON result.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixture, trustBeforeRun } from "./helpers.js";
import { PROBE, isolatedEnv, probePack } from "./hardening.js";
import { HCP, PROBE_PACK, execSession, hcp, tempDir } from "../transports/support.js";

const TASKR = fixture("manifests/taskr.json");

async function taskrPack(): Promise<string> {
  const pack = join(tempDir(), "taskr");
  const r = await hcp(["init", "--from-manifest", TASKR, "--bin", PROBE, "--out", pack], { env: isolatedEnv() });
  assert.equal(r.code, 0, r.stderr);
  return pack;
}

test("hcp describe: each verb's arguments, policy, approval and argv template; one verb; an unknown verb is exit 5", async () => {
  const pack = await taskrPack();
  const env = isolatedEnv();
  const one = await hcp(["describe", pack, "task.list", "--json"], { env });
  assert.equal(one.code, 0, one.stderr);
  const d = JSON.parse(one.stdout) as { pack: string; verbs: { verb: string; policy: string; approval: string; argv_template: string[]; arguments: unknown[] }[] };
  assert.equal(d.pack, "taskr");
  assert.equal(d.verbs.length, 1);
  assert.deepEqual(d.verbs[0], {
    verb: "task.list",
    tool: "taskr_task_list",
    description: "List tasks",
    policy: "read",
    approval: "none",
    argv_template: ["taskr", "task", "list", "--json", "--no-prompt", "--assignee={{assignee}}", "--limit={{limit}}", "--state={{state}}", "--tag={{tag}}", "--", "{{project}}"],
    arguments: [
      { name: "project", type: "string", required: false },
      { name: "assignee", type: "string", required: false, description: "Only tasks assigned to this user" },
      { name: "limit", type: "integer", required: false, description: "Most tasks to list", default: 20 },
      { name: "state", type: "string", required: false, description: "Task state: open, done or all", default: "open" },
      { name: "tag", type: "array of string", required: false, description: "Only tasks with this tag (repeatable)" },
    ],
  });
  const all = await hcp(["describe", pack], { env });
  assert.equal(all.code, 0);
  assert.match(all.stdout, /^task\.comment\.delete \(write, needs a person's approval\); MCP tool taskr_task_comment_delete$/m);
  assert.match(all.stdout, /^ {4}completion \(string, optional, one of "bash", "zsh", "fish"\)$/m);
  assert.match(all.stdout, /^ {2}runs: taskr update --check --json --no-prompt$/m);
  const unknown = await hcp(["describe", pack, "nope"], { env });
  assert.equal(unknown.code, 5);
  assert.match(unknown.stderr, /pack "taskr" has no verb "nope" \(verbs: completion, /);
});

test("a verb whose run needs its plan_id restated is worded alike by hcp describe, hcp list, a dry run and the HARNESS.md heading hcp validate expects, never as a person's approval", async () => {
  const pack = await taskrPack();
  const env = isolatedEnv();
  const policyFile = join(pack, "policy.json");
  const policy = JSON.parse(readFileSync(policyFile, "utf8")) as { verbs: Record<string, unknown> };
  policy.verbs["task.comment.delete"] = { policy: "write", confirm: "plan" };
  writeFileSync(policyFile, JSON.stringify(policy));
  const text = await hcp(["describe", pack], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^task\.comment\.delete \(write, needs its plan_id restated\); MCP tool taskr_task_comment_delete$/m);
  const json = await hcp(["describe", pack, "task.comment.delete", "--json"], { env });
  assert.equal(json.code, 0, json.stderr);
  assert.equal((JSON.parse(json.stdout) as { verbs: { approval: string }[] }).verbs[0]!.approval, "plan");
  const list = await hcp(["list", pack, "--allow-write"], { env });
  assert.match(list.stdout, /^ {2}task\.comment\.delete +write, needs its plan_id restated +Delete a comment$/m);
  const dry = await hcp(["run", pack, "task.comment.delete", "--arg", "comment_gid=1", "--dry-run"], { env });
  assert.match(dry.stdout, /^ {2}policy: +write, needs its plan_id restated; /m, dry.stdout + dry.stderr);
  // HARNESS.md still says a person approves: validate names the heading's words policy.json now means.
  const v = await hcp(["validate", pack], { env });
  assert.ok(v.stdout.includes(`HARNESS.md says verb "task.comment.delete" is "write, needs a person's approval", and policy.json makes it "write, needs its plan_id restated"`), v.stdout);
});

test("hcp validate FILE reports issues against that file; a rungrad manifest is pointed to hcp init --from-manifest", async () => {
  const dir = tempDir();
  const other = join(dir, "ledger-surface.json");
  copyFileSync(fixture("packs/hcp-invalid/surface.json"), other);
  const r = await hcp(["validate", other], { env: isolatedEnv(), cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^error: ledger-surface\.json: binding\.colour: binding: unknown field "colour" in binding$/m);
  assert.doesNotMatch(r.stdout, /(^|\/)surface\.json:/m);

  const m = await hcp(["validate", TASKR], { env: isolatedEnv() });
  assert.equal(m.code, 1);
  assert.equal(m.stdout.split("\n").filter((l) => l.includes("invalid_meta")).length, 1, "one issue, not one per manifest field");
  assert.match(m.stdout, /this is a rungrad manifest \(rungrad-manifest\/1\), not a pack's surface\.json: make a pack from it with hcp init --from-manifest .*taskr\.json --out <pack folder>/);
});

test("hcp run streams the child's output as it comes", async () => {
  // The child prints a line, then sleeps 20 s: the line must arrive while it sleeps.
  const env = isolatedEnv();
  await trustBeforeRun(HCP, ["run", PROBE_PACK], { env });
  const child = spawn(process.execPath, [HCP, "run", PROBE_PACK, "--", "run", "print:first line", "sleep:20000", "print:never"], { env });
  let out = "";
  child.stdout.setEncoding("utf8");
  await new Promise<void>((resolve) =>
    child.stdout.on("data", (c: string) => {
      out += c;
      if (out.includes("\n")) resolve();
    }),
  );
  assert.equal(child.exitCode, null, "hcp is still running");
  assert.equal(out, "first line\n");
  child.kill("SIGTERM");
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  assert.notEqual(code, 0);
  assert.ok(!out.includes("never"));
});

test("json keeps big-integer literals in hcp run --json and hcp exec; stdout stays the child's bytes", async () => {
  const root = probePack("big", { n: { description: "n", cli: ["probe", "run", 'print:{"id":9007199254740993,"x":[1.50,2]}'], policy: "read" } }, {}, { verbs: { n: "read" } });
  const env = isolatedEnv();
  const run = await hcp(["run", root, "n", "--json"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /"id": 9007199254740993/);
  assert.match(run.stdout, /"stdout": "\{\\"id\\":9007199254740993,\\"x\\":\[1\.50,2\]\}\\n"/);
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "big", verb: "n", args: {} })], [], { env });
  assert.match(exec.stdout, /"json":\{"id":9007199254740993,"x":\[1\.50,2\]\}/);
});
