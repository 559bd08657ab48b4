// Red team, MCP over HTTP against a client that never reads its answers: each answer waits in hcp's memory until its
// client takes it, and --max-requests (256) alone let such a client make hcp hold 256 of them (about 25 MB each for a
// verb printing 1 MiB on each stream: gigabytes, then hcp dies of it). As on stdio (outbox.ts), past 16 MiB of answers
// untaken no call starts, and an answer its client has taken nothing of for 5 s is dropped.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { isolatedEnv } from "./openapi-support.js";
import { httpClient, serveHttp, tempDir } from "../transports/support.js";

/** A pack whose verb prints 2 MiB of control bytes on stdout and on stderr (each written 6 times longer as JSON), one call at a time. */
function spewPack(): string {
  const root = join(tempDir("hcp-http-backlog-"), "spew");
  mkdirSync(root);
  const program = "import sys; sys.stdout.write('\\x01' * (2 << 20)); sys.stderr.write('\\x01' * (2 << 20))";
  const verbs = { spew: { description: "Print a lot.", cli: ["python3", "-c", program], policy: "read" }, hello: { description: "Say hello.", cli: ["echo", "hello"], policy: "read" } };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "spew", kind: "composite", binding: { mode: "local", hub: "none" }, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "spew", verbs: { spew: "read", hello: "read" }, limits: { concurrency: 1, max_output_bytes: 2 << 20 } }));
  return root;
}

/** Sends a tools/call of `spew` on a connection of its own and reads nothing back until `drain` is called. */
function unreadCall(url: URL): { socket: Socket; drain: () => Promise<string> } {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "spew_spew", arguments: {} } });
  const socket = connect(Number(url.port), url.hostname);
  socket.pause();
  socket.write(
    `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `MCP-Protocol-Version: 2025-06-18\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  const drain = () =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      socket.on("data", (c: Buffer) => chunks.push(c));
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
      socket.on("error", () => {});
      socket.resume();
    });
  return { socket, drain };
}

/** Whether a raw HTTP answer holds a whole tools/call result (its JSON-RPC message complete). */
function whole(raw: string): boolean {
  const at = raw.indexOf('{"result"');
  const start = at >= 0 ? at : raw.indexOf('{"jsonrpc"');
  if (start < 0) return false;
  const text = raw.slice(start).split("\n")[0]!.trim();
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

test("over HTTP, answers a client never reads are not held without bound: past 16 MiB untaken no call starts, and an answer untaken for 5 s is dropped; a client that reads is answered", async () => {
  const root = spewPack();
  const served = await serveHttp([root], { env: isolatedEnv() });
  try {
    const url = new URL(served.url);
    const calls = [unreadCall(url), unreadCall(url), unreadCall(url)];
    let guard: NodeJS.Timeout | undefined;
    // A client that reads calls too: its call runs once the answers before it are taken or dropped (the pack runs one
    // call at a time, each answer about 50 MB). Only then are the other answers read: with hcp holding every one,
    // each would come whole.
    const answers = await Promise.race([
      (async () => {
        const { client } = await httpClient(served.url);
        try {
          const r = (await client.callTool({ name: "spew_hello", arguments: {} })) as { isError?: boolean };
          assert.notEqual(r.isError, true, JSON.stringify(r));
        } finally {
          await client.close();
        }
        return Promise.all(calls.map((c) => c.drain()));
      })(),
      new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error(`hang guard: ${served.stderr()}`)), 120_000))),
    ]).finally(() => clearTimeout(guard));
    const dropped = answers.filter((a) => !whole(a)).length;
    assert.ok(dropped >= 1, `no answer was dropped: hcp held every one (${answers.map((a) => a.length).join(", ")} bytes)`);
  } finally {
    await served.stop();
  }
});
