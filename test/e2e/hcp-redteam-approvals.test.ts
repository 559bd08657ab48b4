// Red team: an agent trying to approve its own confirm: true plan. Each test spawns the built hcp with the
// witness program (one line per real run), tries a way around the person, and asserts nothing ran.

import assert from "node:assert/strict";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { APPROVER_BIN, bank, jsonError, listedApprover, person, planIdOf, writeBank } from "./approvals-support.js";
import { fixture, run as spawnRun, trustPack } from "./helpers.js";
import { HCP, execSession, httpClient, mcpClient, serveHttp, tempDir } from "../transports/support.js";

const pay = (root: string, amount: string) => ["run", root, "pay", "--arg", `amount=${amount}`, "--allow-write"];

/** `hcp ARGS…` on a pseudo-terminal the agent types into: it answers `y` to the first `[y/N]`; its pack left untrusted. */
const typedAt = (args: string[], env: NodeJS.ProcessEnv) =>
  spawnRun("python3", [fixture("bin/terminal.py"), "10", "[y/N]", "y", "--", process.execPath, HCP, ...args], { env, asAgent: true, timeoutMs: 20_000 });

/** The name of an id's file in the state directory: its expiry and nonce. */
const fileOf = (id: string) => id.split(".").slice(1, 3).join(".");
/** An exec dry-run request of pay whose amount is about `mb` MiB. */
const big = (i: number, mb: number) => JSON.stringify({ id: i, pack: "bank", verb: "pay", args: { amount: String(i).repeat(Math.floor(mb * 1024 * 1024)) }, dry_run: true });

