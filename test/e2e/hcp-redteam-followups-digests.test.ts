// Red team: a plan as a guessing oracle. A dry run shows the agent the plan, which names each secret the run
// would use; were that its plain SHA-256, an agent could test guesses of a weak credential (a person's
// password) offline. The agent dry-runs verbs whose credential is a known weak value, over every transport,
// and looks for that value's SHA-256 (hex, base64, base64url) in everything it or anyone can read.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bank, bankCredentials, jsonError, listedApprover, planIdOf, toolPlanIdOf } from "./approvals-support.js";
import { hostileApi, hostileEnv, hostilePack } from "./hcp-redteam-http-support.js";
import { execSession, hcp, mcpClient } from "../transports/support.js";
import { trustPack } from "./helpers.js";

const WEAK = "hunter2";
const BASIC_WEAK = "alice:hunter2";

/** Every way a plain digest of these values could be written. */
function digestForms(...values: string[]): string[] {
  return values.flatMap((v) => {
    const d = createHash("sha256").update(v, "utf8").digest();
    return [d.toString("hex"), d.toString("hex").toUpperCase(), d.toString("base64"), d.toString("base64url")];
  });
}

/** The text of every file under `dir` (the state directory: pending plans, used ids, approvals). */
function filesUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, "latin1"))
    .join("\n");
}

function assertNoOracle(where: string, text: string, forms: string[]): void {
  for (const form of forms) assert.equal(text.includes(form), false, `${where} holds a plain digest of the weak credential`);
}

test("a dry run of a CLI verb whose credential is a weak value (run, exec, MCP, --approver) shows it only by a keyed digest: its SHA-256 is nowhere; changing it changes the plan", async () => {
  const dir = bank().dir;
  const credentials = bankCredentials(dir, WEAK);
  const recorded = join(dir, "approver-stdin");
  const b = bank({ binding: { mode: "local", hub: "local-credential", family: "bank" }, env: { HCP_CREDENTIALS: credentials } });
  await trustPack(b.root, b.env);
  const forms = [WEAK, ...digestForms(WEAK)];
  const seen: string[] = [];

  // A plain read shows no plan: it neither reads nor makes the key (its digests are made only when shown).
  const look = await b.hcp(["run", b.root, "look"]);
  assert.equal(look.code, 0, look.stderr);
  assert.equal(existsSync(join(b.state, "key")), false, "a plain read made the key");

  const dry = await b.hcp(["run", b.root, "pay", "--arg", "amount=1", "--dry-run", "--json"]);
  assert.equal(dry.code, 0, dry.stderr);
  const token = (JSON.parse(dry.stdout) as { plan: { env: Record<string, string> } }).plan.env["BANK_TOKEN"];
  assert.match(token ?? "", /^hmac-sha256:[0-9a-f]{64}$/, "the credential is named, by a digest no one takes for a plain SHA-256");
  const again = await b.hcp(["run", b.root, "pay", "--arg", "amount=1", "--dry-run", "--json"]);
  assert.equal((JSON.parse(again.stdout) as { plan: { env: Record<string, string> } }).plan.env["BANK_TOKEN"], token, "the same in every run of this user");
  seen.push(dry.stdout, dry.stderr, again.stdout, again.stderr);

  const exec = await execSession([b.root], [JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: "2" }, dry_run: true })], [], { env: b.env });
  assert.ok(JSON.stringify(exec.responses).includes(token!), JSON.stringify(exec.responses));
  seen.push(JSON.stringify(exec.responses), exec.stderr);

  // The plan a person's --approver program reads on stdin (it declines: exit 1).
  const asked = await b.hcp(["run", b.root, "pay", "--arg", "amount=3", "--allow-write", "--approver", listedApprover(b, recorded, 1)]);
  assert.equal(asked.code, 4, asked.stderr);
  assert.ok(readFileSync(recorded, "utf8").includes(token!), "the approver is shown the keyed digest");
  seen.push(asked.stdout, asked.stderr, readFileSync(recorded, "utf8"));

  const { client, stderr } = await b.mcp();
  try {
    const tool = await client.callTool({ name: "bank_pay", arguments: { amount: "4", dry_run: true } });
    assert.ok(JSON.stringify(tool).includes(token!));
    seen.push(JSON.stringify(tool), stderr());
  } finally {
    await client.close();
  }
  seen.push(readFileSync(b.audit, "utf8"), filesUnder(b.state));
  assertNoOracle("the output, the audit log or the state directory", seen.join("\n"), forms);

  // The plan_id of a plan-checked verb, restated after the credential changed, runs nothing.
  const id = planIdOf(await b.hcp(["run", b.root, "note", "--arg", "amount=5", "--dry-run", "--json"]));
  bankCredentials(dir, "hunter3");
  const changed = await b.hcp(["run", b.root, "note", "--arg", "amount=5", "--allow-write", "--confirm", id, "--json"]);
  assert.equal(jsonError(changed).code, "confirmation_mismatch", changed.stderr);
  assert.match(jsonError(changed).error, /what differs: env/);
  const notes = () => b.runs().filter((r) => r.argv.includes("note")).length;
  assert.equal(notes(), 0, "nothing ran");
  bankCredentials(dir, WEAK);
  const same = await b.hcp(["run", b.root, "note", "--arg", "amount=5", "--allow-write", "--confirm", id, "--json"]);
  assert.equal(same.code, 0, same.stderr);
  assert.equal(notes(), 1, "the id issued in another process runs its unchanged plan once");
});

