// `hcp mcp-config` carries the person's approval settings into the configuration it prints: the server a client
// starts from it asks the same --approver and logs to the same --audit file, wherever the client starts it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { APPROVER_BIN, bank } from "./approvals-support.js";

test("mcp-config --approver/--approver-arg/--approver-timeout/--audit: the printed server asks that approver and writes that log", async () => {
  const b = bank();
  const cwd = join(b.dir, "here");
  mkdirSync(cwd);
  const record = join(b.dir, "approver.jsonl");
  const flags = ["--allow-write", "--approver", APPROVER_BIN, "--approver-arg", record, "--approver-arg", "0", "--approver-timeout", "30", "--audit", "audit-here.jsonl"];
  const r = await b.hcp(["mcp-config", b.root, "--client", "json", ...flags], { cwd });
  assert.equal(r.code, 0, r.stderr);
  const entry = JSON.parse(r.stdout) as { command: string; args: string[] };
  const audit = join(cwd, "audit-here.jsonl");
  assert.deepEqual(entry.args.slice(3), [b.root, "--allow-write", "--approver", APPROVER_BIN, "--approver-arg", record, "--approver-arg", "0", "--approver-timeout", "30", "--audit", audit]);

  // The client starts it elsewhere, without HCP_AUDIT: only the carried flags can say where the log is.
  const env = { ...b.env } as Record<string, string>;
  delete env["HCP_AUDIT"];
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env, cwd: b.dir, stderr: "pipe" }));
  try {
    const paid = await client.callTool({ name: "bank_pay", arguments: { amount: "7" } });
    assert.equal(paid.isError, undefined, JSON.stringify(paid));
  } finally {
    await client.close();
  }
  assert.deepEqual(b.runs().map((w) => w.argv.slice(-2)), [["pay", "7"]]);
  assert.match(readFileSync(record, "utf8"), /"verb":"pay"/, "the --approver program was asked");
  assert.ok(existsSync(audit));
  const decisions = readFileSync(audit, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { decision: string }).decision);
  assert.ok(decisions.includes("ran"), decisions.join(","));
  assert.ok(!existsSync(b.audit), "nothing went to the test's default log");
});

test("mcp-config checks the approval flags it carries: an empty --approver, a timeout out of range, a program the person did not list", async () => {
  const b = bank();
  const [empty, timeout, unlisted] = await Promise.all([
    b.hcp(["mcp-config", b.root, "--approver", ""]),
    b.hcp(["mcp-config", b.root, "--approver", "false", "--approver-timeout", "0"]),
    b.hcp(["mcp-config", b.root, "--approver", "true"]),
  ]);
  assert.deepEqual([unlisted.code, unlisted.stdout], [4, ""]);
  assert.match(unlisted.stderr, /--approver "true" is not a program you listed in .*hcp\/approvers/);
  assert.deepEqual([empty.code, empty.stdout], [1, ""]);
  assert.match(empty.stderr, /--approver needs a PROGRAM/);
  assert.deepEqual([timeout.code, timeout.stdout], [1, ""]);
  assert.match(timeout.stderr, /--approver-timeout must be from 1 to 86400 seconds/);
});