test("an agent writing hcp run's command line cannot approve its own plan: an --approver the person did not list never runs (true, sh -c, a list others can write), on run, exec and MCP", async () => {
  const b = bank({ approvers: [APPROVER_BIN] });
  const mark = join(b.dir, "approver-ran");

  const yes = await b.hcp([...pay(b.root, "1"), "--approver", "true"]);
  assert.equal(yes.code, 4, yes.stderr);
  assert.match(yes.stderr, /--approver "true" is not a program you listed in .*\/hcp\/approvers/);
  assert.match(yes.stderr, /hcp approve hcp1\./, "the refusal still says how a person approves");

  const shell = await b.hcp([...pay(b.root, "2"), "--approver", "sh", "--approver-arg", "-c", "--approver-arg", `touch ${mark}; exit 0`]);
  assert.equal(shell.code, 1, shell.stderr);
  assert.match(shell.stderr, /hcp run takes no --approver-arg/);
  const bare = await b.hcp([...pay(b.root, "2"), "--approver", "sh"], { stdin: `touch ${mark}; exit 0\n` });
  assert.equal(bare.code, 4, bare.stderr);
  assert.equal(existsSync(mark), false, "an unlisted program is never started, not even to be asked");

  const relative = await b.hcp([...pay(b.root, "3"), "--approver", "../../../../../../../../bin/true"], { cwd: b.dir });
  assert.equal(relative.code, 4, relative.stderr);

  const line = JSON.stringify({ id: 4, pack: "bank", verb: "pay", args: { amount: "4" } });
  const viaExec = await execSession([b.root], [line], ["--allow-write", "--approver", "true"], { env: b.env });
  assert.equal(viaExec.responses[0]?.error?.code, "approver_failed", JSON.stringify(viaExec.responses));

  const { client } = await b.mcp({ allowWrite: true, args: ["--approver", "true"] });
  try {
    const r = (await client.callTool({ name: "bank_pay", arguments: { amount: "5" } })) as { structuredContent?: { error?: { code: string } } };
    assert.equal(r.structuredContent?.error?.code, "approver_failed", JSON.stringify(r));
  } finally {
    await client.close();
  }

  // A list another user could have added to is not the person's word.
  const loose = bank({ approvers: ["true"] });
  chmodSync(join(loose.env["XDG_CONFIG_HOME"]!, "hcp", "approvers"), 0o622);
  const open = await loose.hcp([...pay(loose.root, "6"), "--approver", "true"]);
  assert.equal(open.code, 4, open.stderr);
  assert.match(open.stderr, /others can write it/);
  assert.deepEqual([...b.runs(), ...loose.runs()], []);

  // The listed program is asked, and its yes runs the plan once.
  const asked = join(b.dir, "asked.jsonl");
  const listed = await b.hcp([...pay(b.root, "7"), "--approver", listedApprover(b, asked, 0)]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", "7"]]);
});

test("attack: an approver the person listed that is a shell or an interpreter (/bin/sh, node) never runs: it would run the plan it reads on stdin as code, and the agent's argument $(…) would run as the person; refused naming why, on run, exec and MCP", async () => {
  const witness = join(tempDir("hcp-witness-"), "ran");
  const interpreters = ["/bin/sh", process.execPath];
  const b = bank({ approvers: interpreters });
  // Under sh, a command substitution in the plan's text runs: the agent's code, as the person.
  const amount = `$(echo ran >> '${witness}')`;
  const why = "is a shell or an interpreter: it would run the plan it reads on its stdin, the agent's arguments in it, as code";
  for (const approver of interpreters) {
    const flags = ["--allow-write", "--approver", approver];
    const run = await b.hcp(["run", b.root, "pay", "--arg", `amount=${amount}`, ...flags], { cwd: b.dir });
    assert.equal(run.code, 4, run.stdout + run.stderr);
    assert.ok(run.stderr.includes(why), run.stderr);
    const exec = await execSession([b.root], [JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount } })], flags, { env: b.env, cwd: b.dir });
    assert.ok(exec.responses[0]?.error?.message.includes(why), exec.stdout);
    // The operator is told as the server starts, not only the agent at its first gated call.
    const told = `Warning: --approver ${JSON.stringify(approver)}`;
    const refusedUntil = "every call that needs a person's approval is refused until it can be asked";
    assert.ok(exec.stderr.includes(told) && exec.stderr.includes(why) && exec.stderr.includes(refusedUntil), exec.stderr);
    const { client, stderr } = await mcpClient([b.root], { env: b.env, cwd: b.dir, allowWrite: true, args: ["--approver", approver] });
    try {
      const r = await client.callTool({ name: "bank_pay", arguments: { amount } });
      assert.ok(JSON.stringify(r).includes(why), JSON.stringify(r));
    } finally {
      await client.close();
    }
    assert.ok(stderr().includes(told) && stderr().includes(refusedUntil), stderr());
  }
  assert.equal(existsSync(witness), false, `the agent's code ran in the approver: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);
  assert.deepEqual(b.runs(), [], "a payment ran");
});

test("attack: hcp run takes no --approver-arg: an agent cannot point the approver the person listed at its own answer (an answers file, a channel, a webhook of its own); refused (exit 1), nothing runs and the approver is not asked", async () => {
  const b = bank({ approvers: [] });
  // The person's approver reads the person's answer from a file, or from the one its --answers argument names.
  const asked = join(b.dir, "asked");
  writeFileSync(join(b.dir, "answer"), "no\n");
  const approver = join(b.dir, "approve-from-file");
  writeFileSync(approver, `#!/bin/sh\necho asked >> '${asked}'\nanswers='${join(b.dir, "answer")}'\n[ "$1" = --answers ] && answers=$2\ngrep -qx yes "$answers"\n`, { mode: 0o755 });
  writeFileSync(join(b.env["XDG_CONFIG_HOME"]!, "hcp", "approvers"), `${approver}\n`, { mode: 0o600 });
  const agents = join(tempDir("hcp-workspace-"), "yes");
  writeFileSync(agents, "yes\n");
  for (const args of [["--approver-arg", "--answers", "--approver-arg", agents], ["--approver-arg=--answers", `--approver-arg=${agents}`]]) {
    const r = await b.hcp([...pay(b.root, "1"), "--approver", approver, ...args]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /hcp run takes no --approver-arg: its command line is the agent's/);
  }
  assert.equal(existsSync(asked), false, "the approver was asked");
  // Without the argument it asks the person's file, which says no.
  const declined = await b.hcp([...pay(b.root, "2"), "--approver", approver]);
  assert.equal(declined.code, 4, declined.stderr);
  assert.equal(readFileSync(asked, "utf8"), "asked\n");
  assert.deepEqual(b.runs(), []);
});

