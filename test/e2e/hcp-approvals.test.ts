// Approvals over `hcp run` and `hcp exec`, attacked the way an agent would: every way around a
// confirm-gated verb is tried against the built hcp, and a witness file shows whether the program ran.

import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { execSession } from "../transports/support.js";
import { APPROVER_BIN, bank, jsonError, listedApprover, planIdOf, writeBank } from "./approvals-support.js";

const pay = (root: string, amount = "10") => ["run", root, "pay", "--arg", `amount=${amount}`, "--allow-write"];
const note = (root: string, amount = "10") => ["run", root, "note", "--arg", `amount=${amount}`, "--allow-write"];
const escaped = (id: string) => id.replaceAll(".", "\\.");
/** An `hcp exec` request line for the plan-checked `note` verb. */
const noteRequest = (amount: string, extra: object) => JSON.stringify({ id: 1, pack: "bank", verb: "note", args: { amount }, ...extra });

test("confirm: true over hcp run: the agent's own dry run and --confirm are refused naming `hcp approve <id>`; approved at a terminal, the retry runs once; a second use is refused", async () => {
  const b = bank();
  const bare = await b.hcp(pay(b.root));
  assert.equal(bare.code, 4);
  assert.match(bare.stderr, /^Error: verb "pay" of pack "bank" needs a person's approval\. A person can approve this exact plan in a terminal with: hcp approve hcp1\.\S+ ; then retry/);
  const id = planIdOf(await b.hcp([...pay(b.root), "--dry-run", "--json"]));
  const self = await b.hcp([...pay(b.root), "--confirm", id]);
  assert.equal(self.code, 4);
  // In hcp run's own terms only: the exec and MCP forms are no use to its caller.
  assert.match(self.stderr, new RegExp(`hcp approve ${escaped(id)} ; then retry with the same plan_id \\(hcp run: --confirm ${escaped(id)}\\) before `));
  assert.equal(b.runs().length, 0, "nothing ran on the agent's word");

  const pending = JSON.parse((await b.hcp(["approve", "--list", "--json"])).stdout) as { pending: { plan_id: string }[] };
  assert.ok(pending.pending.some((p) => p.plan_id === id), "the dry run waits for a person");
  const approved = await b.approve(id);
  assert.equal(approved.code, 0, approved.stdout);
  assert.match(approved.stdout, /Approve verb "pay" of pack "bank"\? \[y\/N\] y\r?\nApproved\. The agent can now run this plan once/);
  const after = JSON.parse((await b.hcp(["approve", "--list", "--json"])).stdout) as { pending: { plan_id: string }[] };
  assert.ok(!after.pending.some((p) => p.plan_id === id), "an approved plan is no longer pending");

  const ran = await b.hcp([...pay(b.root), "--confirm", id]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.equal(ran.stdout, "ran\n");
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", "10"]]);
  const again = await b.hcp([...pay(b.root), "--confirm", id, "--json"]);
  assert.equal(again.code, 4);
  assert.equal(jsonError(again).code, "plan_id_used");
  assert.equal(b.runs().length, 1, "an approval runs once");
});

test("the terminal prompt of hcp run (/dev/tty): y runs once, n runs nothing; --no-prompt and no terminal never block", async () => {
  const b = bank();
  const yes = await b.onTerminal(pay(b.root, "5"), "[y/N]", "y");
  assert.equal(yes.code, 0, yes.stdout);
  assert.match(yes.stdout, /About to run verb "pay" of pack "bank":/);
  assert.match(yes.stdout, /argv: +\[".*witness\.mjs", "pay", "5"\]/);
  assert.match(yes.stdout, /Run verb "pay" of pack "bank"\? \[y\/N\] y\r?\nran\r?\n/);
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", "5"]]);

  const no = await b.onTerminal(pay(b.root, "6"), "[y/N]", "n");
  assert.equal(no.code, 4, no.stdout);
  assert.match(no.stdout, /declined by the person at the terminal; nothing was run/);
  const noPrompt = await b.onTerminal([...pay(b.root, "7"), "--no-prompt"], "", "", 20);
  assert.equal(noPrompt.code, 4, noPrompt.stdout);
  assert.match(noPrompt.stdout, /needs a person's approval/);
  const noTerminal = await b.hcp(pay(b.root, "8"), { hold: true, timeoutMs: 20_000 });
  assert.equal(noTerminal.timedOut, false, "no terminal: nothing waits for an answer");
  assert.equal(noTerminal.code, 4);
  assert.equal(b.runs().length, 1);
});

test("--approver PROGRAM (run and exec): exit 0 runs once with the plan as JSON on its stdin; a refusal or a timeout runs nothing", async () => {
  const b = bank();
  const asked = join(b.dir, "asked.jsonl");
  const approver = (code: number, waitMs = 0) => ["--approver", listedApprover(b, asked, code, waitMs)];
  const ok = await b.hcp([...pay(b.root, "1"), ...approver(0)]);
  assert.equal(ok.code, 0, ok.stderr);
  const request = JSON.parse(readFileSync(asked, "utf8").split("\n")[0]!) as { plan_id: string; subject: string; plan: { argv: string[]; env: Record<string, string> }; text: string };
  assert.match(request.plan_id, /^hcp1\./);
  assert.equal(request.subject, 'verb "pay" of pack "bank"');
  assert.deepEqual(request.plan.argv.slice(1), ["pay", "1"]);
  assert.equal(request.plan.env["BANK_TARGET"], "sandbox");
  assert.match(request.text, /plan_id: hcp1\./);

  const no = await b.hcp([...pay(b.root, "2"), ...approver(1)]);
  assert.equal(no.code, 4);
  assert.match(no.stderr, /not approved: declined by the --approver program; nothing was run/);
  const slow = await b.hcp([...pay(b.root, "3"), ...approver(0, 30_000), "--approver-timeout", "1"], { timeoutMs: 20_000 });
  assert.equal(slow.code, 4, slow.stderr);
  assert.match(slow.stderr, /dismissed by the --approver program/);
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", "1"]]);

  const line = JSON.stringify({ id: "x", pack: "bank", verb: "pay", args: { amount: "4" } });
  const viaExec = await execSession([b.root], [line], ["--allow-write", ...approver(0)], { env: b.env });
  assert.equal(viaExec.responses[0]?.ok, true, JSON.stringify(viaExec.responses));
  // hcp exec's command line is the person's: it takes the approver's arguments. (Run from the person's home folder: the
  // approver lies in the checkout, which, as hcp's working folder, would be the agent's.)
  const refused = await execSession([b.root], [line], ["--allow-write", "--approver", APPROVER_BIN, "--approver-arg", asked, "--approver-arg", "3"], { env: b.env, cwd: b.dir });
  assert.equal(refused.responses[0]?.error?.code, "confirmation_declined");
  assert.deepEqual(b.runs().map((r) => r.argv), [["pay", "1"], ["pay", "4"]]);
});

test('confirm: "plan" keeps the intent check: a restated dry-run id runs once (run and exec); again, it is refused', async () => {
  const b = bank();
  const bare = await b.hcp([...note(b.root), "--json"]);
  assert.equal(bare.code, 4);
  assert.equal(jsonError(bare).code, "confirmation_required");
  assert.match(jsonError(bare).error, /then run it again with that plan_id \(hcp run: --confirm ID\)$/);
  const id = planIdOf(await b.hcp([...note(b.root), "--dry-run", "--json"]));
  const ran = await b.hcp([...note(b.root), "--confirm", id]);
  assert.equal(ran.code, 0, ran.stderr);
  const again = await b.hcp([...note(b.root), "--confirm", id, "--json"]);
  assert.equal(jsonError(again).code, "plan_id_used");

  const dry = await execSession([b.root], [noteRequest("20", { dry_run: true })], [], { env: b.env });
  const execId = planIdOf({ ...dry, stdout: JSON.stringify(dry.responses[0]) });
  const first = await execSession([b.root], [noteRequest("20", { confirm: execId })], ["--allow-write"], { env: b.env });
  assert.equal(first.responses[0]?.ok, true, JSON.stringify(first.responses));
  const second = await execSession([b.root], [noteRequest("20", { confirm: execId }), noteRequest("20", { id: 2 })], ["--allow-write"], { env: b.env });
  const answer = (requestId: number) => second.responses.find((r) => r.id === requestId)?.error;
  assert.equal(answer(1)?.code, "plan_id_used");
  assert.equal(answer(2)?.code, "confirmation_required");
  assert.match(answer(2)!.message, /then run it again with that plan_id \(hcp exec: "confirm": "ID" in the request\)$/);
  assert.deepEqual(b.runs().map((r) => r.argv), [["note", "10"], ["note", "20"]]);
});

test("bad plan ids and state, each refused with exit 4 and its own message, nothing run: malformed, made up, another user's, expired, used, a planted or loosened approval file, a key file with the wrong mode", async () => {
  const b = bank({ ttl: 1 });
  const refuse = async (args: string[], code: string, message: RegExp) => {
    const r = await b.hcp([...args, "--json"]);
    assert.equal(r.code, 4, `${code}: ${r.stderr}`);
    const e = jsonError(r);
    assert.equal(e.code, code, e.error);
    assert.match(e.error, message);
  };
  await refuse([...note(b.root), "--confirm", "not-a-plan-id"], "plan_id_malformed", /^the plan_id given is not a plan_id \(expected hcp1\.<expiry>\.<nonce>\.<mac>/);
  const madeUp = `hcp1.${Math.floor(Date.now() / 1000) + 600}.${"A".repeat(22)}.${"B".repeat(22)}`;
  await refuse([...note(b.root), "--confirm", madeUp], "plan_id_unknown", /was not issued by a dry run of hcp for this user/);
  // An id made with another key (another user's state) for the very same plan.
  const elsewhere = planIdOf(await b.hcp([...note(b.root), "--dry-run", "--json"], { env: { ...b.env, XDG_STATE_HOME: join(b.dir, "other-state") } }));
  await refuse([...note(b.root), "--confirm", elsewhere], "plan_id_unknown", /was not issued by a dry run/);

  const expiring = planIdOf(await b.hcp([...note(b.root), "--dry-run", "--json"]));
  await sleep(2100);
  await refuse([...note(b.root), "--confirm", expiring], "plan_id_expired", /expired at \d{4}-\d\d-\d\dT.*; dry-run verb "note" of pack "bank" again/);

  // A planted approval for a real pending id, and a genuine-looking one another user could read.
  const fresh = bank();
  const id = planIdOf(await fresh.hcp([...pay(fresh.root), "--dry-run", "--json"]));
  const [, expiry, nonce] = id.split(".");
  const approvals = join(fresh.state, "hcp", "approvals");
  const planted = join(approvals, `${expiry}.${nonce}`);
  writeFileSync(planted, JSON.stringify({ plan_id: id, approved_at: new Date().toISOString(), mac: "forged" }), { mode: 0o600 });
  const refuseFresh = async (code: string, message: RegExp) => {
    const r = await fresh.hcp([...pay(fresh.root), "--confirm", id, "--json"]);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(jsonError(r).code, code, jsonError(r).error);
    assert.match(jsonError(r).error, message);
  };
  await refuseFresh("approval_tampered", /was not written by hcp approve \(its signature does not match\); nothing was run/);
  chmodSync(planted, 0o644);
  await refuseFresh("approval_tampered", /has mode 0644; it must be readable by its owner only/);
  assert.equal(fresh.runs().length, 0);

  const key = join(b.state, "hcp", "key");
  assert.equal(statSync(key).mode & 0o777, 0o600, "the key is made 0600");
  chmodSync(key, 0o644);
  await refuse([...note(b.root), "--dry-run"], "state_insecure", /the hcp key file .*key has mode 0644; it must be readable by its owner only \(chmod 600/);
  await refuse([...note(b.root), "--confirm", elsewhere], "state_insecure", /the hcp key file/);
  assert.equal(b.runs().length, 0, "nothing ran");
});

test("the plan covers what runs: an approved or restated id is refused under another stdin, another policy env value or another copy of the pack", async () => {
  const b = bank();
  // stdin over exec
  const dry = await execSession([b.root], [noteRequest("1", { dry_run: true, stdin: "to: alice" })], [], { env: b.env });
  const id = (dry.responses[0]!.result as { plan_id: string }).plan_id;
  const swapped = await execSession([b.root], [noteRequest("1", { confirm: id, stdin: "to: mallory" })], ["--allow-write"], { env: b.env });
  assert.equal(swapped.responses[0]?.error?.code, "confirmation_mismatch");
  assert.match(swapped.responses[0]!.error!.message, /what differs: stdin/);

  // a person approved the plan under BANK_TARGET=sandbox; the agent's run under PRODUCTION is another plan
  const payId = planIdOf(await b.hcp([...pay(b.root), "--dry-run", "--json"]));
  assert.equal((await b.approve(payId)).code, 0);
  const production = await b.hcp([...pay(b.root), "--confirm", payId, "--json"], { env: { ...b.env, BANK_TARGET: "PRODUCTION" } });
  assert.equal(production.code, 4);
  assert.match(jsonError(production).error, /issued for another plan .*what differs: env/);

  // a copy of the pack with the same id whose agent_env points elsewhere
  const copy = join(b.dir, "copy");
  writeBank(copy, { agentEnv: { BANK_URL: "https://production.example" } });
  const viaCopy = await b.hcp([...pay(copy), "--confirm", payId, "--json"]);
  assert.equal(viaCopy.code, 4);
  assert.match(jsonError(viaCopy).error, /what differs: env\.BANK_URL, root, surface_sha256\)/);
  assert.equal(b.runs().length, 0);

  // and the approved plan itself still runs, once, with what was approved
  const ran = await b.hcp([...pay(b.root), "--confirm", payId]);
  assert.equal(ran.code, 0, ran.stderr);
  assert.deepEqual(b.runs().map((r) => r.target), ["sandbox"]);
});

test("racing consumers: six hcp run, an hcp exec and an MCP server given one approved id at once: exactly one runs", async () => {
  const b = bank();
  const id = planIdOf(await b.hcp([...pay(b.root), "--dry-run", "--json"]));
  assert.equal((await b.approve(id)).code, 0);
  const runs = Array.from({ length: 6 }, () => b.hcp([...pay(b.root), "--confirm", id, "--json"]).then((r) => (r.code === 0 ? "ran" : jsonError(r).code)));
  const line = JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: "10" }, confirm: id });
  const exec = execSession([b.root], [line], ["--allow-write"], { env: b.env }).then((r) => (r.responses[0]?.ok ? "ran" : r.responses[0]?.error?.code));
  const mcp = b.mcp({ allowWrite: true }).then(async ({ client }) => {
    try {
      const r = await client.callTool({ name: "bank_pay", arguments: { amount: "10", confirm: id } });
      return r.isError ? (r.structuredContent as { error: { code: string } }).error.code : "ran";
    } finally {
      await client.close();
    }
  });
  const outcomes = await Promise.all([...runs, exec, mcp]);
  assert.deepEqual(outcomes.filter((o) => o === "ran").length, 1, outcomes.join(", "));
  assert.deepEqual(outcomes.filter((o) => o !== "ran"), Array(7).fill("plan_id_used"));
  assert.equal(b.runs().length, 1);
});

test("policy.json with a duplicate key is refused: `pay` stays a gated write, not the later read", async () => {
  const policy = '{"surface_id": "bank", "default": "deny", "verbs": {"pay": {"policy": "write", "confirm": true}, "pay": "read"}, "env": ["WITNESS"]}';
  const b = bank({ policy });
  const v = await b.hcp(["validate", b.root]);
  assert.equal(v.code, 1);
  assert.match(v.stdout, /policy\.json: verbs\.pay: policy: duplicate key "verbs\.pay": a key may appear only once in policy\.json/);
  const r = await b.hcp(["run", b.root, "pay", "--arg", "amount=1"]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /has validation errors: policy\.json: verbs\.pay: policy: duplicate key/);
  assert.equal(b.runs().length, 0);
});

test("without policy.json every write verb needs a person (a warning says so); MCP marks it destructive and takes confirm", async () => {
  const b = bank({ policy: false });
  const v = await b.hcp(["validate", b.root]);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /policy\.json: policy: no policy\.json: .*every write verb needs a person's approval/);
  for (const args of [pay(b.root), ["run", b.root, "touch", "--allow-write"]]) {
    const r = await b.hcp([...args, "--json"]);
    assert.equal(r.code, 4, r.stderr);
    assert.equal(jsonError(r).code, "approval_required");
    assert.match((jsonError(r) as { plan_id?: string }).plan_id ?? "", /^hcp1\./, "hcp run --json names the plan as a field");
  }
  const { client } = await b.mcp({ allowWrite: true });
  try {
    const touch = (await client.listTools()).tools.find((t) => t.name === "bank_touch")!;
    assert.equal(touch.annotations?.destructiveHint, true);
    assert.ok("confirm" in (touch.inputSchema.properties ?? {}));
  } finally {
    await client.close();
  }
  assert.equal(b.runs().length, 0);
});

test("the audit log: each decision as a JSON line (0600), flushed before the child starts and after it ends; hcp audit shows it; --audit none; an unwritable log refuses writes", async () => {
  const b = bank();
  const id = planIdOf(await b.hcp([...note(b.root, "3"), "--dry-run", "--json"]));
  assert.equal((await b.hcp([...note(b.root, "3"), "--confirm", id])).code, 0);
  assert.equal((await b.hcp(["run", b.root, "look"])).code, 0, "plain reads run");
  assert.equal((await b.hcp(["run", b.root, "touch"])).code, 4, "a write without --allow-write");
  assert.equal((await b.hcp(pay(b.root))).code, 4, "no approval");
  assert.equal(statSync(b.audit).mode & 0o777, 0o600);
  const entries = readFileSync(b.audit, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(
    entries.map((e) => [e["verb"], e["decision"], e["by"], e["reason"] ?? null]),
    [
      ["note", "dry_run", null, null],
      ["note", "approved", "plan", null],
      ["note", "ran", "plan", null],
      ["touch", "refused", null, "write_not_allowed"],
      ["pay", "refused", null, "approval_required"],
    ],
  );
  assert.deepEqual(Object.keys(entries[2]!), ["time", "transport", "pack", "verb", "plan_id", "argv", "decision", "by", "exit_code", "duration_ms"]);
  assert.equal(entries[2]!["plan_id"], id);
  assert.equal(entries[2]!["exit_code"], 0);
  assert.equal(typeof entries[2]!["duration_ms"], "number");
  assert.match(entries[4]!["plan_id"] as string, /^hcp1\./);
  // The child saw the "approved" line already on disk.
  assert.equal(b.runs()[0]!.audit_lines, 2);

  const shown = JSON.parse((await b.hcp(["audit", "--json", "--since", "1h"])).stdout) as { log: string; entries: unknown[] };
  assert.equal(shown.log, b.audit);
  assert.deepEqual(shown.entries, entries);
  assert.deepEqual((JSON.parse((await b.hcp(["audit", "--json", "--since", "2999-01-01"])).stdout) as { entries: unknown[] }).entries, []);
  const text = await b.hcp(["audit"]);
  assert.match(text.stdout, /ran by plan {2}cli bank note exit 0 \d+ ms {2}hcp1\./);
  assert.equal((await b.hcp(["audit", "--since", "yesterday-ish"])).code, 1);

  const off = bank({ env: { HCP_AUDIT: "none" } });
  assert.equal((await off.hcp(["run", off.root, "touch", "--allow-write", "--approver", "true"])).code, 0);
  assert.equal(existsSync(off.audit) || existsSync(join(off.state, "hcp", "audit.jsonl")), false);

  const blocked = bank();
  mkdirSync(join(blocked.dir, "a-directory"));
  const env = { env: { ...blocked.env, HCP_AUDIT: join(blocked.dir, "a-directory") } };
  const refused = await blocked.hcp(["run", blocked.root, "touch", "--allow-write", "--approver", "true"], env);
  assert.equal(refused.code, 4);
  assert.match(refused.stderr, /^Error: cannot write the audit log .*a-directory: is a directory; writes are refused until it can be written/);
  const flagged = await blocked.hcp(["run", blocked.root, "touch", "--allow-write", "--approver", "true", "--audit", join(blocked.dir, "missing", "audit.jsonl")]);
  assert.equal(flagged.code, 4);
  assert.match(flagged.stderr, /cannot write the audit log .*missing\/audit\.jsonl: no such file/);
  assert.equal((await blocked.hcp(["run", blocked.root, "look"], env)).code, 0, "a plain read is not a decision to log");
  assert.deepEqual(blocked.runs().map((r) => r.argv), [["look"]]);
});
