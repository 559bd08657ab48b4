// `hcp serve --mcp --http --stateful`: approvals through elicitation on the call's own stream, declined plans per
// session, the stateless fallback to `hcp approve`, and the sessions' life: DELETE, unknown ids, the cap, the idle
// timeout and shutdown. A witness file shows whether a verb really ran; the audit file shows who asked.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer, request, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { bank, person, toolErrorOf as errorOf, toolPlanIdOf as planIdOf } from "./approvals-support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { alive, eventually } from "../runtime/support.js";
import { PROBE_PACK, hcp, httpClient, rawHttp, serveHttp, tempDir, type Raw } from "../transports/support.js";

const initializeBody = (capabilities: object = {}) => JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "raw", version: "1" } } });
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

/** Initializes a session by hand: its id, or the refusal. */
async function initialize(url: string, capabilities?: object): Promise<{ status: number; id?: string; body: string }> {
  const r = await rawHttp(url, { body: initializeBody(capabilities) });
  const id = r.headers["mcp-session-id"];
  return { status: r.status, body: r.body, ...(typeof id === "string" ? { id } : {}) };
}

/** What the SDK's transport answers (404) to a session id it does not know. */
const SESSION_NOT_FOUND = { code: -32001, message: "Session not found" };

const inSession = (url: string, id: string, body = LIST, method = "POST") => rawHttp(url, { method, body: method === "POST" ? body : "", headers: { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" } });

/**
 * POSTs a request in a session and yields the JSON-RPC messages of its SSE response stream as they come. A hang
 * guard far above the time the messages take ends the stream (an error) after 60 s.
 */
async function* callStream(url: string, session: string, body: string): AsyncGenerator<Record<string, unknown>> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: "POST", signal: AbortSignal.timeout(60_000), headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } });
    req.on("response", resolve).on("error", reject).end(body);
  });
  assert.equal(res.statusCode, 200);
  let buffered = "";
  for await (const chunk of res.setEncoding("utf8") as AsyncIterable<string>) {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf("\n\n")) >= 0) {
      const data = buffered.slice(0, end).split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim()).join("");
      buffered = buffered.slice(end + 2);
      if (data !== "") yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}

test("--stateful: the elicitation comes on the call's own response stream, so a client with no GET stream is asked too", async () => {
  const b = bank();
  const s = await serveHttp([b.root], { args: ["--stateful", "--allow-write"], env: b.env });
  try {
    const { id } = await initialize(s.url, { elicitation: {} });
    assert.equal((await inSession(s.url, id!, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).status, 202);
    const stream = callStream(s.url, id!, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "bank_pay", arguments: { amount: "12" } } }));
    const asked = (await stream.next()).value as { id: number; method: string; params: { message: string } } | undefined;
    assert.equal(asked?.method, "elicitation/create", "the person is asked on the call's stream");
    assert.match(asked.params.message, /^Approve running verb "pay" of pack "bank"/);
    assert.equal(b.runs().length, 0, "nothing runs before the answer");
    const answer = JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { approve: true } } });
    assert.equal((await inSession(s.url, id!, answer)).status, 202);
    const result = (await stream.next()).value as { id: number; result: { structuredContent: { stdout: string } } };
    assert.equal(result.id, 7);
    assert.equal(result.result.structuredContent.stdout, "ran\n");
    assert.deepEqual(b.runs().map((w) => w.argv), [["pay", "12"]]);
  } finally {
    await s.stop();
  }
});

