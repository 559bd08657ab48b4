// Red team at the door of `hcp serve --mcp --http`: a client (holding the token) that opens more requests than the
// server should hold, or sends bodies that together would fill its memory, is refused at once (503, Retry-After) and
// nothing of it runs; the server goes on. And `--allow-host`, which makes a 0.0.0.0 bind reachable by a name, still
// refuses every other name (DNS rebinding).

import assert from "node:assert/strict";
import { request, type ClientRequest } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { eventually } from "../runtime/support.js";
import { hcp, httpClient, rawHttp, serveHttp, tempDir, type HttpServed } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { trustPack } from "./helpers.js";
import { processesWithHome, runsIn, runsPack } from "./runs-pack.js";

const TOKEN = "door-token-5f0c2a9e7b31d4c8";
const GUARD_MS = 60_000;

interface Served extends HttpServed {
  cwd: string;
  home: string;
}

async function serve(args: string[], listen?: string): Promise<Served> {
  const cwd = tempDir("hcp-door-");
  const env = isolatedEnv();
  const tokenFile = join(tempDir("hcp-door-token-"), "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  const s = await serveHttp([runsPack({ concurrency: 8 })], { args: ["--token-file", tokenFile, ...args], cwd, env, ...(listen === undefined ? {} : { listen }) });
  return { ...s, cwd, home: env["HOME"]! };
}

const auth = { authorization: `Bearer ${TOKEN}` };
const call = (id: number, verb: string) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: `bp_${verb}`, arguments: {} } });

