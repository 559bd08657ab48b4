// hcp serve --mcp's JSON-RPC errors through the SDK client, over stdio and HTTP (stateless and --stateful): the codes
// JSON-RPC and MCP give them (found around the official conformance suite, `npm run conformance`), their messages
// written once, and lists in one page.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, EmptyResultSchema, LoggingMessageNotificationSchema, McpError, type LoggingLevel } from "@modelcontextprotocol/sdk/types.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { HCP, PROBE_PACK, hcp, httpClient, mcpClient, rawHttp, serveHttp, tempDir } from "../transports/support.js";
import { alive, eventually } from "../runtime/support.js";
import { marks, witnessPack } from "./witness-pack.js";

type Connect = (pack?: string) => Promise<{ client: Client; end: () => Promise<unknown> }>;

/** Each transport: a client connected to a fresh hcp serving the pack (the probe pack unless told), and how to end both. */
const TRANSPORTS: Record<string, Connect> = {
  stdio: async (pack = PROBE_PACK) => {
    const { client } = await mcpClient([pack], { env: isolatedEnv() });
    return { client, end: () => client.close() };
  },
  http: async (pack = PROBE_PACK) => {
    const served = await serveHttp([pack], { env: isolatedEnv() });
    const { client } = await httpClient(served.url);
    return { client, end: () => client.close().finally(served.stop) };
  },
  "http --stateful": async (pack = PROBE_PACK) => {
    const served = await serveHttp([pack], { env: isolatedEnv(), args: ["--stateful"] });
    const { client } = await httpClient(served.url);
    return { client, end: () => client.close().finally(served.stop) };
  },
};

/** The JSON-RPC error a request got (the client puts "MCP error <code>: " before the server's message). */
async function errorOf(request: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await request;
  } catch (err) {
    assert.ok(err instanceof McpError, `an McpError, got ${String(err)}`);
    return { code: err.code, message: err.message };
  }
  return assert.fail("the request succeeded");
}

for (const [name, connect] of Object.entries(TRANSPORTS)) {
  test(`${name}: params that fail the method's schema are -32602 naming the field, not -32603 with a schema dump`, async () => {
    const { client, end } = await connect();
    try {
      const level = await errorOf(client.setLoggingLevel("loud" as LoggingLevel));
      assert.equal(level.code, -32602);
      assert.match(level.message, /^MCP error -32602: invalid params for logging\/setLevel: params\.level: /);
      assert.ok(!level.message.includes("\n"), "one line, no schema library dump");

      const nameless = await errorOf(client.request({ method: "tools/call", params: {} as { name: string } }, CallToolResultSchema));
      assert.equal(nameless.code, -32602);
      assert.match(nameless.message, /invalid params for tools\/call: params\.name: /);

      // The server goes on, and a valid level is still taken.
      assert.deepEqual(await client.setLoggingLevel("error"), {});
      assert.deepEqual(await client.ping(), {});
    } finally {
      await end();
    }
  });

  test(`${name}: an unknown tool, prompt or resource is -32602, its message written once`, async () => {
    const { client, end } = await connect();
    try {
      assert.deepEqual(await errorOf(client.callTool({ name: "nope" })), { code: -32602, message: 'MCP error -32602: unknown tool "nope" (tools/list names the 7 tools this server serves)' });
      assert.deepEqual(await errorOf(client.getPrompt({ name: "nope" })), { code: -32602, message: 'MCP error -32602: no prompt "nope"' });
      assert.deepEqual(await errorOf(client.readResource({ uri: "test://nope" })), { code: -32602, message: 'MCP error -32602: no resource "test://nope"' });
    } finally {
      await end();
    }
  });

  test(`${name}: lists come whole with no nextCursor; a cursor hcp never gave is -32602; resources/templates/list is answered (empty)`, async () => {
    const { client, end } = await connect();
    try {
      const tools = await client.listTools();
      assert.ok(tools.tools.length > 0);
      const templates = await client.listResourceTemplates();
      assert.deepEqual(templates.resourceTemplates, []);
      for (const list of [tools, templates, await client.listResources(), await client.listPrompts()]) assert.equal(list.nextCursor, undefined);

      const cursor = { cursor: "bogus" };
      // All four are sent at once; each gets its rejection handler before any can settle (no unhandled rejection).
      const errors = await Promise.all([client.listTools(cursor), client.listResources(cursor), client.listPrompts(cursor), client.listResourceTemplates(cursor)].map(errorOf));
      for (const error of errors) {
        assert.equal(error.code, -32602);
        assert.equal(error.message, "MCP error -32602: invalid cursor: hcp lists everything in one page and gives no cursors");
      }
      assert.deepEqual(await client.request({ method: "ping" }, EmptyResultSchema), {});
    } finally {
      await end();
    }
  });
}