test("a pack verb cannot approve a plan: `hcp approve` run by a verb (its stdin saying y, the same state directory) refuses without a terminal, and the plan stays unapproved", async () => {
  const b = bank();
  const dry = await b.hcp([...pay(b.root, "9"), "--dry-run", "--json"]);
  const id = planIdOf(dry);
  // The operator's mistake at its worst: a pack that runs hcp itself, with the state directory passed on.
  const tools = join(tempDir("hcp-redteam-"), "tools");
  mkdirSync(tools);
  writeFileSync(
    join(tools, "surface.json"),
    JSON.stringify({
      id: "tools",
      kind: "composite",
      binding: { mode: "local", hub: "none" },
      verbs: { approve: { description: "Approve.", cli: [process.execPath, HCP, "approve", "{{id}}"], policy: "read" } },
    }),
  );
  writeFileSync(join(tools, "policy.json"), JSON.stringify({ surface_id: "tools", verbs: { approve: "read" }, env: ["XDG_STATE_HOME", "XDG_CONFIG_HOME", "HCP_AUDIT"] }));
  const request = JSON.stringify({ id: 1, pack: "tools", verb: "approve", args: { id }, stdin: "y\ny\n" });
  const s = await execSession([tools], [request], [], { env: b.env });
  const result = s.responses[0]?.result as { exit_code: number; stderr: string } | undefined;
  assert.notEqual(result?.exit_code, 0, JSON.stringify(s.responses));
  assert.match(result?.stderr ?? "", /terminal/);
  const run = await b.hcp([...pay(b.root, "9"), "--confirm", id, "--no-prompt"]);
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stderr, /needs a person's approval/);
  assert.deepEqual(b.runs(), []);
});

test("an approved id runs only where it was planned: another working directory, an edited policy.json or another state directory is refused", async () => {
  const b = bank();
  const here = join(b.dir, "here");
  const there = join(b.dir, "there");
  mkdirSync(here);
  mkdirSync(there);
  const id = planIdOf(await b.hcp([...pay(b.root, "10"), "--dry-run", "--json"], { cwd: here }));
  assert.equal((await b.approve(id)).code, 0);

  const elsewhere = await b.hcp([...pay(b.root, "10"), "--confirm", id, "--no-prompt"], { cwd: there });
  assert.equal(elsewhere.code, 4, elsewhere.stderr);
  assert.match(elsewhere.stderr, /issued for another plan .*what differs: cwd/);

  const otherState = await b.hcp([...pay(b.root, "10"), "--confirm", id, "--no-prompt"], { cwd: here, env: { ...b.env, XDG_STATE_HOME: join(b.dir, "other-state") } });
  assert.equal(otherState.code, 4, otherState.stderr);
  assert.match(otherState.stderr, /was not issued by a dry run of hcp for this user/);

  // The same rules, one timeout longer: the approved plan is not this one.
  const policy = join(b.root, "policy.json");
  const original = readFileSync(policy, "utf8");
  writeFileSync(policy, original.replace('"confirm": true', '"confirm": true, "timeout_ms": 59999'));
  const edited = await b.hcp([...pay(b.root, "10"), "--confirm", id, "--no-prompt"], { cwd: here });
  assert.equal(edited.code, 4, edited.stderr);
  assert.match(edited.stderr, /what differs: policy/);
  assert.deepEqual(b.runs(), []);

  writeFileSync(policy, original);
  const ran = await b.hcp([...pay(b.root, "10"), "--confirm", id, "--no-prompt"], { cwd: here });
  assert.equal(ran.code, 0, ran.stderr);
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", "10"]]);
});