test("--stateful: a gated call is approved through elicitation; a declined plan cannot run again in that session, another session is asked anew", async () => {
  const b = bank();
  const s = await serveHttp([b.root], { args: ["--stateful", "--allow-write"], env: b.env });
  try {
    const p1 = person(["decline"]);
    const one = await httpClient(s.url, { elicit: p1.elicit });
    const declined = await one.client.callTool({ name: "bank_pay", arguments: { amount: "1" } });
    assert.equal(errorOf(declined).code, "confirmation_declined");
    assert.match(p1.asked[0]!, /^Approve running verb "pay" of pack "bank"/);
    // The agent's way around it in the same session: its own dry run, then confirm with that id.
    const id = planIdOf(await one.client.callTool({ name: "bank_pay", arguments: { amount: "1", dry_run: true } }));
    const retried = await one.client.callTool({ name: "bank_pay", arguments: { amount: "1", confirm: id } });
    assert.equal(errorOf(retried).code, "confirmation_declined");
    assert.match(errorOf(retried).message, /cannot run in this session/);
    assert.equal(p1.asked.length, 1, "a declined plan is not asked about again in its session");
    assert.equal(b.runs().length, 0);

    // Another session (another client) has its own declines: the person is asked again, and accepts.
    const p2 = person(["accept"]);
    const two = await httpClient(s.url, { elicit: p2.elicit });
    const ran = await two.client.callTool({ name: "bank_pay", arguments: { amount: "1" } });
    assert.equal(ran.isError, undefined, JSON.stringify(ran.structuredContent));
    assert.equal(p2.asked.length, 1);
    assert.deepEqual(b.runs().map((w) => w.argv), [["pay", "1"]]);
    // The first session still refuses it.
    assert.equal(errorOf(await one.client.callTool({ name: "bank_pay", arguments: { amount: "1" } })).code, "confirmation_declined");
    assert.equal(b.runs().length, 1);
    await Promise.all([one.client.close(), two.client.close()]);
  } finally {
    assert.equal(await s.stop(), 143);
  }
  const decisions = auditOf(b.audit).map((e) => `${e.decision}:${e.by ?? "-"}`);
  assert.deepEqual(decisions, ["declined:elicitation", "dry_run:-", "declined:-", "approved:elicitation", "ran:elicitation", "declined:-"]);
  for (const e of auditOf(b.audit)) assert.match(e.client_address ?? "", /^127\.0\.0\.1:\d+$/);
});

test("stateless HTTP never asks, even a client that can elicit: the refusal names `hcp approve <id>`; approved at a terminal, the retry runs once", async () => {
  const b = bank();
  const s = await serveHttp([b.root], { args: ["--allow-write"], env: b.env });
  try {
    const p = person(["accept"]);
    const { client } = await httpClient(s.url, { elicit: p.elicit });
    const first = await client.callTool({ name: "bank_pay", arguments: { amount: "7" } });
    assert.equal(errorOf(first).code, "approval_required");
    const id = /hcp approve (hcp1\.\S+)/.exec(errorOf(first).message)![1]!;
    assert.equal(p.asked.length, 0, "a stateless server has no session to ask in");
    assert.equal(b.runs().length, 0);
    const approved = await b.approve(id);
    assert.equal(approved.code, 0, approved.stdout);
    const ran = await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } });
    assert.equal(ran.isError, undefined, JSON.stringify(ran.structuredContent));
    assert.equal(errorOf(await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } })).code, "plan_id_used");
    assert.deepEqual(b.runs().map((w) => w.argv), [["pay", "7"]]);
    await client.close();
  } finally {
    await s.stop();
  }
});

/** A raw tools/call of a bank verb. */
const toolCall = (verb: string, args: object) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: `bank_${verb}`, arguments: args } });

/** The audit log's entries. */
const auditOf = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { transport: string; client_address?: string; verb: string; decision: string; by: string | null });

test("over HTTP every audit line carries the client's address (IP:port); over stdio there is none", async () => {
  const b = bank();
  const s = await serveHttp([b.root], { args: ["--allow-write"], env: b.env });
  try {
    // From 127.0.0.2: the address in the log is the connection's, not a constant.
    const touched = await rawHttp(s.url, { body: toolCall("touch", {}), localAddress: "127.0.0.2" });
    assert.equal(touched.status, 200, touched.body);
    assert.match(touched.body, /ran\\n/);
    const refused = await rawHttp(s.url, { body: toolCall("pay", { amount: "4" }), localAddress: "127.0.0.2" });
    assert.match(refused.body, /approval_required/);
  } finally {
    await s.stop();
  }
  const overHttp = auditOf(b.audit);
  assert.deepEqual(overHttp.map((e) => [e.verb, e.decision]), [["touch", "approved"], ["touch", "ran"], ["pay", "refused"]]);
  for (const e of overHttp) assert.match(e.client_address ?? "", /^127\.0\.0\.2:\d+$/, JSON.stringify(e));

  const { client } = await b.mcp({ allowWrite: true });
  try {
    assert.equal((await client.callTool({ name: "bank_touch", arguments: {} })).isError, undefined);
  } finally {
    await client.close();
  }
  const overStdio = auditOf(b.audit).slice(overHttp.length);
  assert.equal(overStdio.length, 2);
  for (const e of overStdio) assert.equal("client_address" in e, false, JSON.stringify(e));
  const shown = await b.hcp(["audit"]);
  assert.match(shown.stdout, /mcp from 127\.0\.0\.2:\d+ bank touch/);
});

