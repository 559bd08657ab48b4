// One MCP suite, two transports: every case runs over stdio and over Streamable HTTP (stateful, so that elicitation
// works) with the SDK's own clients against the built hcp, checks what a user relies on, and checks that both
// transports answered the same (tools, results, errors, approvals, audit lines), timing and plan ids aside.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { bank, person, toolErrorOf as errorOf } from "./approvals-support.js";
import { isolatedEnv } from "./hardening.js";
import { withoutRunMarks } from "./helpers.js";
import { PROBE_PACK, httpClient, mcpClient, serveHttp, type McpOptions } from "../transports/support.js";

interface Open {
  env: NodeJS.ProcessEnv;
  /** The audit log (the env's HCP_AUDIT): the lines each transport wrote join its transcript. */
  audit?: string;
  cwd?: string;
  allowWrite?: boolean;
  elicit?: McpOptions["elicit"];
}

interface Transport {
  name: "stdio" | "http";
  /** A client of a fresh `hcp serve --mcp PATHS…` over this transport, and how to end both. */
  open(paths: string[], o: Open): Promise<{ client: Client; close: () => Promise<void> }>;
}

const TRANSPORTS: Transport[] = [
  {
    name: "stdio",
    async open(paths, o) {
      const { client } = await mcpClient(paths, o);
      return { client, close: () => client.close() };
    },
  },
  {
    name: "http",
    async open(paths, o) {
      const s = await serveHttp(paths, { args: ["--stateful", ...(o.allowWrite ? ["--allow-write"] : [])], env: o.env, cwd: o.cwd });
      const { client } = await httpClient(s.url, { elicit: o.elicit });
      return {
        client,
        close: async () => {
          await client.close();
          assert.equal(await s.stop(), 143);
        },
      };
    },
  },
];

/** What varies between two runs of the same thing: plan ids, times, durations and run marks. */
function normalized(value: unknown): unknown {
  const text = JSON.stringify(withoutRunMarks(value), (k, v: unknown) => (k === "duration_ms" || k === "time" || k === "client_address" ? undefined : v));
  return JSON.parse(text.replace(/hcp1\.[0-9]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, "<plan_id>").replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")) as unknown;
}

/** The audit log's lines (none before the first decision). */
const auditLines = (file: string): Record<string, unknown>[] =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];

/**
 * Runs the same case over each transport (one after the other: a bank's witness and audit log are shared), checks
 * each transcript with `expect`, and that both transports gave the same transcript, audit lines included; over HTTP
 * every audit line also names the client's address, over stdio none does.
 */
async function overBoth<T>(paths: string[], o: Open, run: (client: Client) => Promise<T>, expect: (got: T) => void): Promise<void> {
  const transcripts: unknown[] = [];
  for (const t of TRANSPORTS) {
    const { client, close } = await t.open(paths, o);
    const logged = o.audit === undefined ? 0 : auditLines(o.audit).length;
    try {
      const got = await run(client);
      expect(got);
      const audit = o.audit === undefined ? [] : auditLines(o.audit).slice(logged);
      for (const line of audit) assert.equal(typeof line["client_address"] === "string", t.name === "http", `${t.name}: ${JSON.stringify(line)}`);
      transcripts.push(normalized({ got, audit }));
    } finally {
      await close();
    }
  }
  assert.deepEqual(transcripts[1], transcripts[0], "HTTP answered as stdio did");
}

test("parity stdio/HTTP: the same tools, resources and prompts", async () => {
  await overBoth(
    [PROBE_PACK],
    { env: isolatedEnv() },
    async (c) => ({ tools: (await c.listTools()).tools, resources: (await c.listResources()).resources, prompts: (await c.listPrompts()).prompts }),
    (got) => {
      assert.deepEqual(
        got.tools.map((t) => t.name),
        ["echo", "fail", "slow", "quick", "write", "transfer", "sleeper"].map((v) => `hcp-probe_${v}`),
      );
      assert.deepEqual(got.resources.map((r) => r.uri), ["hcp://hcp-probe/HARNESS.md"]);
      assert.deepEqual(got.prompts.map((p) => p.name), ["hcp-probe"]);
    },
  );
});

