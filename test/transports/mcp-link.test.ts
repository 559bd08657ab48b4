// The early `initialize` and `tools/list` answers of `hcp serve --mcp`: byte for byte what the SDK's Server answers, and the hand-over to it.

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import fc from "fast-check";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import * as types from "@modelcontextprotocol/sdk/types.js";
import { McpError, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ApprovalSession } from "../../src/runtime/approval/gate.js";
import { loadSdk, mcpServer, servedOf, type McpOptions } from "../../src/transports/mcp.js";
import {
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  StdioLink,
  TURN_BYTES,
  earlyInitialize,
  earlyToolsList,
  idOfOversized,
  messageLine,
  serverIdentity,
  type ServerIdentity,
  type ToolsListed,
} from "../../src/transports/mcp-link.js";
import { ANSWER_TOO_LARGE } from "../../src/transports/mcp-jsonrpc.js";
import { loadServed } from "../../src/transports/packs.js";
import { listedLength, toolsListed } from "../../src/transports/tools.js";
import { fixture } from "../e2e/helpers.js";

const identity = serverIdentity("9.9.9", "Some instructions.\nTwo lines.");

test("the protocol versions are the SDK's", () => {
  assert.equal(LATEST_PROTOCOL_VERSION, types.LATEST_PROTOCOL_VERSION);
  assert.deepEqual(SUPPORTED_PROTOCOL_VERSIONS, types.SUPPORTED_PROTOCOL_VERSIONS);
});

/** What the SDK's Server sends for one line of input (as its stdio transport reads it), or null when it sends nothing. */
async function sdkAnswer(line: string, id: ServerIdentity): Promise<string | null> {
  let message: JSONRPCMessage;
  try {
    message = deserializeMessage(line);
  } catch {
    return null; // the stdio transport reports it to onerror and answers nothing
  }
  const server = new Server(id.serverInfo, { capabilities: id.capabilities, instructions: id.instructions });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: JSONRPCMessage[] = [];
  // The SDK's transports take their handler as a property.
  // oxlint-disable-next-line unicorn/prefer-add-event-listener
  client.onmessage = (m) => void sent.push(m);
  await server.connect(serverSide);
  await client.start();
  await client.send(message);
  for (let i = 0; i < 20 && sent.length === 0; i++) await new Promise((r) => setImmediate(r));
  await server.close();
  return sent.length === 0 ? null : JSON.stringify(sent[0]);
}

const init = (params: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params, ...extra });
const base = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "c", version: "1" } };

test("earlyInitialize answers exactly as the SDK for the usual requests", async () => {
  const lines = [
    init(base),
    init({ ...base, protocolVersion: "2024-11-05" }),
    init({ ...base, protocolVersion: "1999-01-01" }),
    init({ ...base, capabilities: { elicitation: {}, roots: { listChanged: true }, sampling: {} } }),
    init({ ...base, capabilities: { elicitation: { form: { applyDefaults: true }, url: {} }, experimental: { x: {} }, other: 5 } }),
    init({ ...base, clientInfo: { name: "c", version: "1", title: "C", websiteUrl: "https://x", description: "d", extra: [1] } }),
    JSON.stringify({ jsonrpc: "2.0", id: "abc", method: "initialize", params: base }),
  ];
  for (const line of lines) {
    const early = earlyInitialize(JSON.parse(line), identity);
    assert.notEqual(early, null, line);
    assert.equal(JSON.stringify(early), await sdkAnswer(line, identity), line);
  }
  const none = serverIdentity("1", "");
  assert.equal(JSON.stringify(earlyInitialize(JSON.parse(lines[0]!), none)), await sdkAnswer(lines[0]!, none));
});