test("--stateful sessions: no id is 400, an unknown id 404; DELETE ends a session and kills its call; past --max-sessions 503, and the server goes on", async () => {
  const dir = tempDir();
  const s = await serveHttp([PROBE_PACK], { args: ["--stateful", "--max-sessions", "2"], cwd: dir, env: isolatedEnv() });
  try {
    assert.equal((await rawHttp(s.url, { body: LIST })).status, 400, "a request outside any session");
    const madeUp = await inSession(s.url, "00000000-0000-4000-8000-000000000000");
    assert.equal(madeUp.status, 404, "a made-up session id");
    assert.deepEqual(JSON.parse(madeUp.body).error, SESSION_NOT_FOUND, "the SDK's own answer: its client starts a new session");

    const a = await httpClient(s.url);
    const sessionA = a.transport.sessionId!;
    assert.match(sessionA, /^[0-9a-f-]{36}$/);
    const call = a.client.callTool({ name: "hcp-probe_sleeper", arguments: {} });
    call.catch(() => {});
    assert.ok(await eventually(() => existsSync(join(dir, "child.pid")) && existsSync(join(dir, "grandchild.pid")), 20_000), "the sleeper started");
    const pids = ["child.pid", "grandchild.pid"].map((f) => Number(readFileSync(join(dir, f), "utf8")));

    const second = await initialize(s.url);
    assert.equal(second.status, 200);
    const third = await initialize(s.url);
    assert.equal(third.status, 503, "a third session past --max-sessions 2");
    assert.match(third.body, /too many open sessions/);
    assert.equal((await inSession(s.url, second.id!)).status, 200, "the open sessions still answer");

    // DELETE ends session A: its call's process group is killed, and its id is gone.
    await a.transport.terminateSession();
    assert.ok(await eventually(() => pids.every((p) => !alive(p)), 30_000), `still running: ${pids.filter(alive).join(", ")}`);
    const ended = await inSession(s.url, sessionA);
    assert.equal(ended.status, 404);
    assert.deepEqual(JSON.parse(ended.body).error, SESSION_NOT_FOUND);
    const again = await initialize(s.url);
    assert.equal(again.status, 200, "the ended session's place is free");
    assert.notEqual(again.id, sessionA);
    await a.client.close();
  } finally {
    assert.equal(await s.stop(), 143);
  }
});

test("--stateful: a session with no request and nothing open for --idle-timeout ends, and frees its place", async () => {
  const s = await serveHttp([PROBE_PACK], { args: ["--stateful", "--max-sessions", "1", "--idle-timeout", "1"], env: isolatedEnv() });
  try {
    // Before the request: the session is idle only once its answer is sent, which the client reads later (on a busy
    // machine, tens of ms later).
    const opened = Date.now();
    const first = await initialize(s.url);
    assert.equal(first.status, 200);
    // Initializing does not touch the first session: the second succeeds only once the first has ended.
    let second = await initialize(s.url);
    for (let i = 0; i < 300 && second.status === 503; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      second = await initialize(s.url);
    }
    assert.equal(second.status, 200, second.body);
    assert.ok(Date.now() - opened >= 1000, "not before the idle timeout");
    assert.equal((await inSession(s.url, first.id!)).status, 404);
  } finally {
    await s.stop();
  }
});

test("--stateful on SIGTERM: a pending elicitation and the sessions' open streams end, the call is answered, exit 143", async () => {
  const b = bank();
  const s = await serveHttp([b.root], { args: ["--stateful", "--allow-write"], env: b.env });
  let asked!: () => void;
  const wasAsked = new Promise<void>((resolve) => (asked = resolve));
  // This person never answers: the server must not wait for them.
  const { client } = await httpClient(s.url, {
    elicit: () => {
      asked();
      return new Promise<never>(() => {}) as never;
    },
  });
  const call = client.callTool({ name: "bank_pay", arguments: { amount: "3" } });
  call.catch(() => {});
  await wasAsked;
  const sent = Date.now();
  s.child.kill("SIGTERM");
  const answered = await call;
  assert.equal(errorOf(answered).code, "cancelled");
  assert.equal(await s.exited, 143);
  // The promise is 3 s; the assertion keeps a 10x margin for a loaded machine.
  assert.ok(Date.now() - sent < 30_000, `exited ${Date.now() - sent} ms after SIGTERM`);
  assert.equal(b.runs().length, 0);
  await client.close();
});

