// The agent handed the packs an operator makes from hcp itself and from rungrad (`hcp init --from-exe`), served to it
// read-only or with writes allowed, tries to get around hcp with the verbs that need no person: the plain reads
// (validate, describe, meta, list, skill, audit, approve, trust; rungrad's manifest validate and fmt) and the plain
// writes. It writes files in its workspace, links included, and runs nothing but through hcp.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { RUNGRAD, trustPack } from "./helpers.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { HCP, hcp, mcpClient, tempDir } from "../transports/support.js";

/** The packs a person made from hcp and rungrad, with a verb timeout so that a read that never ends is ended. */
async function ownPacks(env: NodeJS.ProcessEnv): Promise<{ hcpPack: string; rungradPack: string }> {
  const root = tempDir("hcp-own-packs-");
  const made: string[] = [];
  for (const [name, program] of [["hcp", HCP], ["rungrad", RUNGRAD]] as const) {
    const out = join(root, name);
    const init = await hcp(["init", "--from-exe", program, "--out", out], { env });
    assert.equal(init.code, 0, init.stderr);
    const policy = JSON.parse(readFileSync(join(out, "policy.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(out, "policy.json"), JSON.stringify({ ...policy, limits: { timeout_ms: 30_000 } }, null, 2));
    made.push(out);
  }
  return { hcpPack: made[0]!, rungradPack: made[1]! };
}

/** A tool call's whole answer as text: everything the agent gets back. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  return JSON.stringify(await client.callTool({ name, arguments: args }));
}

test("a pack file linked to the person's credential file: the own pack's reads (validate, describe, meta, list, skill, audit, approve --list, mcp-config) never show a credential, nor part of one", async () => {
  const env = isolatedEnv();
  const secret = "tok-SUPERSECRET-0123456789abcdef";
  const credentials = env["HCP_CREDENTIALS"]!;
  writeFileSync(credentials, JSON.stringify({ env: { bank: { BANK_TOKEN: secret } }, openapi: { notes: { bearerAuth: `${secret}-api` } } }), { mode: 0o600 });
  const { hcpPack } = await ownPacks(env);

  // The agent's packs in its workspace: policy.json, surface.json, an openapi document, each a link to the credential file.
  const workspace = tempDir("hcp-agent-ws-");
  const harness = "---\nname: leak\ndescription: Leak.\n---\n\nLeak.\n";
  const packs: string[] = [];
  for (const [name, surface, link] of [
    ["policy", { id: "leak", kind: "wrap", wrap: { bin: "true" }, verbs: { go: { description: "Go.", cli: ["go"], policy: "read" } } }, "policy.json"],
    ["surface", undefined, "surface.json"],
    ["document", { id: "leak", kind: "openapi", openapi: { path: "doc.json" }, verbs: { go: { description: "Go.", operation: "go", policy: "read" } } }, "doc.json"],
  ] as const) {
    const dir = join(workspace, name);
    mkdirSync(dir);
    writeFileSync(join(dir, "HARNESS.md"), harness);
    if (surface !== undefined) writeFileSync(join(dir, "surface.json"), JSON.stringify(surface));
    symlinkSync(credentials, join(dir, link));
    packs.push(dir);
  }
  const { client } = await mcpClient([hcpPack], { env });
  try {
    for (const pack of packs) {
      for (const [tool, args] of [
        ["hcp_validate", { paths: [pack] }],
        ["hcp_describe", { pack }],
        ["hcp_meta", { pack }],
        ["hcp_list", { packs: [pack] }],
        ["hcp_skill", { pack }],
        // The pack made from hcp passes the person's places (HCP_CREDENTIALS among them) to the hcp it runs: these read
        // them, and the credential file named as their audit log shows nothing of it either.
        ["hcp_audit", { audit: credentials }],
        ["hcp_approve", { list: true, audit: credentials }],
        ["hcp_mcp-config", { packs: [pack] }],
      ] as const) {
        const answer = await call(client, tool, args);
        assert.ok(!answer.includes("SUPERSECRET"), `${tool} ${pack}: ${answer}`);
      }
    }
  } finally {
    await client.close();
  }
  // Before, hcp validate answered `env must be an array of variable names, got {"bank":{"BANK_TOKEN":"tok-SUPER...`, and
  // for the document `declares openapi {"notes":{"bearerAuth":"tok-…"}}` whole. The field is still named.
  const direct = await hcp(["validate", "--json", packs[0]!], { env });
  assert.match(direct.stdout, /env must be an array of variable names, got an object/, direct.stdout);
});

test("a device or FIFO named as the audit log to hcp audit (the own pack's read): answered at once, never read without bound", async () => {
  const env = isolatedEnv();
  const { hcpPack } = await ownPacks(env);
  const fifo = join(tempDir("hcp-agent-fifo-"), "log");
  execFileSync("mkfifo", [fifo]);
  const { client } = await mcpClient([hcpPack], { env });
  try {
    // Before, `hcp audit --audit /dev/zero` read until memory ran out (1 GB in 20 s, the verb's whole timeout), and a FIFO blocked it.
    for (const file of ["/dev/zero", fifo]) {
      const answer = await call(client, "hcp_audit", { audit: file });
      assert.ok(!answer.includes('"timed_out":true'), `hcp audit --audit ${file}: ${answer}`);
      assert.match(answer, /cannot read the audit log .*(a character device|a FIFO), not a regular file/, answer);
    }
  } finally {
    await client.close();
  }
});

test("a device named as the manifest to rungrad manifest validate and fmt (the own pack's reads): answered at once, never read without bound", async () => {
  const env = isolatedEnv();
  const { rungradPack } = await ownPacks(env);
  const { client } = await mcpClient([rungradPack], { env });
  try {
    // Before, /dev/zero was read until the verb's timeout, a gigabyte and more. rungrad still reads a pipe
    // (`<(mytool __rungrad_manifest)`), but no more than 256 MiB of anything.
    for (const tool of ["rungrad_manifest_validate", "rungrad_manifest_fmt"]) {
      const answer = await call(client, tool, { file: "/dev/zero" });
      assert.ok(!answer.includes('"timed_out":true'), `${tool} /dev/zero: ${answer}`);
      assert.match(answer, /read \/dev\/zero: it is larger than the 256 MiB limit/, answer);
    }
  } finally {
    await client.close();
  }
});

test("hcp trust is a write in the pack made from hcp: a read-only server never runs it, so the agent cannot take a person's trust away (--revoke)", async () => {
  const env = isolatedEnv();
  const { hcpPack } = await ownPacks(env);
  const trusted = await trustPack(probePack("ledger", { balance: { description: "Balance.", cli: ["probe", "balance"], policy: "read" } }), env);
  const trustedNow = async () => {
    const list = await hcp(["trust", "--list", "--json"], { env });
    return (JSON.parse(list.stdout) as { packs: { matches: boolean }[] }).packs.filter((p) => p.matches).length;
  };
  assert.equal(await trustedNow(), 1);
  const { client } = await mcpClient([hcpPack], { env });
  try {
    const answer = await client.callTool({ name: "hcp_trust", arguments: { pack: trusted, revoke: true } });
    assert.equal(answer.isError, true, JSON.stringify(answer));
  } finally {
    await client.close();
  }
  assert.equal(await trustedNow(), 1, "the person's trust is still there");
  const policy = JSON.parse(readFileSync(join(hcpPack, "policy.json"), "utf8")) as { verbs: Record<string, unknown> };
  assert.equal(policy.verbs["trust"], "write");
});
