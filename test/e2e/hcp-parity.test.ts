// One suite, three transports: the same calls give the same §6.5 results (minus duration_ms) and error codes.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PROBE_PACK, execSession, hcp, mcpClient, timeless } from "../transports/support.js";
import { withoutRunMarks } from "./helpers.js";

interface Call {
  verb: string;
  args: Record<string, unknown>;
  allowWrite?: boolean;
  dryRun?: boolean;
  /** A plan_id; "$plan" means the plan_id of the call's own dry run. */
  confirm?: string;
}

type Outcome = { ok: true; result: unknown } | { ok: false; code: string };

const TRANSFER = { amount: "5", payee: "bob" };
const CALLS: Record<string, Call> = {
  read: { verb: "echo", args: { message: "hi there", count: 2 } },
  invalid: { verb: "echo", args: { message: "hi", count: "x" } },
  failing: { verb: "fail", args: {} },
  timeout: { verb: "slow", args: {} },
  write_refused: { verb: "write", args: {} },
  write_allowed: { verb: "write", args: {}, allowWrite: true },
  gated_no_plan: { verb: "transfer", args: TRANSFER, allowWrite: true },
  gated_wrong_plan: { verb: "transfer", args: TRANSFER, allowWrite: true, confirm: "0".repeat(64) },
  gated_dry_run: { verb: "transfer", args: TRANSFER, allowWrite: true, dryRun: true },
  gated_confirmed: { verb: "transfer", args: TRANSFER, allowWrite: true, confirm: "$plan" },
  denied: { verb: "hidden", args: {} },
};

const EXPECTED_ERRORS: Record<string, string> = {
  invalid: "invalid_args",
  write_refused: "write_not_allowed",
  gated_no_plan: "approval_required",
  gated_wrong_plan: "plan_id_malformed",
  // A dry run's id is no person's approval, on any transport.
  gated_confirmed: "approval_required",
};

/** The plan_id of the transfer, learned once over the CLI. */
let planId = "";

async function viaCli(c: Call): Promise<Outcome> {
  const args = ["run", PROBE_PACK, c.verb, "--args", JSON.stringify(c.args), "--json"];
  if (c.allowWrite) args.push("--allow-write");
  if (c.dryRun) args.push("--dry-run");
  if (c.confirm) args.push("--confirm", c.confirm === "$plan" ? planId : c.confirm);
  const r = await hcp(args);
  if (r.stdout !== "") return { ok: true, result: JSON.parse(r.stdout) };
  return { ok: false, code: (JSON.parse(r.stderr) as { code: string }).code };
}

async function viaExec(names: string[]): Promise<Record<string, Outcome>> {
  const out: Record<string, Outcome> = {};
  for (const allowWrite of [false, true]) {
    const mine = names.filter((n) => (CALLS[n]!.allowWrite ?? false) === allowWrite);
    const lines = mine.map((id) => {
      const c = CALLS[id]!;
      const confirm = c.confirm === "$plan" ? planId : c.confirm;
      return JSON.stringify({ id, pack: "hcp-probe", verb: c.verb, args: c.args, dry_run: c.dryRun, confirm });
    });
    const r = await execSession([PROBE_PACK], lines, allowWrite ? ["--allow-write"] : []);
    assert.equal(r.code, 0, r.stderr);
    for (const resp of r.responses) out[resp.id as string] = resp.ok ? { ok: true, result: resp.result } : { ok: false, code: resp.error!.code };
  }
  return out;
}

let readOnly: Client;
let writable: Client;
before(async () => {
  readOnly = (await mcpClient([PROBE_PACK])).client;
  writable = (await mcpClient([PROBE_PACK], { allowWrite: true })).client;
});
after(async () => {
  await readOnly?.close();
  await writable?.close();
});

async function viaMcp(c: Call): Promise<Outcome> {
  const client = c.allowWrite ? writable : readOnly;
  const args: Record<string, unknown> = { ...c.args };
  if (c.dryRun) args["dry_run"] = true;
  if (c.confirm) args["confirm"] = c.confirm === "$plan" ? planId : c.confirm;
  const name = `hcp-probe_${c.verb}`;
  const tools = (await client.listTools()).tools.map((t) => t.name);
  if (!tools.includes(name)) return { ok: false, code: "denied" };
  const r = await client.callTool({ name, arguments: args });
  const sc = r.structuredContent as Record<string, unknown>;
  if ("error" in sc) {
    assert.equal(r.isError, true);
    return { ok: false, code: (sc["error"] as { code: string }).code };
  }
  // stdout goes once over MCP where it is JSON, as `json`; the text block is stdout as is, the same as the others give.
  if ("json" in sc) {
    assert.equal(sc["stdout"], undefined);
    return { ok: true, result: { ...sc, stdout: (r.content as { text: string }[])[0]!.text } };
  }
  return { ok: true, result: sc };
}

function dropIds(r: unknown): unknown {
  if (typeof r !== "object" || r === null || !("plan_id" in r)) return r;
  const { plan_id: _id, expires_at: _expiry, ...rest } = r as Record<string, unknown>;
  return rest;
}

test("parity: run --json, exec and MCP tools/call agree on every call", async () => {
  const dry = await viaCli(CALLS["gated_dry_run"]!);
  assert.ok(dry.ok);
  planId = (dry.result as { plan_id: string }).plan_id;
  assert.match(planId, /^hcp1\./);

  const names = Object.keys(CALLS);
  const cli: Record<string, Outcome> = {};
  const mcp: Record<string, Outcome> = {};
  await Promise.all(names.map(async (n) => (cli[n] = await viaCli(CALLS[n]!))));
  for (const n of names) mcp[n] = await viaMcp(CALLS[n]!);
  const exec = await viaExec(names);

  for (const n of names) {
    // Every dry run issues its own plan_id and expiry; the plans themselves agree.
    const strip = (o: Outcome) => (o.ok ? { ok: true, result: withoutRunMarks(timeless(dropIds(o.result))) } : o);
    assert.deepEqual(strip(exec[n]!), strip(cli[n]!), `exec vs cli: ${n}`);
    // MCP never lists denied verbs; its "denied" is the tool's absence.
    assert.deepEqual(strip(mcp[n]!), strip(cli[n]!), `mcp vs cli: ${n}`);
  }

  // And the results are the right ones.
  for (const [n, code] of Object.entries(EXPECTED_ERRORS)) assert.deepEqual(cli[n], { ok: false, code }, n);
  assert.deepEqual(cli["denied"], { ok: false, code: "denied" });
  const read = (cli["read"] as { result: { argv: string[]; exit_code: number; json: { argv: string[] } } }).result;
  assert.deepEqual(read.json.argv, ["echo", "hi there", "--count=2"]);
  assert.equal(read.exit_code, 0);
  const failing = (cli["failing"] as { result: { exit_code: number; stdout: string } }).result;
  assert.deepEqual([failing.exit_code, failing.stdout], [3, "failing\n"]);
  const timeout = (cli["timeout"] as { result: { timed_out: boolean; exit_code: number | null } }).result;
  assert.deepEqual([timeout.timed_out, timeout.exit_code], [true, null]);
  assert.ok(cli["write_allowed"]!.ok);
});
