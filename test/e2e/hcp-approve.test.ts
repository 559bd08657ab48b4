// `hcp approve` through a real pseudo-terminal: it refuses without one, shows the plan exactly as it
// will run (control and bidi characters escaped, secrets masked), asks y/N, and lists pending plans.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { execSession } from "../transports/support.js";
import { bank, bankCredentials, jsonError, planIdOf } from "./approvals-support.js";
import { trustPack } from "./helpers.js";

const SECRET = "s3cr3t-Tok-42";

test("hcp approve refuses without a terminal on stdin and stdout; the plan stays unapproved", async () => {
  const b = bank();
  const pay = ["run", b.root, "pay", "--arg", "amount=1", "--allow-write"];
  const id = planIdOf(await b.hcp([...pay, "--dry-run", "--json"]));
  const piped = await b.hcp(["approve", id, "--json"], { stdin: "y\n" });
  assert.equal(piped.code, 4);
  assert.equal(jsonError(piped).code, "not_a_terminal");
  assert.match(jsonError(piped).error, /must be run by a person at a terminal: its stdin and stdout must both be a terminal/);
  const run = await b.hcp([...pay, "--confirm", id, "--json"]);
  assert.equal(jsonError(run).code, "approval_required");
  assert.equal(b.runs().length, 0);
});