test("a dry run of an HTTP verb whose basic-auth password is weak (run, MCP) names the credential by a keyed digest; a changed password makes an approved id refused and sends nothing", async () => {
  const api = await hostileApi();
  try {
    const root = hostilePack(api.origin, { verbs: { "item.create": { policy: "write", confirm: "plan" } } });
    const env = hostileEnv({ notes: { openapi: { basic: BASIC_WEAK } } });
    await trustPack(root, env);
    const forms = [BASIC_WEAK, Buffer.from(BASIC_WEAK).toString("base64"), ...digestForms(BASIC_WEAK, WEAK)];
    const create = ["run", root, "item.create", "--args", '{"body":{"text":"hi"}}'];
    const dry = await hcp([...create, "--dry-run", "--json"], { env });
    assert.equal(dry.code, 0, dry.stderr);
    const plan = (JSON.parse(dry.stdout) as { plan: { credentials: Record<string, string> } }).plan;
    assert.match(plan.credentials["basic"] ?? "", /^hmac-sha256:[0-9a-f]{64}$/);
    const { client, stderr } = await mcpClient([root], { env });
    let tool: unknown;
    try {
      tool = await client.callTool({ name: "notes_item_create", arguments: { body: { text: "hi" }, dry_run: true } });
    } finally {
      await client.close();
    }
    assert.ok(JSON.stringify(tool).includes(plan.credentials["basic"]!), JSON.stringify(tool));
    const state = filesUnder(env["XDG_STATE_HOME"]!);
    assertNoOracle("the output, the audit log or the state directory", [dry.stdout, dry.stderr, JSON.stringify(tool), stderr(), readFileSync(env["HCP_AUDIT"]!, "utf8"), state].join("\n"), forms);

    const id = toolPlanIdOf(tool as object);
    writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ notes: { openapi: { basic: "alice:hunter3" } } }));
    const changed = await hcp([...create, "--allow-write", "--confirm", id, "--json"], { env });
    assert.equal(jsonError(changed).code, "confirmation_mismatch", changed.stderr);
    assert.match(jsonError(changed).error, /what differs: credentials/);
    assert.equal(api.requests.length, 0, "nothing was sent");
  } finally {
    await api.close();
  }
});

test("a dry run that must make the key under a state directory that cannot exist (under /proc) fails with state_unavailable; it does not hang", async () => {
  const dir = bank().dir;
  const b = bank({ binding: { mode: "local", hub: "local-credential", family: "bank" }, env: { HCP_CREDENTIALS: bankCredentials(dir, WEAK), XDG_STATE_HOME: "/proc/hcp-no-such-dir/state" } });
  // The credential's keyed digest is the first thing that needs the key (Node's recursive mkdir never returns here).
  // Over hcp exec: hcp run refuses this pack sooner, as no person can have trusted it in a state directory that cannot exist.
  const request = JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: "1" }, dry_run: true });
  const dry = await execSession([b.root], [request], [], { env: b.env, timeoutMs: 30_000 });
  assert.equal(dry.timedOut, false, "the dry run hung");
  const answer = dry.responses[0];
  assert.equal(answer?.error?.code, "state_unavailable", dry.stdout + dry.stderr);
  assert.match(answer.error.message, /cannot create the hcp state directory \/proc\/hcp-no-such-dir\/state/);
  assert.equal(answer.result, undefined, "no plan is shown");
  const run = await hcp(["run", b.root, "pay", "--arg", "amount=1", "--dry-run", "--json"], { env: b.env, timeoutMs: 30_000 });
  assert.equal(run.timedOut, false, "hcp run hung");
  assert.equal(jsonError(run).code, "pack_untrusted", run.stderr);
  assert.equal(run.stdout, "", "no plan is shown");
});