test("--stateful, --max-sessions and --idle-timeout are refused where they mean nothing (exit 1)", async () => {
  const env = isolatedEnv();
  for (const args of [["--stateful"], ["--http", "0", "--max-sessions", "5"], ["--http", "0", "--idle-timeout", "5"], ["--http", "0", "--stateful", "--max-sessions", "0"]]) {
    const r = await hcp(["serve", "--mcp", PROBE_PACK, ...args], { env, timeoutMs: 60_000 });
    assert.equal(r.code, 1, args.join(" "));
    assert.match(r.stderr, /goes with --(http|stateful)|must be an integer from 1/, args.join(" "));
  }
});

/**
 * The SDK's own stateful Streamable HTTP server (an empty Server, one session, DNS rebinding protection on), on a free
 * loopback port: the reference hcp's door must answer like.
 */
async function sdkReference(): Promise<{ url: string; session: string; close: () => Promise<void> }> {
  let transport!: StreamableHTTPServerTransport;
  const http = createServer((req, res) => void transport.handleRequest(req, res));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(http.address() as { port: number }).port}`;
  transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => "sdk-session", enableDnsRebindingProtection: true, allowedHosts: [host], allowedOrigins: [`http://${host}`] });
  const server = new Server({ name: "reference", version: "1" }, { capabilities: {} });
  await server.connect(transport);
  const url = `http://${host}/mcp`;
  const { id } = await initialize(url);
  return { url, session: id!, close: async () => (await server.close(), await new Promise<void>((resolve) => http.close(() => resolve()))) };
}

test("--stateful: each refusal at the door has the status and JSON-RPC code of the SDK's own transport; an unknown session its exact 404", async () => {
  const s = await serveHttp([PROBE_PACK], { args: ["--stateful"], env: isolatedEnv() });
  const sdk = await sdkReference();
  try {
    const mine = await initialize(s.url);
    assert.equal(mine.status, 200);
    const cases: Record<string, (url: string, session: string) => Promise<Raw>> = {
      "a made-up session id": (url) => inSession(url, "00000000-0000-4000-8000-000000000000"),
      "no session id": (url) => rawHttp(url, { body: LIST }),
      "a body that is not JSON": (url, session) => inSession(url, session, "{not json"),
      "a body over 4 MiB": (url, session) => rawHttp(url, { headers: { "mcp-session-id": session }, declaredLength: 4 * 1024 * 1024 + 1 }),
      "a foreign Host": (url, session) => rawHttp(url, { body: LIST, headers: { "mcp-session-id": session, host: "evil.example" } }),
      "a foreign Origin": (url, session) => rawHttp(url, { body: LIST, headers: { "mcp-session-id": session, origin: "http://evil.example" } }),
      "an unsupported MCP-Protocol-Version": (url, session) => rawHttp(url, { body: LIST, headers: { "mcp-session-id": session, "mcp-protocol-version": "1999-01-01" } }),
    };
    for (const [what, send] of Object.entries(cases)) {
      const [ours, theirs] = [await send(s.url, mine.id!), await send(sdk.url, sdk.session)];
      const [oursError, theirsError] = [ours, theirs].map((r) => (JSON.parse(r.body) as { error: { code: number; message: string } }).error);
      assert.deepEqual([ours.status, oursError!.code], [theirs.status, theirsError!.code], `${what}: hcp ${ours.body}, the SDK ${theirs.body}`);
      if (ours.status === 404) assert.deepEqual(oursError, theirsError, "an unknown session: the SDK's code and message");
    }
    assert.equal((await inSession(s.url, mine.id!)).status, 200, "the session still answers after every refusal");
  } finally {
    await sdk.close();
    await s.stop();
  }
});

/** A tools/call of `tool`, always under the id "k". */
const callK = (tool: string) => JSON.stringify({ jsonrpc: "2.0", id: "k", method: "tools/call", params: { name: tool, arguments: {} } });