test("a person is never shown the start of stdin as if it were all: hcp approve and an --approver say how many bytes come after what they show", async () => {
  const b = bank();
  const hidden = "DROP TABLE accounts;";
  const stdin = "SELECT 1;\n" + " ".repeat(2500) + hidden;
  const more = Buffer.byteLength(stdin.slice(2000));
  const request = JSON.stringify({ id: "padded", pack: "bank", verb: "pay", args: { amount: "1" }, stdin, dry_run: true });
  const dry = await execSession([b.root], [request], [], { env: b.env });
  const id = (dry.responses[0]!.result as { plan_id: string }).plan_id;

  const review = await b.approve(id, "n");
  assert.match(review.stdout, /stdin starts: "SELECT 1;\\n {10}/);
  assert.match(review.stdout, new RegExp(`stdin goes on: ${more} more bytes are not shown here`));
  const listed = JSON.parse((await b.hcp(["approve", "--list", "--json"])).stdout) as { pending: { stdin_more_bytes?: number }[] };
  assert.equal(listed.pending[0]?.stdin_more_bytes, more);

  const asked = join(b.dir, "asked.jsonl");
  const run = JSON.stringify({ id: "run", pack: "bank", verb: "pay", args: { amount: "1" }, stdin });
  const s = await execSession([b.root], [run], ["--allow-write", "--approver", APPROVER_BIN, "--approver-arg", asked, "--approver-arg", "1"], { env: b.env, cwd: b.dir });
  assert.equal(s.responses[0]?.error?.code, "confirmation_declined");
  const text = (JSON.parse(readFileSync(asked, "utf8").split("\n")[0]!) as { text: string }).text;
  assert.match(text, new RegExp(`stdin goes on: ${more} more bytes are not shown here`));
  assert.deepEqual(b.runs(), []);
});

test("links and copies in the state directory approve nothing: another id's approval linked or copied in, a linked key, a linked audit log", async () => {
  const b = bank();
  const dryId = async (amount: string) => planIdOf(await b.hcp([...pay(b.root, amount), "--dry-run", "--json"]));
  const approvals = join(b.state, "hcp", "approvals");
  const approved = await dryId("20");
  assert.equal((await b.approve(approved)).code, 0);

  // Another id's genuine approval, linked and then copied under the name of a plan nobody approved.
  const linked = await dryId("21");
  symlinkSync(join(approvals, fileOf(approved)), join(approvals, fileOf(linked)));
  const viaLink = await b.hcp([...pay(b.root, "21"), "--confirm", linked, "--no-prompt"]);
  assert.equal(viaLink.code, 4, viaLink.stderr);
  assert.match(viaLink.stderr, /symbolic link/);
  const copied = await dryId("22");
  copyFileSync(join(approvals, fileOf(approved)), join(approvals, fileOf(copied)));
  const viaCopy = await b.hcp([...pay(b.root, "22"), "--confirm", copied, "--no-prompt"]);
  assert.equal(viaCopy.code, 4, viaCopy.stderr);
  assert.match(viaCopy.stderr, /not written by hcp approve/);

  // The audit log made a link (to a file the agent could read back): writes are refused, the target untouched.
  const elsewhere = join(b.dir, "elsewhere.jsonl");
  writeFileSync(elsewhere, "", { mode: 0o600 });
  symlinkSync(elsewhere, join(b.dir, "linked-audit.jsonl"));
  const logged = await b.hcp([...pay(b.root, "20"), "--confirm", approved, "--audit", join(b.dir, "linked-audit.jsonl")]);
  assert.equal(logged.code, 4, logged.stderr);
  assert.match(logged.stderr, /cannot write the audit log .*: it is a symbolic link; it must be a regular file; writes are refused/);
  assert.equal(readFileSync(elsewhere, "utf8"), "");

  // The key made a link to a copy of itself: refused, so a key the agent chose is never used.
  const key = join(b.state, "hcp", "key");
  copyFileSync(key, join(b.dir, "key-copy"));
  chmodSync(join(b.dir, "key-copy"), 0o600);
  rmSync(key);
  symlinkSync(join(b.dir, "key-copy"), key);
  const withLinkedKey = await b.hcp([...pay(b.root, "20"), "--confirm", approved]);
  assert.equal(withLinkedKey.code, 4, withLinkedKey.stderr);
  assert.match(withLinkedKey.stderr, /key file .* is a symbolic link/);
  assert.deepEqual(b.runs(), []);
});

test("dry runs cannot fill the disk: a plan too big to review and plans past 16 MiB waiting are refused, and nothing is recorded for them", async () => {
  const b = bank();
  const lines = [big(1, 5), ...[2, 3, 4, 5, 6].map((i) => big(i, 3.5))];
  const s = await execSession([b.root], lines, ["--concurrency", "1"], { env: b.env, timeoutMs: 120_000 });
  const codes = s.responses.map((r) => [r.id, r.ok ? "issued" : r.error?.code]);
  assert.deepEqual(codes, [[1, "state_unavailable"], [2, "issued"], [3, "issued"], [4, "issued"], [5, "issued"], [6, "state_unavailable"]], JSON.stringify(codes));
  assert.match(s.responses[0]!.error!.message, /over the 4194304 a person can review/);
  assert.match(s.responses[5]!.error!.message, /4 plans .* already wait for approval/);
  const plans = join(b.state, "hcp", "plans");
  const bytes = readdirSync(plans).reduce((n, f) => n + statSync(join(plans, f)).size, 0);
  assert.ok(bytes <= 16 << 20, `${bytes} bytes of pending plans`);
  const listed = JSON.parse((await b.hcp(["approve", "--list", "--json"])).stdout) as { pending: unknown[] };
  assert.equal(listed.pending.length, 4, "the plans kept can still be reviewed");
  assert.deepEqual(b.runs(), []);
});

/** An `hcp exec` request line of pay. */
const payRequest = (extra: object) => JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: "5" }, ...extra });