test("earlyInitialize leaves anything unusual to the SDK", () => {
  const lines = [
    init({ ...base, capabilities: { tasks: {} } }),
    init({ ...base, _meta: { progressToken: 1 } }),
    init({ ...base, task: { ttl: 1 } }),
    init({ ...base, clientInfo: { name: "c", version: 1 } }),
    init({ ...base, clientInfo: { name: "c", version: "1", icons: [] } }),
    init({ ...base, capabilities: { roots: { listChanged: "yes" } } }),
    init({ ...base, capabilities: { elicitation: { form: [] } } }),
    init({ ...base, capabilities: null }),
    init({ protocolVersion: "2025-06-18", capabilities: {} }),
    init(base, { extra: true }),
    init(base, { id: 1.5 }),
    init(base, { id: null }),
    init(base, { jsonrpc: "1.0" }),
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    JSON.stringify({ jsonrpc: "2.0", method: "initialize", params: base }),
  ];
  for (const line of lines) assert.equal(earlyInitialize(JSON.parse(line), identity), null, line);
});

test("whenever earlyInitialize answers, the SDK answers the same", async () => {
  const value = fc.oneof(fc.constantFrom<unknown>(null, true, 1, 1.5, "s", [], {}, { a: {} }, [{}]), fc.string());
  /** Mostly what clients send, sometimes something else. */
  const often = <T>(usual: fc.Arbitrary<T>) => fc.oneof({ weight: 9, arbitrary: usual }, { weight: 1, arbitrary: value });
  /** Absent (undefined, dropped by JSON) most of the time. */
  const rare = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
  const plain = fc.dictionary(fc.constantFrom("a", "b"), often(fc.constant({})), { maxKeys: 2 });
  const capabilities = fc.record(
    {
      experimental: often(fc.dictionary(fc.string(), often(plain), { maxKeys: 2 })),
      extensions: often(fc.dictionary(fc.string(), often(plain), { maxKeys: 2 })),
      sampling: often(fc.record({ context: often(plain), tools: often(plain), x: rare }, { requiredKeys: [] })),
      elicitation: often(fc.record({ form: often(fc.record({ applyDefaults: often(fc.boolean()), x: rare }, { requiredKeys: [] })), url: often(plain), x: rare }, { requiredKeys: [] })),
      roots: often(fc.record({ listChanged: often(fc.boolean()), x: rare }, { requiredKeys: [] })),
      tasks: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: often(plain) }),
      other: rare,
    },
    { requiredKeys: [] },
  );
  const clientInfo = fc.record(
    { name: often(fc.string()), version: often(fc.string()), title: often(fc.string()), websiteUrl: often(fc.string()), description: often(fc.string()), icons: rare, other: rare },
    { requiredKeys: ["name", "version"] },
  );
  const params = fc.record(
    { protocolVersion: often(fc.constantFrom(...SUPPORTED_PROTOCOL_VERSIONS, "2000-01-01")), capabilities: often(capabilities), clientInfo: often(clientInfo), _meta: rare, task: rare },
    { requiredKeys: ["protocolVersion", "capabilities", "clientInfo"] },
  );
  const message = fc.record(
    { jsonrpc: often(fc.constant("2.0")), id: often(fc.oneof(fc.integer(), fc.string())), method: often(fc.constant("initialize")), params: often(params), other: rare },
    { requiredKeys: ["jsonrpc", "method", "id"] },
  );
  let answered = 0;
  await fc.assert(
    fc.asyncProperty(message, async (generated) => {
      const m: unknown = JSON.parse(JSON.stringify(generated));
      const early = earlyInitialize(m, identity);
      if (early === null) return;
      answered++;
      assert.equal(JSON.stringify(early), await sdkAnswer(JSON.stringify(m), identity));
    }),
    { numRuns: 400 },
  );
  assert.ok(answered > 10, `only ${answered} generated requests were answered early`);
});

/**
 * A StdioLink on in-memory streams; `out()` is everything written so far. Its quiet time is a hang guard (60 s), not
 * 25 ms: what these tests assert is answered early must not depend on the machine reading the lines within 25 ms.
 */