for (const [name, connect] of Object.entries(TRANSPORTS)) {
  // Stateless, every request stands alone, and a level set by logging/setLevel with it; a session keeps it.
  const session = name !== "http";
  test(`${name}: a call's warning (output dropped) arrives with its answer${session ? ", unless the client set a higher level" : ""}`, async () => {
    const pack = probePack("flood", { flood: { description: "Write 4 KiB.", cli: ["probe", "run", "out:4096"], policy: "read" } }, {}, { verbs: { flood: "read" }, limits: { max_output_bytes: 1024 } });
    const { client, end } = await connect(pack);
    try {
      const logged: string[] = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(String(n.params.data)));
      const flood = async () => assert.equal(((await client.callTool({ name: "flood_flood", arguments: {} })).structuredContent as { stdout_truncated: boolean }).stdout_truncated, true);
      // The notification goes before the call's answer, on the same stream: once the call is answered, it is here.
      await flood();
      assert.equal(logged.length, 1, JSON.stringify(logged));
      assert.match(logged[0]!, /flood_flood: output past 1024 bytes per stream was dropped/);
      if (!session) return;
      await client.setLoggingLevel("error");
      await flood();
      assert.equal(logged.length, 1, `nothing below "error": ${JSON.stringify(logged)}`);
      await client.setLoggingLevel("warning");
      await flood();
      assert.equal(logged.length, 2, JSON.stringify(logged));
    } finally {
      await end();
    }
  });
}

test("http: a body that is not JSON is -32700; JSON that is not a JSON-RPC message is -32600 with its id, as on stdio", async () => {
  const served = await serveHttp([PROBE_PACK], { env: isolatedEnv() });
  try {
    const garbage = await rawHttp(served.url, { body: "{not json" });
    assert.equal(garbage.status, 400);
    const parseError = JSON.parse(garbage.body) as { id?: unknown; error: { code: number; message: string } };
    assert.equal(parseError.error.code, -32700);
    assert.equal(parseError.id, undefined);

    const wrong = await rawHttp(served.url, { body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 }) });
    assert.equal(wrong.status, 400);
    assert.deepEqual(JSON.parse(wrong.body), { jsonrpc: "2.0", id: 7, error: { code: -32600, message: "Invalid Request: not a valid JSON-RPC 2.0 message" } });

    const ping = await rawHttp(served.url, { body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }) });
    assert.equal(ping.status, 200);
    assert.match(ping.body, /"id":8/);
  } finally {
    await served.stop();
  }
});

const BATCH_REFUSED = { code: -32600, message: "Invalid Request: batches are not supported; send one message at a time" };
const rpc = (id: number, method: string, params: object = {}) => ({ jsonrpc: "2.0", id, method, params });
const call = (id: number) => rpc(id, "tools/call", { name: "w_work", arguments: {} });
const INITIALIZE = rpc(1, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } });

test("a JSON-RPC batch is refused the same way over stdio and HTTP (stateless and --stateful): -32600, and none of its calls runs", async () => {
  const root = tempDir("hcp-mcp-batch-");
  const log = join(root, "witness.log");
  witnessPack(root, "w", log);
  const batch = JSON.stringify([call(2), call(3)]);

  const stdio = await hcp(["serve", "--mcp", root], {
    env: isolatedEnv(),
    stdin: [JSON.stringify(INITIALIZE), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), batch].join("\n") + "\n",
    timeoutMs: 60_000,
  });
  assert.equal(stdio.code, 0, stdio.stderr);
  const answers = stdio.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id?: number; error?: object });
  assert.deepEqual(answers.filter((a) => a.id !== 1).map((a) => [a.id, a.error]), [[2, BATCH_REFUSED], [3, BATCH_REFUSED]]);
  assert.equal(existsSync(log), false, "no call of the batch ran over stdio");

  for (const args of [[], ["--stateful"]]) {
    const served = await serveHttp([root], { env: isolatedEnv(), args });
    try {
      const session: Record<string, string> = {};
      if (args.length > 0) {
        const opened = await rawHttp(served.url, { body: JSON.stringify(INITIALIZE) });
        session["mcp-session-id"] = String(opened.headers["mcp-session-id"]);
      }
      const refused = await rawHttp(served.url, { headers: session, body: batch });
      assert.equal(refused.status, 400, `${args.join(" ")}: ${refused.body}`);
      assert.deepEqual(JSON.parse(refused.body), { jsonrpc: "2.0", error: BATCH_REFUSED });
      assert.equal(existsSync(log), false, `no call of the batch ran over HTTP ${args.join(" ")}`);
      const single = await rawHttp(served.url, { headers: session, body: JSON.stringify(call(4)) });
      assert.match(single.body, /"id":4/, "one message at a time is answered");
      assert.equal(marks(log), 2, "the single call ran once (S and E)");
    } finally {
      await served.stop();
    }
    rmSync(log);
  }
});