test("a plan a person approved for one server's --cwd does not run on a server started with another: exec and MCP refuse it and nothing runs; under its own folder it runs once", async () => {
  const b = bank();
  const [approvedIn, elsewhere] = [tempDir("hcp-folder-a-"), tempDir("hcp-folder-b-")];
  const dry = await execSession([b.root], [payRequest({ dry_run: true })], ["--cwd", approvedIn], { env: b.env });
  const id = dry.responses[0]!.result!["plan_id"] as string;
  assert.equal((dry.responses[0]!.result!["plan"] as { cwd: string }).cwd, approvedIn, "the plan names the folder");
  assert.equal((await b.approve(id)).code, 0);

  // The agent restates the approved id to a server whose verbs run in another folder.
  const viaExec = await execSession([b.root], [payRequest({ confirm: id })], ["--allow-write", "--cwd", elsewhere], { env: b.env });
  assert.equal(viaExec.responses[0]!.ok, false, JSON.stringify(viaExec.responses[0]));
  const { client } = await b.mcp({ allowWrite: true, args: ["--cwd", elsewhere] });
  try {
    const viaMcp = await client.callTool({ name: "bank_pay", arguments: { amount: "5", confirm: id } });
    assert.equal(viaMcp.isError, true, JSON.stringify(viaMcp));
  } finally {
    await client.close();
  }
  assert.deepEqual(b.runs(), [], "nothing ran in the other folder");

  const ran = await execSession([b.root], [payRequest({ confirm: id })], ["--allow-write", "--cwd", approvedIn], { env: b.env });
  assert.equal(ran.responses[0]!.ok, true, JSON.stringify(ran.responses[0]));
  assert.equal(b.runs().length, 1);
});