function link(id: ServerIdentity = identity, listed: ToolsListed = { tools: [] }, quietMs = 60_000) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = "";
  stdout.setEncoding("utf8").on("data", (c: string) => (written += c));
  const l = new StdioLink(id, listed, stdin, stdout, quietMs);
  return { l, stdin, out: () => written };
}

const tick = () => new Promise((r) => setImmediate(r));

/** The output lines once there are `count` of them (a hang guard of many turns of the event loop). */
async function linesOf(out: () => string, count: number): Promise<string[]> {
  for (let i = 0; i < 2000 && out().split("\n").length <= count; i++) await tick();
  return out().split("\n").slice(0, count);
}

const line = (m: unknown) => JSON.stringify(m) + "\n";
const initialized = line({ jsonrpc: "2.0", method: "notifications/initialized" });

test("tools/list answered early is byte for byte what hcp's SDK server answers", async () => {
  const { packs } = await loadServed([fixture("packs/hcp-probe"), fixture("packs/hcp-secret")], "mcp", {}, { fetch: "command-line" });
  const sdk = await loadSdk();
  for (const opts of [{ version: "1" }, { version: "1", allowWrite: true }, { version: "1", readOnly: true }] as McpOptions[]) {
    const served = servedOf(packs, opts);
    assert.ok(served.tools.length > (opts.readOnly ? 0 : 3));
    // Early: nothing attached, the link answers initialize and then tools/list itself.
    const early = link(served.identity, toolsListed(served.tools));
    early.stdin.write(init(base) + "\n" + initialized + line({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    const [, earlyList] = await linesOf(early.out, 2);
    // Through the SDK: a first message that is not initialize leaves everything to hcp's Server.
    const late = link(served.identity, toolsListed(served.tools));
    late.stdin.write(line({ jsonrpc: "2.0", id: 1, method: "ping" }));
    await late.l.needsSdk;
    const life = { stop: new AbortController().signal, unanswerable: new AbortController().signal, running: new Set<Promise<unknown>>(), declined: new ApprovalSession() };
    const server = mcpServer(sdk, served, opts, life);
    await server.connect(late.l.attach(sdk.parseMessage));
    late.stdin.write(init(base) + "\n" + initialized + line({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
    const sdkList = (await linesOf(late.out, 3)).find((l) => JSON.parse(l).id === 2);
    assert.equal(earlyList, sdkList, JSON.stringify(opts));
    await server.close();
    await early.l.close();
  }
});

const list = (extra: Record<string, unknown> = {}) => JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", ...extra });

test("StdioLink answers tools/list only after an early initialize, and leaves anything else to the SDK", async () => {
  const listed = { tools: [{ name: "t" }] };
  assert.deepEqual(earlyToolsList(JSON.parse(list()), listed), { result: listed, jsonrpc: "2.0", id: 2 });
  assert.deepEqual(earlyToolsList(JSON.parse(list({ params: {}, id: "x" })), listed), { result: listed, jsonrpc: "2.0", id: "x" });
  for (const extra of [{ params: { cursor: "c" } }, { params: { _meta: { progressToken: 1 } } }, { params: [] }, { id: 1.5 }, { id: null }, { jsonrpc: "1.0" }, { other: 1 }, { method: "tools/call" }]) {
    assert.equal(earlyToolsList(JSON.parse(list(extra)), listed), null, JSON.stringify(extra));
  }

  // Without an early initialize, tools/list waits for the SDK.
  const before = link(identity, listed);
  before.stdin.write(line({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
  await before.l.needsSdk;
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(before.out(), "");
  await before.l.close();

  // After a message that needs the SDK, tools/list waits for it too, and answers come in the SDK's order.
  const after = link(identity, listed);
  after.stdin.write(init(base) + "\n" + line({ jsonrpc: "2.0", id: 2, method: "ping" }) + list({ id: 3 }) + "\n");
  await after.l.needsSdk;
  const [first] = await linesOf(after.out, 1);
  assert.equal(JSON.parse(first!).id, 1);
  for (let i = 0; i < 5; i++) await tick();
  assert.equal(after.out().trim().split("\n").length, 1, "only initialize is answered before the SDK is attached");
  await after.l.close();
});

test("StdioLink answers initialize before the SDK is attached, then hands every message over once", async () => {
  const { l, stdin, out } = link();
  const initLine = init({ ...base, capabilities: { elicitation: {} } });
  // The first line arrives in two chunks; a second request follows in the same chunk.
  stdin.write(initLine.slice(0, 10));
  await tick();
  assert.equal(out(), "");
  stdin.write(initLine.slice(10) + "\n" + JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n");
  await l.needsSdk;
  const early = out();
  assert.equal(early, (await sdkAnswer(initLine, identity)) + "\n");

  const server = new Server(identity.serverInfo, { capabilities: identity.capabilities, instructions: identity.instructions });
  await server.connect(l.attach((v) => types.JSONRPCMessageSchema.parse(v)));
  stdin.write(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }) + "\n");
  for (let i = 0; i < 20; i++) await tick();
  const lines = out().trim().split("\n").map((x) => JSON.parse(x) as { id: number; error?: { code: number } });
  assert.equal(lines[0]!.id, 1);
  assert.deepEqual(lines.map((x) => x.id).sort(), [1, 2, 3], "initialize answered once, the rest by the SDK");
  // The SDK saw the initialize: it knows the client's capabilities.
  assert.deepEqual(server.getClientCapabilities(), { elicitation: { form: {} } });
  assert.equal(lines.find((x) => x.id === 3)!.error?.code, types.ErrorCode.MethodNotFound); // no handler registered in this test
  await server.close();
});

test("StdioLink leaves a first message that is not initialize to the SDK, and remembers an early end", async () => {
  const { l, stdin, out } = link();
  stdin.end(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }) + "\n");
  await l.needsSdk;
  await tick();
  assert.equal(out(), "");
  assert.equal(l.ended, true);
  const server = new Server(identity.serverInfo, { capabilities: identity.capabilities });
  await server.connect(l.attach((v) => types.JSONRPCMessageSchema.parse(v)));
  for (let i = 0; i < 5; i++) await tick();
  assert.deepEqual(JSON.parse(out()), { jsonrpc: "2.0", id: 7, result: {} });
  await server.close();
});

test("StdioLink loads the SDK once input has been quiet for a short while", async () => {
  // The link's own quiet time (not the tests' hang guard).
  const l = new StdioLink(identity, { tools: [] }, new PassThrough(), new PassThrough());
  await l.needsSdk;
  await l.close();
});

test("idOfOversized finds a top-level id at the start or the end of a frame, never one nested inside it", () => {
  assert.equal(idOfOversized('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"', ""), 7);
  assert.equal(idOfOversized('{"id":"a\\"b","method":', ""), 'a"b');
  assert.equal(idOfOversized('{"method":"tools/call","params":{"x":"', 'xx"}},"jsonrpc":"2.0","id":41}'), 41);
  assert.equal(idOfOversized('{"method":"tools/call","params":{"id":3,"x":"', 'xx","id":5}}'), undefined);
  assert.equal(idOfOversized('{"method":"x","params":{"a":"', 'a"},"id":null}'), undefined);
});

test("StdioLink takes the tools/call requests that arrive together in one turn (up to TURN_BYTES of them), and any other request alone, answered before the next line is taken", async () => {
  const { l, stdin } = link();
  l.attach((v) => types.JSONRPCMessageSchema.parse(v));
  await l.start();
  // The requests handed over, grouped by the run of the link that took them (a group ends where microtasks run).
  const turns: string[][] = [];
  let open = false;
  // Requests other than tools/call are answered a few microtasks later, as the SDK answers what it has at once.
  const asked = new Set<unknown>();
  const answered = new Set<unknown>();
  const unansweredAtTake: unknown[] = [];
  // The Transport interface's own property, as the SDK's Protocol sets it.
  // oxlint-disable-next-line unicorn/prefer-add-event-listener
  l.onmessage = (m) => {
    if (!("method" in m) || !("id" in m)) return;
    if (!open) {
      turns.push([]);
      open = true;
      queueMicrotask(() => (open = false));
    }
    turns.at(-1)!.push(String(m.id));
    unansweredAtTake.push(...[...asked].filter((id) => !answered.has(id)));
    if (m.method === "tools/call") return;
    asked.add(m.id);
    void Promise.resolve().then(() => l.send({ jsonrpc: "2.0", id: m.id, result: {} }).then(() => answered.add(m.id)));
  };
  const call = (id: string, size = 0) => line({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "t", arguments: { a: "x".repeat(size) } } });
  stdin.write(call("c1") + call("c2") + call("c3") + line({ jsonrpc: "2.0", id: "list", method: "tools/list" }) + call("c4") + call("c5"));
  for (let i = 0; i < 50 && turns.flat().length < 6; i++) await tick();
  assert.deepEqual(turns, [["c1", "c2", "c3", "list"], ["c4", "c5"]]);
  assert.deepEqual(unansweredAtTake, [], "tools/list was answered before the next line was taken");

  turns.length = 0;
  const big = TURN_BYTES / 2 + 1;
  stdin.write(call("b1", big) + call("b2", big) + call("b3", big));
  for (let i = 0; i < 50 && turns.flat().length < 3; i++) await tick();
  assert.deepEqual(turns, [["b1", "b2"], ["b3"]], "past TURN_BYTES of calls, the rest waits for the next turn");
  await l.close();
});

test("an answer too long for one string is a JSON-RPC error to its request, not a RangeError that ends the server", () => {
  // The tools/list of Microsoft Graph's 11,422 tools passed V8's longest string: `Invalid string length`, and hcp died.
  const tooLong = { jsonrpc: "2.0", id: 7, get result(): unknown {
    throw new RangeError("Invalid string length");
  } };
  assert.deepEqual(JSON.parse(messageLine(tooLong)), { jsonrpc: "2.0", id: 7, error: { code: -32603, message: ANSWER_TOO_LARGE } });
  assert.equal(messageLine({ jsonrpc: "2.0", id: "a", result: { n: 1 } }), '{"jsonrpc":"2.0","id":"a","result":{"n":1}}');
  const broken = { jsonrpc: "2.0", id: 8, get result(): unknown {
    throw new TypeError("not a size");
  } };
  assert.throws(() => messageLine(broken), TypeError, "only a string too long is answered so");
});

test("hcp's server answers a tools/list too long for one string with a JSON-RPC error on every transport (the HTTP one would send an empty stream), and goes on", async () => {
  const { packs } = await loadServed([fixture("packs/hcp-probe")], "mcp", {}, { fetch: "command-line" });
  const sdk = await loadSdk();
  const opts: McpOptions = { version: "1" };
  const served = servedOf(packs, opts);
  assert.equal(listedLength(served.tools), JSON.stringify(toolsListed(served.tools)).length);
  // What JSON.stringify does past the longest string (Microsoft Graph's 11,422 tools), without half a gigabyte.
  const tooLong = { toJSON: (): never => { throw new RangeError("Invalid string length"); } };
  const huge = { ...served, tools: served.tools.map((t, i) => (i === 0 ? { ...t, tool: { ...t.tool, ...tooLong } } : t)) };
  assert.equal(listedLength(huge.tools), Infinity);
  // A transport of the SDK's own, which drops what it cannot write, as its HTTP one does.
  const life = { stop: new AbortController().signal, unanswerable: new AbortController().signal, running: new Set<Promise<unknown>>(), declined: new ApprovalSession(), dropsLongAnswers: true };
  const server = mcpServer(sdk, huge, opts, life);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "c", version: "1" });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  await assert.rejects(client.listTools(), (err: unknown) => err instanceof McpError && err.code === -32603 && err.message.includes(ANSWER_TOO_LARGE));
  assert.deepEqual(await client.ping(), {});
  await client.close();
  await server.close();
});
