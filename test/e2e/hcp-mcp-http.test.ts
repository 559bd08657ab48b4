// `hcp serve --mcp --http` through the SDK's Streamable HTTP client: tools, calls, many clients at once (and the
// concurrency bound over all of them), the door's refusals (token, Host, Origin, body size) with the server still answering after each, and a clean stop.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { alive } from "../runtime/support.js";
import { marks, peakOverlap, witnessPack } from "./witness-pack.js";
import { FAULTS, assertFaultReported, faultWhenRunning } from "./fault.js";
import { PROBE_PACK, hcp, httpClient, rawHttp, serveHttp, tempDir, type HttpServed } from "../transports/support.js";

interface Served extends HttpServed {
  /** The working directory: the sleeper verb writes child.pid there when it really runs. */
  dir: string;
}

/** Spawns `hcp serve --mcp <probe pack> --http 127.0.0.1:0 …` in a fresh working directory (`env` added to its environment). */
async function serve(extra: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<Served> {
  const dir = tempDir();
  return { ...(await serveHttp([PROBE_PACK], { args: extra, cwd: dir, env: { ...isolatedEnv(), ...env } })), dir };
}

async function connect(url: string, token?: string): Promise<Client> {
  return (await httpClient(url, { token })).client;
}

/** The server still answers: a read call through a fresh client. */
async function stillAnswers(url: string, token?: string): Promise<void> {
  const client = await connect(url, token);
  try {
    const ok = await client.callTool({ name: "hcp-probe_quick", arguments: {} });
    assert.equal((ok.structuredContent as { stdout: string }).stdout, "ok\n");
  } finally {
    await client.close();
  }
}

/** One raw POST, as an attacker would send it: by default a tools/call that would start the sleeper. */
const raw = (url: string, headers: Record<string, string>, opts: { body?: string; declaredLength?: number } = {}) =>
  rawHttp(url, { headers, body: opts.body ?? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hcp-probe_sleeper", arguments: {} } }), declaredLength: opts.declaredLength });

test("over HTTP: tools/list, a read call, a write refused without --allow-write", async () => {
  const s = await serve();
  try {
    assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(s.url);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ["echo", "fail", "slow", "quick", "write", "transfer", "sleeper"].map((v) => `hcp-probe_${v}`),
      );
      const ok = await client.callTool({ name: "hcp-probe_echo", arguments: { message: "over http" } });
      assert.equal(ok.isError, undefined);
      assert.deepEqual((ok.structuredContent as { json: { argv: string[] } }).json.argv, ["echo", "over http"]);
      const write = await client.callTool({ name: "hcp-probe_write", arguments: {} });
      assert.equal(write.isError, true);
      assert.equal((write.structuredContent as { error: { code: string } }).error.code, "write_not_allowed");
    } finally {
      await client.close();
    }
  } finally {
    assert.equal(await s.stop(), 143);
  }
});

test("over HTTP: 20 concurrent clients x 5 calls are all answered, each with its own arguments", { timeout: 300_000 }, async () => {
  const s = await serve();
  const calls = Array.from({ length: 5 }, (_, j) => j);
  try {
    const clients = await Promise.all(Array.from({ length: 20 }, () => connect(s.url)));
    try {
      const answers = await Promise.all(
        clients.flatMap((c, i) =>
          calls.map(async (j) => {
            const r = await c.callTool({ name: "hcp-probe_echo", arguments: { message: `c${i}-${j}`, count: j } }, undefined, { timeout: 240_000 });
            assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
            return (r.structuredContent as { json: { argv: string[] } }).json.argv.slice(1).join(" ");
          }),
        ),
      );
      assert.deepEqual(answers, clients.flatMap((_, i) => calls.map((j) => `c${i}-${j} --count=${j}`)));
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  } finally {
    assert.equal(await s.stop(), 143);
  }
});

test("over HTTP: limits.concurrency bounds the children of all clients together (20 clients x 5 calls)", { timeout: 300_000 }, async () => {
  const root = tempDir("hcp-http-bound-");
  const log = join(root, "bounded.log");
  witnessPack(root, "bounded", log, 3);
  for (const mode of [[], ["--stateful"]]) {
    writeFileSync(log, "");
    const s = await serveHttp([root], { args: mode, cwd: root, env: isolatedEnv() });
    try {
      const clients = await Promise.all(Array.from({ length: 20 }, () => connect(s.url)));
      const results = await Promise.all(clients.flatMap((c) => Array.from({ length: 5 }, () => c.callTool({ name: "bounded_work", arguments: {} }, undefined, { timeout: 240_000 }))));
      assert.equal(results.filter((r) => r.isError !== true).length, 100);
      await Promise.all(clients.map((c) => c.close()));
    } finally {
      await s.stop();
    }
    assert.equal(marks(log), 200, "each of the 100 calls ran (S and E)");
    assert.ok(peakOverlap(log) <= 3, `${mode.join(" ") || "stateless"}: ${peakOverlap(log)} at once`);
    assert.ok(peakOverlap(log) > 1, "calls do run concurrently");
  }
});

test("over HTTP with --token-file: no token and a wrong token get 401 with WWW-Authenticate: Bearer, and nothing runs", async () => {
  const tokenFile = join(tempDir(), "token");
  writeFileSync(tokenFile, "s3cret-token-value\n", { mode: 0o600 });
  const s = await serve(["--token-file", tokenFile]);
  try {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-value" }, { authorization: "Bearer s3cret-token-valu" }, { authorization: "Basic s3cret-token-value" }];
    for (const headers of attempts) {
      const r = await raw(s.url, headers);
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.match(String(r.headers["www-authenticate"]), /^Bearer/);
      assert.doesNotMatch(r.body, /s3cret/);
      await stillAnswers(s.url, "s3cret-token-value");
    }
    await assert.rejects(connect(s.url), "the SDK client without the token cannot even initialize");
    assert.equal(existsSync(join(s.dir, "child.pid")), false, "no refused request ran the verb");
  } finally {
    await s.stop();
  }
});

test("over HTTP: a foreign Host or Origin (DNS rebinding) and an oversized body are refused, and the server still answers", async () => {
  const s = await serve();
  try {
    const badHost = await raw(s.url, { host: "evil.example:80" });
    assert.equal(badHost.status, 403);
    assert.match(badHost.body, /Host/);
    await stillAnswers(s.url);
    const badOrigin = await raw(s.url, { origin: "http://evil.example" });
    assert.equal(badOrigin.status, 403);
    assert.match(badOrigin.body, /Origin/);
    await stillAnswers(s.url);
    const tooBig = await raw(s.url, {}, { declaredLength: 4 * 1024 * 1024 + 1 });
    assert.equal(tooBig.status, 413);
    await stillAnswers(s.url);
    const sameHost = await raw(s.url, { origin: new URL(s.url).origin }, { body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    assert.equal(sameHost.status, 200, "the server's own origin is accepted");
    assert.equal(existsSync(join(s.dir, "child.pid")), false, "no refused request ran the verb");
  } finally {
    await s.stop();
  }
});

test("hcp serve --mcp --http off loopback without --token-file is refused, exit 1, nothing listens", async () => {
  const env = isolatedEnv();
  for (const where of ["0.0.0.0:0", "[::]:0", "192.0.2.1:8080"]) {
    const r = await hcp(["serve", "--mcp", PROBE_PACK, "--http", where], { env, timeoutMs: 60_000 });
    assert.equal(r.code, 1, where);
    assert.match(r.stderr, /not loopback, without --token-file/);
    assert.doesNotMatch(r.stderr, /serving MCP|\n\s+at /);
  }
});

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

test("hcp serve --mcp --http on an address it cannot take says why in words, exit 1: a port another program listens on, an address no interface has", async () => {
  const env = isolatedEnv();
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  try {
    const port = (taken.address() as { port: number }).port;
    const token = join(tempDir(), "token");
    writeFileSync(token, "tok3n-Zq81vX-7f3a9c\n", { mode: 0o600 });
    for (const [where, why] of [
      [`127.0.0.1:${port}`, "address already in use (another program listens there)"],
      // TEST-NET-1: no interface has it (off loopback, so with a token).
      ["192.0.2.1:0", "no interface of this machine has that address"],
    ] as const) {
      const r = await hcp(["serve", "--mcp", PROBE_PACK, "--http", where, "--token-file", token], { env, timeoutMs: 60_000 });
      assert.equal(r.code, 1, `${where}: ${r.stderr}`);
      assert.match(r.stderr, /^Error: cannot listen on /m, where);
      assert.ok(r.stderr.includes(`: ${why}\n`), `${where}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /E[A-Z]{4,}|serving MCP|\n\s+at /);
    }
  } finally {
    taken.close();
  }
});

test("--token-file is read like the credential file: a file group or others can read or write, another user's, not a regular file, empty, not one line or shorter than 16 characters is refused, exit 3, naming the file; the token is never shown and nothing listens", async () => {
  const env = isolatedEnv();
  const TOKEN = "tok3n-Zq81vX-7f3a9c";
  const dir = tempDir();
  const tokenFile = (name: string, content: string, mode = 0o600) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    chmodSync(path, mode);
    return path;
  };
  const refusals: [string, RegExp][] = [];
  for (const mode of [0o644, 0o640, 0o604, 0o620, 0o602, 0o601]) {
    const path = tokenFile(`mode-${mode.toString(8)}`, `${TOKEN}\n`, mode);
    refusals.push([path, new RegExp(`token file ${escaped(path)} has mode 0${mode.toString(8)}; .*\\(chmod 600 ${escaped(path)}\\)`)]);
  }
  if (process.getuid?.() === 0) {
    // Running as root, the file of another user can be read: it must still be refused (that user could change it).
    const theirs = tokenFile("theirs", `${TOKEN}\n`);
    chownSync(theirs, 65534, 65534);
    refusals.push([theirs, new RegExp(`token file ${escaped(theirs)} is owned by uid 65534, not by this user`)]);
  }
  const fifo = join(dir, "fifo");
  execFileSync("mkfifo", ["-m", "600", fifo]);
  refusals.push(
    [fifo, /cannot read token file .*fifo: it is a FIFO, not a regular file/],
    [dir, /cannot read token file .*: it is a directory, not a regular file/],
    [join(dir, "missing"), /token file .*missing does not exist/],
    [tokenFile("huge", "a".repeat((1 << 20) + 1)), /cannot read token file .*huge: it is larger than the 1 MiB limit/],
    [tokenFile("empty", ""), /token file .*empty is empty/],
    [tokenFile("newline", "\n"), /token file .*newline is empty/],
    [tokenFile("two-lines", `${TOKEN}\n${TOKEN}-2\n`), /token file .*two-lines must hold the token alone on one line/],
    [tokenFile("spaced", `${TOKEN} ${TOKEN}\n`), /token file .*spaced must hold the token alone on one line/],
    [tokenFile("short", `${TOKEN.slice(0, 15)}\n`), /token file .*short holds a token of 15 characters; use at least 16 random ones: umask 077 && openssl rand -hex 32 > /],
  );
  for (const [path, why] of refusals) {
    const r = await hcp(["serve", "--mcp", PROBE_PACK, "--http", "127.0.0.1:0", "--token-file", path], { env, timeoutMs: 60_000 });
    assert.equal(r.code, 3, `${path}: ${r.stderr}`);
    assert.match(r.stderr, why);
    assert.equal(r.stderr.includes(TOKEN), false, `${path}: the token is shown`);
    assert.doesNotMatch(r.stderr, /serving MCP|\n\s+at /);
  }
  // One trailing newline is dropped (CRLF too): the token is the rest.
  for (const ending of ["", "\n", "\r\n"]) {
    const s = await serve(["--token-file", tokenFile(`ending-${ending.length}`, TOKEN + ending)]);
    try {
      await stillAnswers(s.url, TOKEN);
    } finally {
      await s.stop();
    }
  }
});

test("over HTTP the bearer token is never shown: not in any answer (refusals, results, errors), on stderr, in the audit log, nor in a child's environment", async () => {
  const TOKEN = "b34rer-Kp2wQ9-e81d40";
  const tokenFile = join(tempDir(), "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const env = isolatedEnv();
  const s = await serveHttp([PROBE_PACK], { args: ["--token-file", tokenFile, "--allow-write"], cwd: tempDir(), env });
  const answers: string[] = [];
  try {
    for (const authorization of [`Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, `bearer  ${TOKEN.toUpperCase()}`]) {
      const r = await raw(s.url, { authorization });
      assert.equal(r.status, 401);
      answers.push(JSON.stringify(r));
    }
    const notJson = await raw(s.url, { authorization: `Bearer ${TOKEN}` }, { body: "{not json" });
    assert.equal(notJson.status, 400);
    answers.push(JSON.stringify(notJson));
    const client = await connect(s.url, TOKEN);
    try {
      const echo = await client.callTool({ name: "hcp-probe_echo", arguments: { message: "env" } });
      const childEnv = (echo.structuredContent as { json: { env: Record<string, string> } }).json.env;
      assert.equal(childEnv["HOME"], env["HOME"], "the child's environment is shown whole");
      const write = await client.callTool({ name: "hcp-probe_write", arguments: {} });
      assert.equal((write.structuredContent as { stdout: string }).stdout, "written\n");
      const failed = await client.callTool({ name: "hcp-probe_fail", arguments: {} });
      assert.equal(failed.isError, true);
      const unknown = await client.callTool({ name: "hcp-probe_nope", arguments: {} }).then(String, (err: Error) => err.message);
      assert.match(unknown, /unknown tool/);
      answers.push(unknown, ...[echo, write, failed, await client.listTools()].map((a) => JSON.stringify(a)));
    } finally {
      await client.close();
    }
  } finally {
    assert.equal(await s.stop(), 143);
  }
  const audit = readFileSync(env["HCP_AUDIT"]!, "utf8");
  assert.match(audit, /"verb":"write"/, "the write was logged");
  for (const [where, text] of [...answers.map((a, i) => [`answer ${i}`, a]), ["stderr", s.stderr()], ["the audit log", audit]]) {
    assert.equal(text!.includes(TOKEN), false, `the token is in ${where}`);
  }
});

/** The pids the sleeper verb writes in the server's folder once it runs: its child's and grandchild's. */
async function sleeperPids(s: Served): Promise<number[]> {
  const files = [join(s.dir, "child.pid"), join(s.dir, "grandchild.pid")];
  for (let i = 0; i < 2400 && !files.every((f) => existsSync(f) && readFileSync(f, "utf8") !== ""); i++) await sleep(25);
  return files.map((f) => Number(readFileSync(f, "utf8")));
}

for (const fault of FAULTS) {
  test(`an unforeseen fault (${fault}) over HTTP while a verb runs: the call is answered cancelled, its group killed, exit 2, one line on stderr and no stack trace`, async () => {
    const s = await serve(["--stateful"], faultWhenRunning(fault));
    const client = await connect(s.url);
    const call = client.callTool({ name: "hcp-probe_sleeper", arguments: {} });
    call.catch(() => {});
    const pids = await sleeperPids(s);
    const answered = await call;
    assert.equal(answered.isError, true);
    assert.equal((answered.structuredContent as { error: { code: string } }).error.code, "cancelled");
    assert.equal(await s.exited, 2, s.stderr());
    assertFaultReported(s.stderr());
    for (let i = 0; i < 400 && pids.some(alive); i++) await sleep(25);
    assert.deepEqual(pids.map(alive), [false, false]);
    await client.close();
  });
}

for (const mode of ["stateless", "--stateful"]) {
  test(`attack: SIGTERM over HTTP (${mode}) while a call's program ignores SIGTERM: the call is answered cancelled once its group is SIGKILLed, before the connections close (it went unanswered: the drain ended with the kill grace)`, async () => {
    const pack = probePack("stubborn", { hold: { description: "Hold.", cli: ["probe", "run", "ignore-term", "pid:hold.pid", "sleep:60000"], policy: "read" } });
    const dir = tempDir();
    const s = await serveHttp([pack], { args: mode === "stateless" ? [] : [mode], cwd: dir, env: isolatedEnv() });
    const client = await connect(s.url);
    const call = client.callTool({ name: "stubborn_hold", arguments: {} });
    call.catch(() => {});
    const pidFile = join(dir, "hold.pid");
    for (let i = 0; i < 2400 && !(existsSync(pidFile) && readFileSync(pidFile, "utf8") !== ""); i++) await sleep(25);
    const pid = Number(readFileSync(pidFile, "utf8"));
    s.child.kill("SIGTERM");
    const answered = await call;
    assert.equal(answered.isError, true);
    assert.match(JSON.stringify(answered.structuredContent ?? answered.content), /cancel/, JSON.stringify(answered));
    assert.equal(await s.exited, 143);
    assert.equal(alive(pid), false, "its program was killed");
    await client.close().catch(() => {});
  });
}

test("SIGTERM over HTTP: the call in flight is cancelled and answered, its process group killed, the port freed", async () => {
  const s = await serve();
  const client = await connect(s.url);
  const call = client.callTool({ name: "hcp-probe_sleeper", arguments: {} });
  call.catch(() => {});
  const pids = await sleeperPids(s);
  const sent = Date.now();
  s.child.kill("SIGTERM");
  // The answer comes before the server goes: a result (cancelled), not a dropped connection.
  const answered = await call;
  assert.equal(answered.isError, true);
  assert.equal(await s.exited, 143);
  // The promise is 3 s; the assertion keeps a 10x margin for a loaded machine.
  assert.ok(Date.now() - sent < 30_000, `exited ${Date.now() - sent} ms after SIGTERM`);
  for (let i = 0; i < 400 && pids.some(alive); i++) await sleep(25);
  assert.deepEqual(pids.map(alive), [false, false]);
  // The port is free again.
  const port = Number(new URL(s.url).port);
  await new Promise<void>((resolve, reject) => {
    const probe = createServer().once("error", reject);
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve()));
  });
  await client.close();
});