test("under the operator's HCP_NO_PROMPT, an agent typing y at the terminal hcp run would ask on answers nothing: a gated plan is refused and an untrusted pack is not offered for trust (exit 4); nothing runs, nothing is trusted", async () => {
  const b = bank({ env: { HCP_NO_PROMPT: "1" } });
  // The bank trusted, as a person would have: only the approval prompt is left to ask.
  await b.hcp(["run", b.root, "look"]);
  const gated = await typedAt(pay(b.root, "5"), b.env);
  assert.equal(gated.code, 4, gated.stdout);
  assert.match(gated.stdout, /needs a person's approval/);
  assert.doesNotMatch(gated.stdout, /\[y\/N\]/, "nothing was asked");

  const fresh = join(b.dir, "fresh");
  writeBank(fresh, { id: "fresh" });
  for (let i = 0; i < 2; i++) {
    const untrusted = await typedAt(["run", fresh, "look"], b.env);
    assert.equal(untrusted.code, 4, untrusted.stdout);
    assert.match(untrusted.stdout, /a person has never trusted it/, "not trusted by the y typed the first time");
    assert.doesNotMatch(untrusted.stdout, /\[y\/N\]/);
  }
  assert.deepEqual(b.runs().map((r) => r.argv), [["look"]], "only the person's own run");

  // Empty or 0, it asks as usual: the same y then runs the plan.
  for (const off of ["", "0"]) {
    const asked = await typedAt(pay(b.root, off === "" ? "6" : "7"), { ...b.env, HCP_NO_PROMPT: off });
    assert.equal(asked.code, 0, asked.stdout);
    assert.match(asked.stdout, /Run verb "pay" of pack "bank"\? \[y\/N\] y/);
  }
  assert.deepEqual(b.runs().map((r) => r.argv), [["look"], ["pay", "6"], ["pay", "7"]]);
});

test("under the operator's HCP_NO_PROMPT, an agent on the terminal it types into cannot answer for the person with hcp approve or hcp trust: both refuse before asking (exit 4); nothing is approved, trusted or run", async () => {
  const b = bank({ env: { HCP_NO_PROMPT: "1" } });
  await b.hcp(["run", b.root, "look"]);
  const id = planIdOf(await b.hcp([...pay(b.root, "5"), "--dry-run", "--json"]));
  const fresh = join(b.dir, "fresh");
  writeBank(fresh, { id: "fresh" });

  const approved = await typedAt(["approve", id], b.env);
  assert.equal(approved.code, 4, approved.stdout);
  assert.match(approved.stdout, /hcp approve must be run by a person at a terminal of their own: HCP_NO_PROMPT is set here/);
  assert.doesNotMatch(approved.stdout, /\[y\/N\]/, "nothing was asked");
  const trusted = await typedAt(["trust", fresh], b.env);
  assert.equal(trusted.code, 4, trusted.stdout);
  assert.match(trusted.stdout, /hcp trust must be run by a person at a terminal of their own: HCP_NO_PROMPT is set here/);
  assert.doesNotMatch(trusted.stdout, /\[y\/N\]/, "nothing was asked");

  const withId = await b.hcp([...pay(b.root, "5"), "--confirm", id, "--json"]);
  assert.equal(withId.code, 4, withId.stdout);
  assert.equal(jsonError(withId).code, "approval_required", "the plan is not approved");
  const untrusted = await b.hcp(["run", fresh, "look"], { asAgent: true });
  assert.equal(untrusted.code, 4);
  assert.match(untrusted.stderr, /a person has never trusted it/);
  assert.deepEqual(b.runs().map((r) => r.argv), [["look"]], "only the person's own run");
  // What only reads stays open: the person's listings.
  assert.ok(JSON.parse((await b.hcp(["approve", "--list", "--json"])).stdout).pending.some((p: { plan_id: string }) => p.plan_id === id));
  assert.equal((await b.hcp(["trust", "--list"])).code, 0);

  // Where HCP_NO_PROMPT is not set (a person's own terminal), the same answers approve and trust.
  const own = { ...b.env, HCP_NO_PROMPT: "0" };
  assert.equal((await typedAt(["approve", id], own)).code, 0);
  assert.equal((await typedAt(["trust", fresh], own)).code, 0);
  assert.equal((await b.hcp([...pay(b.root, "5"), "--confirm", id])).code, 0);
  assert.equal((await b.hcp(["run", fresh, "look"], { asAgent: true })).code, 0, "trusted by the person's y");
  assert.deepEqual(b.runs().map((r) => r.argv), [["look"], ["pay", "5"], ["look"]]);
});

/** The error of a refused tool call. */
const errorOf = (r: object) => (r as { structuredContent: { error: { code: string } } }).structuredContent.error;

/** The MCP messages of an agent that starts its own server: initialize declaring elicitation, then pay. */
const SELF_SERVED = [
  { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: { elicitation: {} }, clientInfo: { name: "agent", version: "1" } } },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "bank_pay", arguments: { amount: "5" } } },
].map((m) => JSON.stringify(m));