test("stdio: a tools/call asking for a task is refused and nothing runs (hcp offers no tasks); a plain call's answer is a valid CallToolResult", async () => {
  const root = tempDir("hcp-mcp-task-");
  const log = join(root, "witness.log");
  witnessPack(root, "w", log);
  const withTask = rpc(2, "tools/call", { name: "w_work", arguments: {}, task: { ttl: 60_000 } });
  const r = await hcp(["serve", "--mcp", root], {
    env: isolatedEnv(),
    stdin: [INITIALIZE, { jsonrpc: "2.0", method: "notifications/initialized" }, withTask].map((m) => JSON.stringify(m)).join("\n") + "\n",
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  const answers = r.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id?: number; error?: { code: number }; result?: unknown });
  const refused = answers.find((a) => a.id === 2);
  assert.ok(refused?.error !== undefined && refused.result === undefined, `refused with an error: ${JSON.stringify(refused)}`);
  assert.equal(existsSync(log), false, "the call asking for a task did not run");

  const plain = await hcp(["serve", "--mcp", root], {
    env: isolatedEnv(),
    stdin: [INITIALIZE, { jsonrpc: "2.0", method: "notifications/initialized" }, call(3)].map((m) => JSON.stringify(m)).join("\n") + "\n",
    timeoutMs: 60_000,
  });
  assert.equal(plain.code, 0, plain.stderr);
  const answer = plain.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id?: number; result?: unknown }).find((a) => a.id === 3);
  const parsed = CallToolResultSchema.safeParse(answer?.result);
  assert.ok(parsed.success, `a valid CallToolResult: ${JSON.stringify(answer)}`);
  assert.equal(marks(log), 2, "the plain call ran once (S and E)");
});

test("attack: stdio: a response to an id the server never used, nested 5,000 levels deep (which the SDK cannot quote back), is dropped: the call in flight finishes and is answered, a later ping too, and the server ends cleanly", async () => {
  const root = tempDir("hcp-mcp-deep-");
  const log = join(root, "witness.log");
  witnessPack(root, "w", log);
  const deep = `{"jsonrpc":"2.0","id":99,"result":{"x":${"[".repeat(5000)}${"]".repeat(5000)}}}`;
  const r = await hcp(["serve", "--mcp", root], {
    env: isolatedEnv(),
    stdin: [JSON.stringify(INITIALIZE), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), JSON.stringify(call(2)), deep, JSON.stringify(rpc(3, "ping"))].join("\n") + "\n",
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /internal error/);
  const answers = r.stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id?: number; error?: object; result?: { isError?: boolean } });
  const called = answers.find((a) => a.id === 2);
  assert.ok(called?.result !== undefined && called.result.isError !== true, `the call was answered with its result: ${JSON.stringify(called)}`);
  assert.deepEqual(answers.find((a) => a.id === 3), { jsonrpc: "2.0", id: 3, result: {} });
  assert.equal(marks(log), 2, "the call ran whole (S and E)");
});

/** A verb that writes its pid to `<mark>.pid`, sleeps `ms`, then prints `slept <mark>`. */
const napping = (mark: string, ms: number) => ({ description: "Sleep.", cli: ["probe", "run", `pid:${mark}.pid`, `sleep:${ms}`, `print:slept ${mark}`], policy: "read" });
const line = (m: object) => JSON.stringify(m) + "\n";
const nap = (id: number, verb: string) => rpc(id, "tools/call", { name: `nap_${verb}`, arguments: {} });

test("attack: stdio: a cancellation and a new request under the cancelled call's id, in one write: the cancelled call is killed and never answered, the new request is refused as a duplicate (-32600), never run nor answered with the other's result", async () => {
  const cwd = tempDir("hcp-mcp-cancel-reuse-");
  const root = probePack("nap", { first: napping("first", 30_000), second: napping("second", 100) });
  const child = spawn(process.execPath, [HCP, "serve", "--mcp", root], { cwd, env: isolatedEnv(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  const closed = new Promise<number | string | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    child.stdin.write(line(INITIALIZE) + line({ jsonrpc: "2.0", method: "notifications/initialized" }) + line(nap(5, "first")));
    assert.ok(await eventually(() => existsSync(join(cwd, "first.pid")), 30_000), `the first call started: ${out}`);
    const first = Number(readFileSync(join(cwd, "first.pid"), "utf8"));
    child.stdin.write(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } }) + line(nap(5, "second")));
    assert.ok(await eventually(() => !alive(first), 10_000), "the cancelled call's program is killed");
    child.stdin.end(line(rpc(6, "ping")));
    assert.equal(await closed, 0);
    const answers = out.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as { id?: number; error?: { code: number; message: string }; result?: unknown });
    assert.deepEqual(answers.filter((a) => a.id === 5).map((a) => a.error?.code), [-32600], `one answer under id 5, the refusal: ${out}`);
    assert.match(answers.find((a) => a.id === 5)!.error!.message, /still unanswered/);
    assert.ok(!existsSync(join(cwd, "second.pid")), "the refused request never ran");
    assert.doesNotMatch(out, /slept/, "no call's result was answered");
  } finally {
    clearTimeout(guard);
    if (child.exitCode === null) child.kill("SIGKILL");
  }
});
