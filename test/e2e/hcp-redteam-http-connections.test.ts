// The connections of `hcp serve --mcp --http` under attack: whoever reaches the port (no token needed to connect)
// opens connections and sends nothing, or half a request's headers. Node keeps such a connection for ever, and each
// holds one of hcp's file descriptors, which its verbs' pipes and its reads of /proc need.

import assert from "node:assert/strict";
import { readdirSync, readlinkSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { test } from "node:test";
import { connectionsBound, HEADERS_DEADLINE_MS, openFilesLimit, REQUEST_DEADLINE_MS } from "../../src/transports/http-connections.js";
import { PROBE_PACK, httpClient, rawHttp, serveHttp } from "../transports/support.js";
import { isolatedEnv } from "./hardening.js";

/** The sockets a process holds open. */
function socketsOf(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).filter((fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:");
    } catch {
      return false;
    }
  }).length;
}

/** A count once it stops moving (the same three times over 300 ms). */
async function steady(count: () => number): Promise<number> {
  let last = -1;
  for (let same = 0; same < 3; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = count();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

/** A client connects and calls a verb, and is answered. */
async function assertServed(url: string): Promise<void> {
  const { client } = await httpClient(url);
  try {
    const result = await client.callTool({ name: "hcp-probe_echo", arguments: { message: "served" } });
    assert.equal(result.isError, undefined, JSON.stringify(result));
  } finally {
    await client.close();
  }
}

/** How long after opening each connection closed; rejects with `late` when one is still open after `ms`. */
function closedWithin(held: { closed: Promise<number> }[], ms: number, late: string): Promise<number[]> {
  return Promise.race([
    Promise.all(held.map((h) => h.closed)),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(late)), ms).unref()),
  ]);
}

/**
 * A connection to the port, opened; it sends `first` when given, then nothing. Resolves once connected or refused.
 * What hcp answers is read and dropped: a socket whose data is never read never sees the end that follows it (Node
 * answers 408 to a request timed out by its own deadline), and so never closes.
 */
function hold(port: number, first?: string): Promise<{ socket: Socket; closed: Promise<number> }> {
  const opened = Date.now();
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.resume();
  const closed = new Promise<number>((resolve) => socket.once("close", () => resolve(Date.now() - opened)));
  return new Promise((resolve) => {
    socket.once("connect", () => {
      if (first !== undefined) socket.write(first);
      resolve({ socket, closed });
    });
    socket.once("close", () => resolve({ socket, closed }));
  });
}

test("attack: connections that send nothing or half a request's headers hold at most half of hcp's bound of connections, keep no client out, and are closed 10 s after opening", async () => {
  const served = await serveHttp([PROBE_PACK], { env: isolatedEnv() });
  try {
    const port = Number(new URL(served.url).port);
    const pid = served.child.pid!;
    const before = await steady(() => socketsOf(pid));
    // hcp's limit is this process's: Node raises both to the hard limit.
    const bound = connectionsBound(openFilesLimit());
    const flooded = Date.now();
    const held = [];
    for (let i = 0; i < bound + 100; i++) held.push(await hold(port, i % 10 === 0 ? "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" : undefined));
    // Past half the bound, each new one closes the one waiting longest (once hcp has taken them all from the kernel's queue).
    const open = (await steady(() => socketsOf(pid))) - before;
    assert.ok(open <= Math.ceil(bound / 2), `hcp holds ${open} connections, more than half its bound of ${bound}`);
    assert.ok(open >= bound / 2 - 10, `hcp holds ${open} connections, far fewer than half its bound of ${bound}: the test did not fill it`);
    // Meanwhile a client connects and calls a verb, long before any of them is closed for its deadline.
    await assertServed(served.url);
    assert.ok(Date.now() - flooded < HEADERS_DEADLINE_MS, "the client was served while the connections were held");
    // Each one held is closed by hcp once the deadline for its headers passes.
    const times = await closedWithin(held, HEADERS_DEADLINE_MS + 10_000, "connections still open 20 s after they were made");
    assert.ok(Math.max(...times) < HEADERS_DEADLINE_MS + 5_000, `the last closed after ${Math.max(...times)} ms`);
    assert.ok((await steady(() => socketsOf(pid))) <= before, "hcp holds none of them any more");
  } finally {
    assert.equal(await served.stop(), 143, served.stderr());
  }
});

/** A POST whose headers come at once and whose body then comes a byte every 500 ms: what hcp answers, and when it closes. */
function trickle(port: number): { answer: () => string; closed: Promise<number> } {
  const opened = Date.now();
  let answer = "";
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  socket.setEncoding("utf8").on("data", (c: string) => (answer += c));
  const head = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{`;
  socket.once("connect", () => socket.write(head));
  const drip = setInterval(() => socket.write(" "), 500);
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => {
      clearInterval(drip);
      resolve(Date.now() - opened);
    }),
  );
  return { answer: () => answer, closed };
}

test("attack: requests whose body comes a byte at a time hold their places among --max-requests for 30 s at most: answered 408 and closed, a client is then served", async () => {
  const served = await serveHttp([PROBE_PACK], { env: isolatedEnv(), args: ["--max-requests", "2"] });
  try {
    const port = Number(new URL(served.url).port);
    const held = [trickle(port), trickle(port)];
    // Both hold a place: a request now is refused as busy.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const busy = await rawHttp(served.url, { body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    assert.equal(busy.status, 503, busy.body);
    const times = await closedWithin(held, REQUEST_DEADLINE_MS + 10_000, "a trickled request still open 10 s past its deadline");
    assert.ok(Math.max(...times) < REQUEST_DEADLINE_MS + 3_000, `the last closed after ${Math.max(...times)} ms`);
    for (const h of held) assert.match(h.answer(), /^HTTP\/1\.1 408 /);
    await assertServed(served.url);
  } finally {
    assert.equal(await served.stop(), 143, served.stderr());
  }
});