test("an agent that starts hcp serve --mcp and is its client cannot accept its own elicitation: typed at a terminal, or under the operator's HCP_NO_PROMPT over stdio and HTTP, the server never asks its client and says so; the payment never runs", async () => {
  const b = bank();
  // On a terminal: the agent types the messages and accepts every elicitation it is sent.
  const typed = await spawnRun("python3", [fixture("bin/mcp-typist.py"), "20", ...SELF_SERVED, "--", process.execPath, HCP, "serve", "--mcp", b.root, "--allow-write"], { env: b.env, timeoutMs: 30_000 });
  assert.equal(typed.code, 0, typed.stdout);
  assert.doesNotMatch(typed.stdout, /elicitation\/create/, "nothing was asked of the terminal");
  assert.match(typed.stdout, /never asks its client to approve a plan \(it runs on a terminal, where whoever types is its client\): a person approves with hcp approve/);
  const answer = typed.stdout.split("\n").find((line) => line.startsWith('{"result"') && line.endsWith('"id":2}'));
  assert.equal(errorOf(JSON.parse(answer ?? "{}").result).code, "approval_required", typed.stdout);
  assert.deepEqual(b.runs(), [], "the payment did not run");
  assert.ok(typed.stdout.includes("A person approves it (never in the client: with `hcp approve <plan_id>` in a terminal)"), "the agent is told how, as it is");

  // Under HCP_NO_PROMPT, over pipes (stdio) and over HTTP: a client that accepts everything is never asked.
  const noPrompt = { ...b.env, HCP_NO_PROMPT: "1" };
  // Where HCP_NO_PROMPT is set, servers serve only packs a person trusted (hcp-redteam-trust.test.ts).
  await trustPack(b.root, noPrompt);
  const p = person(["accept", "accept"]);
  const { client, stderr } = await mcpClient([b.root], { env: noPrompt, allowWrite: true, elicit: p.elicit });
  try {
    assert.equal(errorOf(await client.callTool({ name: "bank_pay", arguments: { amount: "6" } })).code, "approval_required");
    assert.match(client.getInstructions() ?? "", /A person approves it \(never in the client: with `hcp approve <plan_id>` in a terminal\)/);
  } finally {
    await client.close();
  }
  assert.match(stderr(), /never asks its client to approve a plan \(HCP_NO_PROMPT is set, as an operator sets it where an agent's commands run, so its client may be the agent\)/);
  const s = await serveHttp([b.root], { args: ["--stateful", "--allow-write"], env: noPrompt });
  try {
    const http = await httpClient(s.url, { elicit: p.elicit });
    assert.equal(errorOf(await http.client.callTool({ name: "bank_pay", arguments: { amount: "7" } })).code, "approval_required");
    await http.client.close();
  } finally {
    await s.stop();
  }
  assert.match(s.stderr(), /never asks its client to approve a plan \(HCP_NO_PROMPT is set/);
  assert.deepEqual(p.asked, [], "no client was asked");
  assert.deepEqual(b.runs(), [], "no payment ran");

  // A client the person configured (pipes, no HCP_NO_PROMPT) is asked as before: its accept runs the payment once.
  const q = person(["accept"]);
  const configured = await mcpClient([b.root], { env: b.env, allowWrite: true, elicit: q.elicit });
  try {
    assert.match(configured.client.getInstructions() ?? "", /A person approves it \(asked in the client when it can ask, else with `hcp approve <plan_id>` in a terminal\)/);
    assert.notEqual((await configured.client.callTool({ name: "bank_pay", arguments: { amount: "8" } })).isError, true);
  } finally {
    await configured.client.close();
  }
  assert.equal(q.asked.length, 1);
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", "8"]]);
});