test("parity stdio/HTTP: a read call and a failing call give the same text and structuredContent", async () => {
  await overBoth(
    [PROBE_PACK],
    { env: isolatedEnv() },
    async (c) => [await c.callTool({ name: "hcp-probe_echo", arguments: { message: "same on both", count: 2 } }), await c.callTool({ name: "hcp-probe_fail", arguments: {} })],
    ([echo, fail]) => {
      assert.equal(echo!.isError, undefined);
      assert.deepEqual((echo!.structuredContent as { json: { argv: string[] } }).json.argv, ["echo", "same on both", "--count=2"]);
      assert.equal(fail!.isError, true);
      assert.equal((fail!.content as { text: string }[])[0]!.text, "failing\n[exited with code 3]");
    },
  );
});

test("parity stdio/HTTP: argument errors (missing, mistyped, unexpected, not a boolean dry_run) and an unknown tool", async () => {
  await overBoth(
    [PROBE_PACK],
    { env: isolatedEnv(), allowWrite: true },
    async (c) => {
      const calls: [string, Record<string, unknown>][] = [
        ["hcp-probe_echo", {}],
        ["hcp-probe_echo", { message: 5 }],
        ["hcp-probe_echo", { message: "x", extra: true }],
        ["hcp-probe_transfer", { amount: "1", payee: "bob", dry_run: "yes" }],
      ];
      const errors = [];
      for (const [name, args] of calls) errors.push(errorOf(await c.callTool({ name, arguments: args })));
      const unknown = await c.callTool({ name: "hcp-probe_nope", arguments: {} }).then(
        () => "answered",
        (err: Error & { code?: number }) => ({ code: err.code, message: err.message }),
      );
      return { errors, unknown };
    },
    (got) => {
      assert.deepEqual(got.errors.map((e) => e.code), ["invalid_args", "invalid_args", "invalid_args", "invalid_request"]);
      assert.match(got.errors[0]!.message, /message/);
      assert.equal(typeof got.unknown === "object" && got.unknown.code, -32602);
      assert.match(typeof got.unknown === "object" ? got.unknown.message : "", /unknown tool "hcp-probe_nope"/);
    },
  );
});

test("parity stdio/HTTP: a write is refused without --allow-write and runs with it, with the same audit lines", async () => {
  const b = bank();
  const runs: number[] = [];
  for (const allowWrite of [false, true]) {
    await overBoth(
      [b.root],
      { env: b.env, audit: b.audit, allowWrite },
      async (c) => {
        const before = b.runs().length;
        const r = await c.callTool({ name: "bank_touch", arguments: {} });
        runs.push(b.runs().length - before);
        return r;
      },
      (r) => {
        if (allowWrite) assert.equal((r.structuredContent as { stdout: string }).stdout, "ran\n");
        else assert.equal(errorOf(r).code, "write_not_allowed");
      },
    );
  }
  assert.deepEqual(runs, [0, 0, 1, 1], "refused on both, then ran once on each");
  assert.deepEqual(auditLines(b.audit).map((l) => l["decision"]), ["refused", "refused", "approved", "ran", "approved", "ran"]);
});

test("parity stdio/HTTP: a confirm-gated call through elicitation: accepted runs once, declined never runs in the session", async () => {
  const b = bank();
  const done: number[] = [];
  let p = person([]);
  await overBoth(
    [b.root],
    // The client's handler asks the person of the transport being run.
    { env: b.env, audit: b.audit, allowWrite: true, elicit: (m) => p.elicit(m) },
    async (c) => {
      // Each transport gets a fresh person: accept, then decline.
      p = person(["accept", "decline"]);
      const before = b.runs().length;
      const accepted = await c.callTool({ name: "bank_pay", arguments: { amount: "10" } });
      const declined = await c.callTool({ name: "bank_pay", arguments: { amount: "20" } });
      const dry = await c.callTool({ name: "bank_pay", arguments: { amount: "20", dry_run: true } });
      const retried = await c.callTool({ name: "bank_pay", arguments: { amount: "20", confirm: (dry.structuredContent as { plan_id: string }).plan_id } });
      done.push(b.runs().length - before);
      return { accepted, declined, retried, asked: p.asked };
    },
    (got) => {
      assert.equal(got.accepted.isError, undefined, JSON.stringify(got.accepted.structuredContent));
      assert.equal(errorOf(got.declined).code, "confirmation_declined");
      assert.equal(errorOf(got.retried).code, "confirmation_declined");
      assert.equal(got.asked.length, 2, "asked about each plan once");
      assert.match(got.asked[0]!, /^Approve running verb "pay" of pack "bank"/);
    },
  );
  assert.deepEqual(done, [1, 1], "the accepted plan ran once over each transport, the declined one never");
  assert.deepEqual(b.runs().map((w) => w.argv), [["pay", "10"], ["pay", "10"]]);
});
