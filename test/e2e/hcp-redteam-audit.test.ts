// Red team: the audit log as a way to write the user's files. Over `hcp run` the agent writes the command line,
// `--audit FILE` included: it tries to plant shell code in a file a shell reads, and to append to a file of the
// user's that is not an audit log. The test asserts nothing ran and nothing was changed.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { bank } from "./approvals-support.js";
import { execSession, hcp, mcpClient, tempDir } from "../transports/support.js";
import { trustPack } from "./helpers.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { isolatedEnv as openapiEnv, openapiPack } from "./openapi-support.js";

test("--audit cannot plant shell code: a log made at ~/.bash_aliases from the agent's arguments runs nothing when a shell reads it", async () => {
  const b = bank();
  const mark = join(b.dir, "planted-code-ran");
  const aliases = join(b.dir, ".bash_aliases");
  const amount = `$(touch ${mark})\`touch ${mark}\`\${IFS}`;
  const dry = await b.hcp(["run", b.root, "pay", "--arg", `amount=${amount}`, "--dry-run", "--audit", aliases]);
  assert.equal(dry.code, 0, dry.stderr);
  const text = readFileSync(aliases, "utf8");
  assert.doesNotMatch(text, /[$`]/, "no character a shell expands");
  const entry = JSON.parse(text) as { decision: string; argv: string[] };
  assert.equal(entry.decision, "dry_run");
  assert.equal(entry.argv.at(-1), amount, "the log still says exactly what was asked");
  for (const shell of ["sh", "bash"]) {
    try {
      execFileSync(shell, ["-c", `. ${aliases}`], { stdio: "ignore", env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } });
    } catch {
      // "command not found" is the expected end
    }
  }
  assert.equal(existsSync(mark), false, "a shell reading the log ran the agent's code");
  const shown = JSON.parse((await b.hcp(["audit", "--json", "--audit", aliases])).stdout) as { entries: { argv: string[] }[] };
  assert.equal(shown.entries[0]?.argv.at(-1), amount, "hcp audit reads it back");
  assert.deepEqual(b.runs(), []);
});

test("--audit never appends to a file of the user's that is not an audit log (a 0600 ~/.netrc): the write is refused and the file left as it was", async () => {
  const b = bank();
  const netrc = join(b.dir, ".netrc");
  const content = "machine example.org login me password hunter2\n";
  writeFileSync(netrc, content, { mode: 0o600 });
  const run = await b.hcp(["run", b.root, "touch", "--allow-write", "--audit", netrc, "--args", '{"x":"machine evil.example login me password p"}']);
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stderr, /is not an hcp audit log/);
  const dry = await b.hcp(["run", b.root, "pay", "--arg", "amount=1", "--dry-run", "--audit", netrc]);
  assert.notEqual(dry.code, 0);
  assert.equal(readFileSync(netrc, "utf8"), content);

  // A log whose last line was cut short is not appended to either: the next entry would be glued to it.
  const cut = join(b.dir, "cut.jsonl");
  writeFileSync(cut, '{"time":"2026-12-01T00:00:00.000Z","transport":"cli"', { mode: 0o600 });
  assert.equal((await b.hcp(["run", b.root, "touch", "--allow-write", "--audit", cut])).code, 4);
  // A real log goes on.
  const log = join(b.dir, "real.jsonl");
  for (let i = 0; i < 2; i++) assert.equal((await b.hcp(["run", b.root, "touch", "--allow-write", "--audit", log])).code, 0);
  assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 4, "approved and ran, twice");
  assert.equal(b.runs().length, 2);
});

test("attack: under the operator's HCP_NO_PROMPT, an agent cannot turn the audit log off or send it elsewhere: hcp run, exec and serve refuse --audit (none, or a file of its own; exit 1) and run nothing; without the flag its write is in the operator's log (HCP_AUDIT)", async () => {
  const b = bank({ env: { HCP_NO_PROMPT: "1" } });
  // Where HCP_NO_PROMPT is set, servers serve only packs a person trusted: this one a person did.
  await trustPack(b.root, b.env);
  const own = join(b.dir, "agents-own.jsonl");
  const touch = JSON.stringify({ id: 1, pack: "bank", verb: "touch", args: {} });
  for (const audit of ["none", own]) {
    const run = await b.hcp(["run", b.root, "touch", "--allow-write", "--audit", audit]);
    const exec = await execSession([b.root], [touch], ["--allow-write", "--audit", audit], { env: b.env });
    const serve = await b.hcp(["serve", "--mcp", b.root, "--allow-write", "--audit", audit]);
    for (const [name, r] of Object.entries({ run, exec, serve })) {
      assert.equal(r.code, 1, `${name} --audit ${audit}: ${r.stdout}${r.stderr}`);
      assert.ok(r.stderr.includes(`--audit ${JSON.stringify(audit)}: HCP_NO_PROMPT is set here, as an operator sets it where an agent's commands run, and there the audit log is the operator's to choose (HCP_AUDIT)`), r.stderr);
    }
  }
  assert.deepEqual(b.runs(), [], "nothing ran");
  assert.equal(existsSync(own), false);
  assert.equal(existsSync(b.audit), false);
  // Without the flag the agent's write runs, and the operator's log says so.
  const run = await b.hcp(["run", b.root, "touch", "--allow-write"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(b.runs().length, 1);
  const logged = readFileSync(b.audit, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { verb: string; decision: string });
  assert.ok(logged.some((e) => e.verb === "touch" && e.decision === "ran"), JSON.stringify(logged));
  // hcp audit reads any log it is named (a read): the agent may.
  assert.equal((await b.hcp(["audit", "--audit", b.audit])).code, 0);
});

/** A 9 MiB note, numbered. */
const note = (i: number) => `${i}${"x".repeat(9 << 20)}`;

test("dry runs cannot fill the disk through the audit log: a line keeps 1,024 characters of an argument and 64 arguments, saying how many bytes it leaves out", async () => {
  const files = { type: "object", properties: { files: { type: "array", items: { type: "string" } } }, required: ["files"], additionalProperties: false };
  const root = probePack(
    "log",
    { put: { description: "Put a note.", cli: ["probe", "{{note}}"], policy: "write" }, many: { description: "Put files.", cli: ["probe", "{{files}}"], args: files, policy: "write" } },
    {},
    { verbs: { put: "write", many: "write" } },
  );
  const env = isolatedEnv();
  // Neither verb is gated, so no plan is kept for them: only the audit line is written, one per dry run.
  const names = Array.from({ length: 100_000 }, (_, i) => `f${i}`);
  const lines = [1, 2, 3].map((i) => JSON.stringify({ id: i, pack: "log", verb: "put", args: { note: note(i) }, dry_run: true }));
  lines.push(JSON.stringify({ id: 4, pack: "log", verb: "many", args: { files: names }, dry_run: true }));
  const s = await execSession([root], lines, ["--concurrency", "1"], { env, timeoutMs: 120_000 });
  assert.deepEqual(s.responses.map((r) => r.ok), [true, true, true, true], JSON.stringify(s.responses.map((r) => r.error)));
  // The agent's dry run still shows the whole plan: only the log is cut.
  assert.equal((s.responses[3]!.result as { plan: { argv: string[] } }).plan.argv.length, 100_001);

  const log = readFileSync(env["HCP_AUDIT"]!, "utf8");
  assert.ok(log.length < 32 * 1024, `${log.length} bytes of audit log for 4 dry runs`);
  const entries = log.trim().split("\n").map((l) => JSON.parse(l) as { decision: string; argv: string[] });
  assert.deepEqual(entries.map((e) => e.decision), ["dry_run", "dry_run", "dry_run", "dry_run"]);
  assert.equal(entries[0]!.argv[1], `1${"x".repeat(1023)}…[${note(1).length - 1024} more bytes not logged]`);
  const many = entries[3]!.argv;
  assert.equal(many.length, 65);
  assert.deepEqual(many.slice(1, 64), names.slice(0, 63));
  assert.equal(many[64], `…[${names.length - 63} more arguments, ${names.slice(63).join("").length} bytes, not logged]`);
  const shown = await hcp(["audit", "--json"], { env });
  assert.equal((JSON.parse(shown.stdout) as { entries: unknown[] }).entries.length, 4, "hcp audit reads it back");
});

test("attack: another hcp's audit line still being written (the kernel shows a long line as it is written, page by page) neither refuses a write nor loses its line: hcp waits for that line's end, then appends its own", async () => {
  const b = bank();
  assert.equal((await b.hcp(["run", b.root, "touch", "--allow-write"])).code, 0, "a first write makes the log");
  // Another hcp's line (an agent's dry run of 64 long arguments is 390 KB), half written.
  appendFileSync(b.audit, `{"time":"2026-12-07T00:00:00.000Z","transport":"json_exec","pack":"bank","verb":"pay","plan_id":null,"argv":["${"x".repeat(200_000)}`);
  const writing = b.hcp(["run", b.root, "touch", "--allow-write"]);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  appendFileSync(b.audit, '"],"decision":"dry_run","by":null,"exit_code":null,"duration_ms":null}\n');
  const r = await writing;
  assert.equal(r.code, 0, r.stderr);
  const decisions = readFileSync(b.audit, "utf8").trimEnd().split("\n").map((line) => (JSON.parse(line) as { decision: string }).decision);
  assert.deepEqual(decisions, ["approved", "ran", "dry_run", "approved", "ran"], "every line whole, the second write's two after the other's");
  assert.equal(b.runs().length, 2);
});

test("attack: a write the client cancels while its program runs (which may have done its work) is logged as a run that failed (cancelled, with its duration), never as refused", async () => {
  const dir = tempDir("hcp-cancel-");
  const started = join(dir, "started");
  const root = probePack("slowbank", { pay: { description: "Pay, slowly.", cli: ["probe", "run", `pid:${started}`, "sleep:20000", "print:paid"], policy: "write" } }, {}, { verbs: { pay: "write" } });
  const log = join(dir, "audit.jsonl");
  const { client } = await mcpClient([root, "--allow-write"], { env: isolatedEnv({ HCP_AUDIT: log }) });
  try {
    const cancel = new AbortController();
    const call = client.callTool({ name: "slowbank_pay", arguments: {} }, undefined, { signal: cancel.signal }).catch((err: unknown) => err);
    for (let i = 0; i < 300 && !existsSync(started); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(existsSync(started), "the program started");
    cancel.abort();
    await call;
    const lines = (): { decision: string; reason?: string; duration_ms: number | null }[] =>
      existsSync(log) ? readFileSync(log, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as { decision: string; duration_ms: number | null }) : [];
    for (let i = 0; i < 200 && lines().length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    const [approved, ended] = lines();
    assert.equal(approved?.decision, "approved");
    assert.equal(ended?.decision, "failed", JSON.stringify(lines()));
    assert.equal(ended?.reason, "cancelled");
    assert.equal(typeof ended?.duration_ms, "number");
  } finally {
    await client.close();
  }
});

test("attack: a write request the API takes and then drops (the connection closed, no answer), or never answers (timeout_ms), is logged as a run that failed (the dropped one with its reason), never as refused: it may have done its work", async () => {
  let received = 0;
  // Each request is read whole (the API may have acted on it), then its connection is closed or left hanging.
  const api = createServer((req, res) => {
    req.resume().on("end", () => {
      received++;
      if (req.url?.startsWith("/v1/notes/")) return; // DELETE: never answered
      res.socket?.destroy();
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  try {
    const pack = openapiPack({
      doc: "notes.yaml",
      verbs: { "notes.create": { description: "Create a note." }, "notes.delete": { description: "Delete a note." } },
      policy: { openapi: { base_url: `${origin}/v1` }, limits: { timeout_ms: 1000 } },
    });
    const env = openapiEnv();
    const calls = [
      { id: 1, pack: "notes", verb: "notes.create", args: { body: { text: "hi" } } },
      { id: 2, pack: "notes", verb: "notes.delete", args: { id: "n1" } },
    ].map((call) => JSON.stringify(call));
    const s = await execSession([pack], calls, ["--allow-write", "--concurrency", "1"], { env });
    assert.deepEqual(s.responses.map((r) => r.error?.code ?? r.result?.["timed_out"]), ["request_failed", true], JSON.stringify(s.responses));
    assert.equal(received, 2, "both requests reached the API");
    const logged = readFileSync(env["HCP_AUDIT"]!, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line) as { verb: string; decision: string; reason?: string; duration_ms: number | null });
    assert.deepEqual(logged.map((e) => [e.verb, e.decision, e.reason]), [
      ["notes.create", "approved", undefined],
      ["notes.create", "failed", "request_failed"],
      ["notes.delete", "approved", undefined],
      ["notes.delete", "failed", undefined],
    ]);
    // Each failed line says how long its request took, as a program's does (the unanswered one, its whole timeout).
    const failed = logged.filter((e) => e.decision === "failed").map((e) => e.duration_ms);
    assert.ok(failed.every((ms) => typeof ms === "number") && failed[1]! >= 900, JSON.stringify(failed));
  } finally {
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
});
