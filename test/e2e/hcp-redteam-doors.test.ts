// Red team, door by door: an agent at `hcp run` (argv, cwd, stdin), `hcp exec` (NDJSON) or `hcp serve --mcp` (the
// MCP client: every message, its order, cancellation, concurrency and elicitation answers) trying to run a gated
// plan without a person, to make a person approve something other than what runs, or to make hcp die with work in
// flight. The witness program appends one line per real run; each test asserts nothing ran that should not have.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { alive, eventually } from "../runtime/support.js";
import { HCP, tempDir } from "../transports/support.js";
import { bank, jsonError, planIdOf, toolErrorOf } from "./approvals-support.js";
import { isolatedEnv, probePack } from "./hardening.js";

const pay = (root: string, amount: string) => ["run", root, "pay", "--arg", `amount=${amount}`, "--allow-write"];

/** A deferred value: a promise and the function that settles it. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

test("MCP: two calls of one plan asked at once; the person declines the first and says yes to the second: the declined plan does not run in the session", async () => {
  const b = bank();
  const asks: { message: string; answer: (r: ElicitResult) => void }[] = [];
  const bothAsked = deferred<void>();
  const { client } = await b.mcp({
    allowWrite: true,
    elicit: (message) => {
      const d = deferred<ElicitResult>();
      asks.push({ message, answer: d.resolve });
      if (asks.length === 2) bothAsked.resolve();
      return d.promise;
    },
  });
  try {
    const first = client.callTool({ name: "bank_pay", arguments: { amount: "1000" } });
    const second = client.callTool({ name: "bank_pay", arguments: { amount: "1000" } });
    await bothAsked.promise;
    asks[0]!.answer({ action: "decline" });
    const declined = await first;
    assert.equal(toolErrorOf(declined).code, "confirmation_declined");
    // The person, asked again about the plan they just declined, gives in.
    asks[1]!.answer({ action: "accept", content: { approve: true } });
    const after = await second;
    assert.equal(after.isError, true, JSON.stringify(after.structuredContent));
    assert.equal(toolErrorOf(after).code, "confirmation_declined");
    assert.match(toolErrorOf(after).message, /was declined in this session while this call waited; this plan cannot run in this session/);
    assert.deepEqual(b.runs(), [], "a plan declined in the session never runs in it");
  } finally {
    await client.close();
  }
});

test("MCP: a call cancelled while its person is asked, then accepted by the client, runs nothing; its id stays unused", async () => {
  const b = bank();
  const abort = new AbortController();
  const asked = deferred<void>();
  const { client } = await b.mcp({
    allowWrite: true,
    elicit: async () => {
      asked.resolve();
      abort.abort();
      // The accept follows the cancellation on the same stream.
      await new Promise((r) => setImmediate(r));
      return { action: "accept", content: { approve: true } };
    },
  });
  try {
    const call = client.callTool({ name: "bank_pay", arguments: { amount: "5" } }, undefined, { signal: abort.signal });
    await assert.rejects(call, /abort|cancel/i);
    await asked.promise;
    // The server is still there, and the cancelled plan ran nothing, even after the accept came.
    const preview = await client.callTool({ name: "bank_pay", arguments: { amount: "5", dry_run: true } });
    assert.equal(preview.isError, undefined, JSON.stringify(preview.structuredContent));
    assert.deepEqual(b.runs(), []);
  } finally {
    await client.close();
  }
  const audit = b.hcp(["audit", "--json"]);
  const decisions = (JSON.parse((await audit).stdout) as { entries: { decision: string }[] }).entries.map((e) => e.decision);
  assert.ok(!decisions.includes("approved") && !decisions.includes("ran"), decisions.join(", "));
});

test("a person is shown every invisible character escaped: Hangul fillers, a grapheme joiner, variation selectors and other default-ignorable code points in an argument (hcp approve, elicitation)", async () => {
  const b = bank();
  // "alice" followed by characters that render as nothing: another recipient than the one a person reads.
  const hidden = ["\u3164", "\u115f", "\u1160", "\uffa0", "\u034f", "\u17b4", "\u180b", "\ufe0f", "\u{e0100}"];
  const to = `alice${hidden.join("")}`;
  const id = planIdOf(await b.hcp([...pay(b.root, to), "--dry-run", "--json"]));
  const shown = await b.approve(id, "n");
  assert.equal(shown.code, 0, shown.stdout);
  for (const c of hidden) assert.ok(!shown.stdout.includes(c), `U+${c.codePointAt(0)!.toString(16)} reached the terminal as is: ${shown.stdout}`);
  assert.ok(shown.stdout.includes(`"alice\\u{3164}\\u{115F}`), shown.stdout);

  const asked: string[] = [];
  const { client } = await b.mcp({ allowWrite: true, elicit: (m) => (asked.push(m), { action: "decline" }) });
  try {
    await client.callTool({ name: "bank_pay", arguments: { amount: to } });
  } finally {
    await client.close();
  }
  assert.equal(asked.length, 1);
  for (const c of hidden) assert.ok(!asked[0]!.includes(c), `U+${c.codePointAt(0)!.toString(16)} reached the person as is`);
  assert.deepEqual(b.runs(), []);
});

test("hcp run: a plan id spelled another way (a leading zero in its expiry, upper case, a trailing newline or space, full-width digits) runs nothing and leaves the real id unused", async () => {
  const b = bank();
  const id = planIdOf(await b.hcp([...pay(b.root, "10"), "--dry-run", "--json"]));
  assert.equal((await b.approve(id)).code, 0);
  const [, expiry, nonce, mac] = id.split(".");
  const fullWidth = expiry!.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));
  const variants = [`hcp1.0${expiry}.${nonce}.${mac}`, id.toUpperCase(), `HCP1.${expiry}.${nonce}.${mac}`, `${id}\n`, `${id} `, ` ${id}`, `hcp1.${fullWidth}.${nonce}.${mac}`, `hcp1.${expiry}.${nonce}.${mac}=`];
  for (const v of variants) {
    const r = await b.hcp([...pay(b.root, "10"), "--confirm", v, "--json"]);
    assert.equal(r.code, 4, `${JSON.stringify(v)}: ${r.stdout} ${r.stderr}`);
    assert.notEqual(jsonError(r).code, "plan_id_used", `${JSON.stringify(v)} spent the real id`);
  }
  assert.deepEqual(b.runs(), []);
  const real = await b.hcp([...pay(b.root, "10"), "--confirm", id]);
  assert.equal(real.code, 0, real.stderr);
  assert.equal(b.runs().length, 1);
});

test("hcp serve --mcp: a client queueing more calls than memory holds (48 of 6 MiB behind a busy slot) is told the server is busy; hcp does not die, and its running child is still killed at the end", async () => {
  const root = probePack(
    "flood",
    { nap: { description: "Sleep.", cli: ["probe", "run", "pid:nap.pid", "sleep:60000", "{{note}}"], policy: "read" } },
    {},
    { verbs: { nap: "read" }, limits: { concurrency: 1 } },
  );
  const cwd = tempDir("hcp-flood-");
  // A smaller heap than the default 2-4 GiB, so that the attack needs a few hundred MiB rather than gigabytes.
  const child = spawn(process.execPath, [HCP, "serve", "--mcp", root], { cwd, env: isolatedEnv({ NODE_OPTIONS: "--max-old-space-size=192" }), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  child.stdin.on("error", () => {});
  const closed = new Promise<number | string | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  const guard = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const send = (m: object) => new Promise<void>((resolve) => child.stdin.write(JSON.stringify(m) + "\n", () => resolve()));
  const answered = (id: number) => eventually(() => new RegExp(`"id":${id}[,}]`).test(out) || child.exitCode !== null, 60_000);
  try {
    await send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
    await send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "flood_nap", arguments: { note: "first" } } });
    const pidFile = join(cwd, "nap.pid");
    assert.ok(await eventually(() => existsSync(pidFile), 30_000), `the first call started: ${err}`);
    const napper = Number(readFileSync(pidFile, "utf8"));
    // A second request under the id of one in flight is refused: the two could not be told apart when one is answered.
    await send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "flood_nap", arguments: { note: "again" } } });
    assert.ok(await eventually(() => /"id":2,"error":\{"code":-32600,"message":"Invalid Request: a request with this id is still unanswered/.test(out), 30_000), out);
    const note = "x".repeat(6 * 1024 * 1024);
    for (let i = 0; i < 48 && child.exitCode === null; i++) await send({ jsonrpc: "2.0", id: 100 + i, method: "tools/call", params: { name: "flood_nap", arguments: { note: `${note}${i}` } } });
    await send({ jsonrpc: "2.0", id: 999, method: "ping" });
    assert.ok((await answered(999)) && child.exitCode === null, `hcp answers a ping after the flood, with its call still in flight: ${err.slice(0, 400)}`);
    const busy = out.split("\n").filter((l) => /"code":-32000,"message":"Server busy: \d+ requests \(\d+ bytes\) are unanswered/.test(l));
    assert.ok(busy.length >= 30, `most of the flood is refused as busy (${busy.length})`);

    child.kill("SIGTERM");
    assert.equal(await closed, 143, err.slice(0, 400));
    assert.ok(await eventually(() => !alive(napper), 10_000), "the running call's child outlived hcp");
    assert.match(out, /^\{"result":.*"id":2\}$/m, "the call in flight is answered");
  } finally {
    clearTimeout(guard);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});