test("hcp approve shows every field of the plan with controls and bidi escaped and secrets masked; n records nothing, y approves once", async () => {
  const dir = bank().dir;
  const b = bank({ binding: { mode: "local", hub: "local-credential", family: "bank" }, env: { HCP_CREDENTIALS: bankCredentials(dir, SECRET) } });
  await trustPack(b.root, b.env);
  const trick = "100\u202e0001\u2066\u001b]0;pwned\u0007";
  const request = JSON.stringify({ id: 1, pack: "bank", verb: "note", args: { amount: SECRET }, dry_run: true, stdin: "to: \u202eevil" });
  // `note` is plan-checked, so it is not offered for approval; `pay` is.
  await execSession([b.root], [request], [], { env: b.env });
  const id = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", `amount=${trick}`, "--dry-run", "--json"]));

  const no = await b.approve(id, "n");
  assert.equal(no.code, 0, no.stdout);
  const screen = no.stdout;
  assert.match(screen, /About to approve verb "pay" of pack "bank":/);
  assert.ok(screen.includes(`"pay", "100\\u{202E}0001\\u{2066}\\u001b]0;pwned\\u0007"]`), screen);
  assert.ok(!/[\u202e\u2066\u001b\u0007]/.test(screen), "no raw control or bidi character reaches the terminal");
  assert.match(screen, /env: +BANK_TARGET="sandbox" BANK_TOKEN="hmac-sha256:[0-9a-f]{64}" HCP_AUDIT=.* WITNESS=/);
  assert.ok(!screen.includes(SECRET), "the secret never shows");
  assert.match(screen, /stdin: +\(closed\)/);
  assert.match(screen, /cwd: +\//);
  assert.match(screen, /pack: +\/.*\/pack \(surface\.json [0-9a-f]{64}, policy\.json [0-9a-f]{64}\)/);
  assert.match(screen, /policy: +write, needs a person's approval; timeout 60000 ms/);
  assert.ok(screen.includes(`plan_id: ${id}`));
  assert.match(screen, /Not approved: nothing was recorded\./);
  const stillPending = JSON.parse((await b.hcp(["approve", "--list", "--json"])).stdout) as { pending: { plan_id: string; plan: { argv: string[] } }[] };
  assert.deepEqual(stillPending.pending.map((p) => p.plan_id), [id], "only the plan a person must approve is listed");

  // An exec dry run with stdin: the person sees where it starts, escaped.
  const stdinPlan = JSON.stringify({ id: 2, pack: "bank", verb: "pay", args: { amount: "5" }, dry_run: true, stdin: `to: \u202eevil ${SECRET}` });
  const withStdin = (await execSession([b.root], [stdinPlan], [], { env: b.env })).responses[0]!.result as { plan_id: string; plan: { stdin: string } };
  assert.match(withStdin.plan.stdin, /^sha256:[0-9a-f]{64}$/);
  const shown = await b.approve(withStdin.plan_id, "n");
  assert.match(shown.stdout, /stdin: +sha256:[0-9a-f]{64}\r?\n/);
  assert.ok(shown.stdout.includes('stdin starts: "to: \\u{202E}evil ***"'), shown.stdout);

  const yes = await b.approve(id);
  assert.equal(yes.code, 0, yes.stdout);
  const twice = await b.approve(id);
  assert.equal(twice.code, 4, "an approved plan is not approved again");
  assert.match(twice.stdout, /is approved already/);
  const ran = await b.hcp(["run", b.root, "pay", "--arg", `amount=${trick}`, "--allow-write", "--confirm", id]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", trick]]);
});

test("hcp approve --list: pending plans with the command that approves each; none once approved or used; bad ids refused at the terminal", async () => {
  const b = bank();
  const empty = await b.hcp(["approve", "--list"]);
  assert.equal(empty.stdout, "No plan is waiting for approval.\n");
  for (const made of ["key", "plans", "approvals", "used"]) assert.equal(existsSync(join(b.state, "hcp", made)), false, `a listing is a read: it made ${made}`);
  const id = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", "amount=3", "--dry-run", "--json"]));
  const listed = await b.hcp(["approve", "--list"]);
  assert.match(listed.stdout, /^verb "pay" of pack "bank":\n {2}argv: /);
  assert.ok(listed.stdout.includes(`  approve: hcp approve ${id}\n`));

  for (const [bad, message] of [
    ["nonsense", /is not a plan_id/],
    [`hcp1.${Math.floor(Date.now() / 1000) + 60}.${"A".repeat(22)}.${"B".repeat(22)}`, /no plan waits for approval under plan_id/],
  ] as const) {
    const r = await b.onTerminal(["approve", bad], "", "");
    assert.equal(r.code, 4, r.stdout);
    assert.match(r.stdout, message);
  }
});

test("hcp approve --list --json and hcp audit --json write bidi and invisible characters of plan values as \\u escapes, as their text does: the same JSON value, nothing raw on the terminal", async () => {
  const b = bank();
  const trick = "100\u202e0001\u2066\u200b\u3164\u{E0041}";
  const id = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", `amount=${trick}`, "--dry-run", "--json"]));
  const raw = /[\u202e\u2066\u200b\u3164\u{E0041}]/u;
  for (const args of [["approve", "--list", "--json"], ["audit", "--json"], ["approve", "--list"], ["audit"]]) {
    const r = await b.hcp(args);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(id), `${args.join(" ")}: ${r.stdout}`);
    assert.ok(!raw.test(r.stdout), `${args.join(" ")} writes no raw bidi or invisible character: ${r.stdout}`);
  }
  const listed = await b.hcp(["approve", "--list", "--json"]);
  assert.ok(listed.stdout.includes(`"100\\u202e0001\\u2066\\u200b\\u3164\\udb40\\udc41"`), listed.stdout);
  const pending = (JSON.parse(listed.stdout) as { pending: { plan: { argv: string[] } }[] }).pending;
  assert.equal(pending[0]!.plan.argv.at(-1), trick, "the same value once parsed");
  const audited = (JSON.parse((await b.hcp(["audit", "--json"])).stdout) as { entries: { argv: string[] }[] }).entries;
  assert.equal(audited.at(-1)!.argv.at(-1), trick);
});

test("a plan asked for again while it waits (a call refused for approval, then a dry run; over run and exec) keeps its one plan_id: hcp approve --list lists it once, and the id the person approves runs it; another plan, or the same once approved, gets an id of its own", async () => {
  const b = bank();
  const refused = await b.hcp(["run", b.root, "pay", "--arg", "amount=3", "--allow-write", "--no-prompt", "--json"]);
  assert.equal(jsonError(refused).code, "approval_required");
  const id = (jsonError(refused) as { plan_id?: string }).plan_id!;
  assert.equal(planIdOf(await b.hcp(["run", b.root, "pay", "--arg", "amount=3", "--dry-run", "--json"])), id);
  const exec = await execSession([b.root], [JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: "3" }, dry_run: true })], [], { env: b.env });
  assert.equal((exec.responses[0]!.result as { plan_id: string }).plan_id, id);
  const other = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", "amount=4", "--dry-run", "--json"]));
  assert.notEqual(other, id, "another plan, another id");
  const listed = JSON.parse((await b.hcp(["approve", "--list", "--json"])).stdout) as { pending: { plan_id: string }[] };
  assert.deepEqual(listed.pending.map((p) => p.plan_id).sort(), [id, other].sort(), "each plan listed once");
  assert.equal((await b.approve(id)).code, 0);
  const again = planIdOf(await b.hcp(["run", b.root, "pay", "--arg", "amount=3", "--dry-run", "--json"]));
  assert.notEqual(again, id, "once approved, a new dry run is a new request");
  const ran = await b.hcp(["run", b.root, "pay", "--arg", "amount=3", "--allow-write", "--confirm", id, "--json"]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(b.runs().length, 1);
});