/** A POST left open: its answer comes when the call ends, or never; `abort` closes it. */
function hold(url: string, body: string): { req: ClientRequest; abort: () => void } {
  const req = request(url, { method: "POST", headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": String(Buffer.byteLength(body)) } });
  req.on("error", () => {});
  req.end(body);
  return { req, abort: () => req.destroy() };
}

async function stop(s: Served): Promise<void> {
  assert.equal(await s.stop(), 143, s.stderr());
  assert.ok(await eventually(() => processesWithHome(s.home, s.child.pid!).length === 0, 10_000), "a process hcp started outlived it");
}

test("over HTTP, requests past --max-requests are refused at once with 503 and Retry-After (JSON-RPC -32000 Server busy); none of them runs, and the server goes on once one ends", async () => {
  const s = await serve(["--max-requests", "4"]);
  const held = [0, 1, 2, 3].map((i) => hold(s.url, call(i, "nap")));
  try {
    assert.ok(await eventually(() => runsIn(s.cwd).length === 4, GUARD_MS), `the 4 calls run: ${s.stderr()}`);
    const refused = await Promise.all([...Array(10).keys()].map((i) => rawHttp(s.url, { headers: auth, body: call(100 + i, "mark") })));
    for (const r of refused) {
      assert.equal(r.status, 503, r.body);
      assert.equal(r.headers["retry-after"], "1");
      const body = JSON.parse(r.body) as { error: { code: number; message: string } };
      assert.equal(body.error.code, -32000);
      assert.match(body.error.message, /^Server busy: 4 requests are being answered, the most this server takes at once \(--max-requests\)/);
    }
    assert.deepEqual(runsIn(s.cwd).map(([v]) => v), ["nap", "nap", "nap", "nap"], "no refused call ran");
    // One request ends: the next is taken on (its call runs once), and the SDK client's own go through as before.
    held[0]!.abort();
    let r = await rawHttp(s.url, { headers: auth, body: call(200, "mark") });
    const end = Date.now() + GUARD_MS;
    while (r.status === 503 && Date.now() < end) r = await rawHttp(s.url, { headers: auth, body: call(200, "mark") });
    assert.equal(r.status, 200, r.body);
    assert.match(r.body, /marked/);
    assert.equal(runsIn(s.cwd).filter(([v]) => v === "mark").length, 1);
  } finally {
    for (const h of held) h.abort();
    await stop(s);
  }
});

test("over HTTP, request bodies held at once are bounded (64 MiB): past it a request is refused at once with 503, its body never held; the server goes on", async () => {
  const s = await serve([]);
  const { hostname, port } = new URL(s.url);
  // 16 requests declaring bodies of 4 MiB and sending none: the server counts each body whole as it takes it on.
  const open = [...Array(16).keys()].map(() => {
    const req = request({ hostname, port, path: "/mcp", method: "POST", headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": String(4 * 1024 * 1024) } });
    req.on("error", () => {});
    req.flushHeaders();
    return req;
  });
  try {
    // A whole body of 4 MiB (a tools/list padded with spaces) no longer fits beside them.
    const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const padded = list + " ".repeat(4 * 1024 * 1024 - list.length);
    let r = await rawHttp(s.url, { headers: auth, body: padded });
    const end = Date.now() + GUARD_MS;
    // The held requests reach the server on their own connections: until the last one has, this one may still fit.
    while (r.status === 200 && Date.now() < end) r = await rawHttp(s.url, { headers: auth, body: padded });
    assert.equal(r.status, 503, r.body);
    assert.equal(r.headers["retry-after"], "1");
    assert.match((JSON.parse(r.body) as { error: { message: string } }).error.message, /^Server busy: the requests being answered hold 67108864 bytes of bodies, the most this server holds/);
    for (const req of open) req.destroy();
    let ok = await rawHttp(s.url, { headers: auth, body: padded });
    while (ok.status === 503 && Date.now() < end) ok = await rawHttp(s.url, { headers: auth, body: padded });
    assert.equal(ok.status, 200, "once the held requests are gone, a big body is taken again");
  } finally {
    for (const req of open) req.destroy();
    await stop(s);
  }
});

test("--allow-host makes a 0.0.0.0 bind reachable by the names given (any case, with the port or bare; NAME:PORT only with that port); every other Host or Origin is still refused (DNS rebinding)", async () => {
  const s = await serve(["--allow-host", "mcp.test", "--allow-host", "Proxy.Test:8443"], "0.0.0.0:0");
  try {
    const port = new URL(s.url).port;
    const url = `http://127.0.0.1:${port}/mcp`;
    const list = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const ask = (headers: Record<string, string>) => rawHttp(url, { headers: { ...auth, ...headers }, body: list });
    for (const host of [`mcp.test:${port}`, "mcp.test", `MCP.Test:${port}`, "proxy.test:8443", `127.0.0.1:${port}`]) {
      const r = await ask({ host });
      assert.equal(r.status, 200, `${host}: ${r.body}`);
    }
    for (const origin of ["https://mcp.test", `http://mcp.test:${port}`, "https://proxy.test:8443"]) {
      const r = await ask({ host: "mcp.test", origin });
      assert.equal(r.status, 200, `${origin}: ${r.body}`);
    }
    const foreign = ["evil.test", `evil.test:${port}`, `mcp.test.evil.test:${port}`, `xmcp.test:${port}`, "mcp.test:1", "proxy.test", `proxy.test:${port}`, `0.0.0.1:${port}`, "mcp.test.:80"];
    for (const host of foreign) {
      const r = await ask({ host });
      assert.equal(r.status, 403, `Host ${host} is refused: ${r.body}`);
    }
    for (const origin of ["http://evil.test", `http://evil.test:${port}`, "https://mcp.test.evil.test", "null", "https://proxy.test"]) {
      const r = await ask({ host: "mcp.test", origin });
      assert.equal(r.status, 403, `Origin ${origin} is refused: ${r.body}`);
    }
    // The SDK's own client, through a name given.
    const { client } = await httpClient(url, { token: TOKEN });
    try {
      const answer = await client.callTool({ name: "bp_mark", arguments: {} });
      assert.equal((answer.structuredContent as { stdout: string }).stdout, "marked\n");
    } finally {
      await client.close();
    }
    assert.deepEqual(runsIn(s.cwd).map(([v]) => v), ["mark"], "no refused request ran anything");
  } finally {
    await stop(s);
  }
});

test("--allow-host and --max-requests are refused without --http, and a value that is not a host name or address is refused naming it; nothing listens", async () => {
  const env = isolatedEnv();
  const pack = runsPack();
  for (const [args, message] of [
    [["--allow-host", "mcp.test"], /--allow-host goes with --http/],
    [["--max-requests", "5"], /--max-requests goes with --http/],
    [["--http", "0", "--allow-host", "evil.test/x"], /--allow-host takes NAME or NAME:PORT .*got "evil\.test\/x"/],
    [["--http", "0", "--allow-host", "-x"], /--allow-host takes NAME or NAME:PORT/],
    [["--http", "0", "--allow-host", "a b"], /--allow-host takes NAME or NAME:PORT/],
    [["--http", "0", "--allow-host", "[zz]"], /--allow-host takes NAME or NAME:PORT/],
    [["--http", "0", "--allow-host", "mcp.test:99999"], /--allow-host takes NAME or NAME:PORT/],
    [["--http", "0", "--allow-host", "*"], /--allow-host takes NAME or NAME:PORT/],
    [["--http", "0", "--max-requests", "0"], /--max-requests must be an integer from 1 to 100000, got 0/],
  ] as const) {
    const r = await hcp(["serve", "--mcp", pack, ...args], { env, timeoutMs: GUARD_MS });
    assert.equal(r.code, 1, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /serving MCP|\n\s+at /);
  }
});

test("attack: under the operator's HCP_NO_PROMPT, an agent that starts hcp serve --http off loopback (0.0.0.0 or ::, with a token of its own and --allow-host) to let whoever reaches the port call the person's trusted verbs is refused (exit 4) and nothing listens; on loopback it serves; without the variable the same bind serves", async () => {
  const env = { ...isolatedEnv(), HCP_NO_PROMPT: "1" };
  const pack = probePack("door", { say: { description: "Say hi.", cli: ["probe"], policy: "read" } }, {}, { default: "deny", verbs: { say: "read" } });
  // Where HCP_NO_PROMPT is set, servers serve only packs a person trusted: this one a person did.
  await trustPack(pack, env);
  const tokenFile = join(tempDir("hcp-door-token-"), "token");
  writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  for (const listen of ["0.0.0.0:0", "[::]:0", "0.0.0.0:0 --allow-host mcp.test"]) {
    const [spec, ...more] = listen.split(" ");
    const r = await hcp(["serve", "--mcp", pack, "--http", spec!, "--token-file", tokenFile, ...more], { env, timeoutMs: GUARD_MS });
    assert.equal(r.code, 4, `${listen}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`hcp serve --http ${spec} must be run by a person at a terminal of their own: HCP_NO_PROMPT is set here, as an operator sets it where an agent's commands run, so that an agent cannot open your packs to the network`), r.stderr);
    assert.doesNotMatch(r.stderr, /serving MCP/);
  }
  // On loopback the agent reaches only what it could run itself.
  const local = await serveHttp([pack], { args: ["--token-file", tokenFile], cwd: tempDir("hcp-door-"), env });
  assert.equal(await local.stop(), 143, local.stderr());
  // The person's own terminal: the same bind serves.
  const { HCP_NO_PROMPT: _set, ...persons } = env;
  const open = await serveHttp([pack], { args: ["--token-file", tokenFile], cwd: tempDir("hcp-door-"), env: persons, listen: "0.0.0.0:0" });
  assert.equal(await open.stop(), 143, open.stderr());
});