test("--stateful: a request under the id of one still unanswered in its session is refused (-32600, as on stdio), never answered with the first's result while the first's request stays open holding a slot; the first gets its own answer, and the id serves again once answered", async () => {
  const root = probePack("ids", { wait: { description: "Answer after a while.", cli: ["probe", "run", "sleep:1500", "print:first"], policy: "read" }, quick: { description: "Answer at once.", cli: ["probe", "run", "print:second"], policy: "read" } }, {}, { verbs: { wait: "read", quick: "read" } });
  const s = await serveHttp([root], { args: ["--stateful", "--max-requests", "4"], env: isolatedEnv() });
  try {
    const { id } = await initialize(s.url);
    assert.equal((await inSession(s.url, id!, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).status, 202);
    const first = callStream(s.url, id!, callK("ids_wait"));
    const firstAnswer = first.next();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await inSession(s.url, id!, callK("ids_quick"));
    assert.equal(second.status, 400, second.body);
    assert.deepEqual(JSON.parse(second.body), { jsonrpc: "2.0", id: "k", error: { code: -32600, message: "Invalid Request: a request with this id is still unanswered; each request in flight needs its own id" } });
    const answered = (await firstAnswer).value as { id: string; result: { content: { text: string }[] } };
    assert.equal(answered.id, "k");
    assert.match(answered.result.content[0]!.text, /first/);
    const again = callStream(s.url, id!, callK("ids_quick"));
    assert.match(JSON.stringify((await again.next()).value), /second/, "the id serves again once answered");
  } finally {
    await s.stop();
  }
});

/** POSTs `body` in a session and closes the connection `afterMs` later, whatever came: a client whose network went. */
function postAndDrop(url: string, session: string, body: string, afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" } });
    req.on("error", () => resolve());
    req.end(body);
    setTimeout(() => {
      req.destroy();
      resolve();
    }, afterMs);
  });
}

test("attack: --stateful, a call whose connection dropped goes on and keeps its id: a request under that id is refused (-32600) until the call ends, never answered with the dropped call's result; and it keeps its place in --max-requests until then", async () => {
  const dir = tempDir("hcp-dropped-");
  const verbs = {
    wait: { description: "Answer after a while.", cli: ["probe", "run", `pid:${join(dir, "wait.pid")}`, "sleep:2000", "print:first"], policy: "read" },
    quick: { description: "Answer at once.", cli: ["probe", "run", "print:second"], policy: "read" },
  };
  const root = probePack("ids", verbs, {}, { verbs: { wait: "read", quick: "read" } });
  const s = await serveHttp([root], { args: ["--stateful", "--max-requests", "3"], env: isolatedEnv() });
  try {
    const { id } = await initialize(s.url);
    assert.equal((await inSession(s.url, id!, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))).status, 202);
    // The call starts, then its client's connection goes.
    await postAndDrop(s.url, id!, callK("ids_wait"), 400);
    assert.ok(await eventually(() => existsSync(join(dir, "wait.pid"))), "the dropped call's program started");
    const reused = await inSession(s.url, id!, callK("ids_quick"));
    assert.equal(reused.status, 400, reused.body);
    assert.equal((JSON.parse(reused.body) as { error: { code: number } }).error.code, -32600);
    assert.doesNotMatch(reused.body, /first/, "never the dropped call's result");
    const pid = Number(readFileSync(join(dir, "wait.pid"), "utf8"));
    assert.ok(alive(pid), "a disconnect is no cancellation: the call goes on");
    // Two more dropped calls: with the first, the three places of --max-requests are taken while they run.
    const more = callK("ids_wait").replace('"id":"k"', '"id":"m"');
    await postAndDrop(s.url, id!, more, 100);
    await postAndDrop(s.url, id!, more.replace('"id":"m"', '"id":"n"'), 100);
    const busy = await inSession(s.url, id!, LIST.replace('"id":1', '"id":"o"'));
    assert.equal(busy.status, 503, `the dropped calls still hold their places: ${busy.body}`);
    // Once they end, the id serves again, with its own answer.
    assert.ok(await eventually(() => !alive(pid), 5000), "the dropped call ran to its end");
    // The other two end a moment later: then their places are free.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await inSession(s.url, id!, LIST.replace('"id":1', '"id":"p"'))).status, 200, "the places are free once the calls ended");
    const again = callStream(s.url, id!, callK("ids_quick"));
    const answered = JSON.stringify((await again.next()).value);
    assert.match(answered, /second/);
    assert.doesNotMatch(answered, /first/);
  } finally {
    await s.stop();
  }
});
