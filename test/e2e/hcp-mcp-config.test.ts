// `hcp mcp-config` carries the person's approval settings into the configuration it prints: the server a client
// starts from it asks the same --approver and logs to the same --audit file, wherever the client starts it, and it
// keeps its state, approvers file and audit log where the person's shell does, whatever the client's environment.

import assert from "node:assert/strict";
import { test } from "node:test";
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { PROBE_PACK, hcp, serveHttp, tempDir } from "../transports/support.js";
import { APPROVER_BIN, bank, toolErrorOf, toolPlanIdOf } from "./approvals-support.js";
import { trustPack } from "./helpers.js";
import { isolatedEnv, probePack } from "./hardening.js";

test("mcp-config --approver/--approver-arg/--approver-timeout/--audit: the printed server asks that approver and writes that log", async () => {
  const b = bank();
  const cwd = join(b.dir, "here");
  mkdirSync(cwd);
  const record = join(b.dir, "approver.jsonl");
  const flags = ["--allow-write", "--approver", APPROVER_BIN, "--approver-arg", record, "--approver-arg", "0", "--approver-timeout", "30", "--audit", "audit-here.jsonl"];
  const r = await b.hcp(["mcp-config", b.root, "--client", "json", ...flags], { cwd });
  assert.equal(r.code, 0, r.stderr);
  const entry = JSON.parse(r.stdout) as { command: string; args: string[]; env: Record<string, string> };
  const audit = join(cwd, "audit-here.jsonl");
  assert.deepEqual(entry.args.slice(3), [b.root, "--allow-write", "--approver", APPROVER_BIN, "--approver-arg", record, "--approver-arg", "0", "--approver-timeout", "30"]);
  // The log is carried in the entry's environment, not as --audit, which a server refuses where HCP_NO_PROMPT is set.
  assert.equal(entry.env["HCP_AUDIT"], audit);

  // The client starts it elsewhere, without HCP_AUDIT of its own: the entry's environment says where the log is; and
  // in an environment where HCP_NO_PROMPT is set (a client started where the agent's commands run) as well.
  const env = { ...b.env } as Record<string, string>;
  delete env["HCP_AUDIT"];
  // Where HCP_NO_PROMPT is set, a server serves only packs a person trusted: this one a person did.
  await trustPack(b.root, b.env);
  for (const [amount, more] of [["7", {}], ["8", { HCP_NO_PROMPT: "1" }]] as const) {
    const client = new Client({ name: "t", version: "1" });
    await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...env, ...more, ...entry.env }, cwd: b.dir, stderr: "pipe" }));
    try {
      const paid = await client.callTool({ name: "bank_pay", arguments: { amount } });
      assert.equal(paid.isError, undefined, JSON.stringify(paid));
    } finally {
      await client.close();
    }
  }
  assert.deepEqual(b.runs().map((w) => w.argv.slice(-2)), [["pay", "7"], ["pay", "8"]]);
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

test("mcp-config carries the shell's XDG_STATE_HOME, XDG_CONFIG_HOME and HCP_AUDIT (made absolute): hcp approve in that shell approves the plan the server finds", async () => {
  const b = bank();
  const shell = join(b.dir, "shell");
  mkdirSync(shell);
  // The person's shell: the bank's state and config homes, and an audit log named relative to where they are.
  const shellEnv = { ...b.env, HCP_AUDIT: "audit-here.jsonl" };
  const r = await b.hcp(["mcp-config", b.root, "--client", "json", "--allow-write"], { env: shellEnv, cwd: shell });
  assert.equal(r.code, 0, r.stderr);
  const entry = JSON.parse(r.stdout) as { command: string; args: string[]; env: Record<string, string> };
  const audit = join(shell, "audit-here.jsonl");
  assert.deepEqual(entry.env, { HCP_CREDENTIALS: b.env["HCP_CREDENTIALS"]!, HCP_AUDIT: audit, XDG_CONFIG_HOME: b.env["XDG_CONFIG_HOME"]!, XDG_STATE_HOME: b.state });

  // The client's own environment: another home, none of the shell's places; the entry's env is all it passes on.
  const clientHome = join(b.dir, "client-home");
  mkdirSync(clientHome);
  const clientEnv = { HOME: clientHome, PATH: process.env["PATH"] ?? "", WITNESS: b.witness };
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...clientEnv, ...entry.env }, cwd: clientHome, stderr: "pipe" }));
  try {
    const id = toolPlanIdOf(await client.callTool({ name: "bank_pay", arguments: { amount: "7", dry_run: true } }));
    const early = await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } });
    assert.equal(toolErrorOf(early).code, "approval_required");
    const approved = await b.approve(id, "y", shell);
    assert.equal(approved.code, 0, approved.stdout);
    const ran = await client.callTool({ name: "bank_pay", arguments: { amount: "7", confirm: id } });
    assert.equal(ran.isError, undefined, JSON.stringify(ran.structuredContent));
  } finally {
    await client.close();
  }
  assert.deepEqual(b.runs().map((w) => w.argv.slice(-2)), [["pay", "7"]]);
  const decisions = readFileSync(audit, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { decision: string }).decision);
  assert.ok(decisions.includes("approved") && decisions.includes("ran"), `the shell's approval and the server's run in one log: ${decisions.join(",")}`);
  assert.ok(!existsSync(join(clientHome, ".local")), "nothing went to the client's default state directory");
});

test("mcp-config --client codex says that Codex under approval policy never declines hcp's questions by itself, and to serve it with --no-elicitation; not once it is given", async () => {
  const b = bank();
  const note = /Codex under approval policy never declines hcp's question about a gated plan by itself, and a declined plan cannot run again in its session: for such a Codex, add --no-elicitation and approve with hcp approve/;
  const plain = await b.hcp(["mcp-config", b.root, "--client", "codex"]);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stderr, note);
  const without = await b.hcp(["mcp-config", b.root, "--client", "codex", "--no-elicitation"]);
  assert.equal(without.code, 0, without.stderr);
  assert.doesNotMatch(without.stderr, note);
  assert.match(without.stdout, /"--no-elicitation"/);
  const claude = await b.hcp(["mcp-config", b.root, "--client", "claude"]);
  assert.doesNotMatch(claude.stderr, note);
});

test("mcp-config leaves out what hcp ignores: a relative XDG_STATE_HOME or XDG_CONFIG_HOME, empty values; HCP_AUDIT=none stays none", async () => {
  const b = bank();
  const env = { ...b.env, XDG_STATE_HOME: "state", XDG_CONFIG_HOME: "", HCP_AUDIT: "none", HCP_CREDENTIALS: "" };
  const r = await b.hcp(["mcp-config", b.root, "--client", "codex"], { env, cwd: b.dir });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.endsWith('env = { HCP_AUDIT = "none" }\n'), r.stdout);
});

test("mcp-config of a folder holding an untrusted pack whose document is fetched by openapi.url: nothing is fetched, and the warning says the server fetches it (not that it leaves the pack out)", async () => {
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const b = bank();
    const packs = join(b.dir, "packs");
    cpSync(b.root, join(packs, "bank"), { recursive: true });
    const remote = join(packs, "remote");
    mkdirSync(remote);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/doc.json`;
    writeFileSync(join(remote, "surface.json"), JSON.stringify({ id: "remote", kind: "openapi", openapi: { url }, binding: { mode: "local", hub: "none" }, verbs: { "notes.list": { description: "List." } } }));
    writeFileSync(join(remote, "policy.json"), JSON.stringify({ surface_id: "remote", default: "read" }));
    const r = await b.hcp(["mcp-config", packs, "--client", "json"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /remote was not checked: its OpenAPI document \(openapi\.url\) is fetched here only for a pack a person trusted, and a person has never trusted it; the server fetches it as it starts/);
    assert.doesNotMatch(r.stderr, /leave out .*remote/);
    assert.deepEqual(asked, [], "nothing was fetched");
  } finally {
    server.close();
  }
});

/** What an MCP client does with an entry of a server it reaches over HTTP: fills in its headers' variables, then connects. */
async function reaches(url: string, headers: Record<string, string>, fill: (value: string) => string): Promise<void> {
  const filled = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, fill(v)]));
  const client = new Client({ name: "t", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: filled } }));
  try {
    assert.ok((await client.listTools()).tools.some((t) => t.name === "hcp-probe_echo"));
  } finally {
    await client.close();
  }
}

test("mcp-config --url: each client's entry reaches a running hcp serve --http with the token from the variable it names, and no entry holds the token", async () => {
  const env = { ...process.env, HOME: tempDir("hcp-home-"), XDG_STATE_HOME: tempDir("hcp-state-") };
  const token = "7f3a9c21d4e8b6a0c5d2e9f1a4b7c3d8";
  const tokenFile = join(tempDir("hcp-token-"), "token");
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const served = await serveHttp([PROBE_PACK], { args: ["--token-file", tokenFile], env });
  try {
    const config = async (client: string, extra: string[] = ["--token-env", "HCP_TEST_TOKEN"]) => {
      const r = await hcp(["mcp-config", "--url", served.url, "--client", client, ...extra], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(!(r.stdout + r.stderr).includes(token), "the token is never written");
      return r;
    };

    type Entry = { type?: string; url: string; headers: Record<string, string> };
    const claude = JSON.parse((await config("claude")).stdout) as { mcpServers: { hcp: Entry } };
    assert.deepEqual(claude.mcpServers.hcp, { type: "http", url: served.url, headers: { Authorization: "Bearer ${HCP_TEST_TOKEN}" } });
    await reaches(served.url, claude.mcpServers.hcp.headers, (v) => v.replace("${HCP_TEST_TOKEN}", token));

    const cursor = JSON.parse((await config("cursor")).stdout) as { mcpServers: { hcp: Entry } };
    assert.deepEqual(cursor.mcpServers.hcp, { url: served.url, headers: { Authorization: "Bearer ${env:HCP_TEST_TOKEN}" } });
    await reaches(served.url, cursor.mcpServers.hcp.headers, (v) => v.replace("${env:HCP_TEST_TOKEN}", token));

    // VS Code asks the person for the token (a password input) and fills in its id.
    const vscode = JSON.parse((await config("vscode")).stdout) as { inputs: { id: string; type: string; password: boolean }[]; servers: { hcp: Entry } };
    assert.deepEqual(vscode.inputs.map((i) => [i.type, i.password]), [["promptString", true]]);
    await reaches(served.url, vscode.servers.hcp.headers, (v) => v.replace(`\${input:${vscode.inputs[0]!.id}}`, token));

    assert.equal((await config("codex")).stdout, `[mcp_servers.hcp]\nurl = "${served.url}"\nbearer_token_env_var = "HCP_TEST_TOKEN"\n`);
    assert.deepEqual(JSON.parse((await config("json", ["--token-env", "HCP_TEST_TOKEN", "--name", "ops"])).stdout), { name: "ops", url: served.url, token_env: "HCP_TEST_TOKEN" });
    // A loopback server without a token: no header.
    assert.deepEqual((JSON.parse((await config("claude", [])).stdout) as { mcpServers: { hcp: Entry } }).mcpServers.hcp, { type: "http", url: served.url });
  } finally {
    await served.stop();
  }

  // The server's flags and packs belong to hcp serve, not to a client reaching it; each mistake is named.
  for (const [args, message] of [
    [["--url", "https://mcp.example.com/mcp", PROBE_PACK], /--url names a server that is already running/],
    [["--url", "https://mcp.example.com/mcp", "--allow-write"], /--allow-write is the server's: give it to the hcp serve --http that serves --url/],
    [["--url", "ftp://mcp.example.com/mcp"], /--url must be an http or https URL/],
    [["--url", "https://ops:hunter2@mcp.example.com/mcp"], /--url must carry no user name or password/],
    [["--url", "https://mcp.example.com/mcp", "--token-env", "1TOKEN"], /--token-env must name an environment variable/],
    [["--token-env", "HCP_TOKEN", PROBE_PACK], /--token-env goes with --url/],
    [[], /hcp mcp-config needs packs \(a server the client starts\) or --url/],
  ] as const) {
    const r = await hcp(["mcp-config", ...args], { env });
    assert.deepEqual([r.code, r.stdout], [1, ""], args.join(" "));
    assert.match(r.stderr, message);
  }
});

test("a pack whose policy.json passes variables (env): mcp-config says to set them where the client starts hcp, warning of those unset here, and puts no value in the entry; hcp serve warns of those its environment does not hold", async () => {
  const root = probePack("envy", { show: { description: "Show.", cli: ["probe", "run", "env:PROBE_SET", "env:PROBE_UNSET"], policy: "read" } }, {}, { verbs: { show: "read" }, env: ["PROBE_SET", "PROBE_UNSET"] });
  const env: NodeJS.ProcessEnv = { ...isolatedEnv(), PROBE_SET: "v-4a1f0c" };
  delete env["PROBE_UNSET"];
  const config = await hcp(["mcp-config", root, "--client", "claude"], { env });
  assert.equal(config.code, 0, config.stderr);
  assert.match(config.stderr, /Warning: pack "envy"'s verbs get PROBE_SET, PROBE_UNSET \(policy\.json env\) from the environment the client starts hcp in: set them there \(a client started from a menu has not your shell's\); a plain value may go in this entry's "env", a secret not .*; unset here: PROBE_UNSET\n/);
  assert.ok(!config.stdout.includes("v-4a1f0c") && !config.stdout.includes("PROBE_SET"), config.stdout);
  const quiet = await hcp(["mcp-config", root, "--client", "claude", "--quiet"], { env });
  assert.match(quiet.stderr, /unset here: PROBE_UNSET/, "a warning, kept by --quiet");
  const set = await hcp(["mcp-config", root, "--client", "claude"], { env: { ...env, PROBE_UNSET: "" } });
  assert.doesNotMatch(set.stderr, /Warning: pack "envy"/, "set here (empty too): said, not warned");
  assert.match(set.stderr, /pack "envy"'s verbs get PROBE_SET, PROBE_UNSET/);

  const served = await hcp(["serve", "--mcp", root], { env, stdin: "" });
  assert.equal(served.code, 0, served.stderr);
  assert.match(served.stderr, /pack "envy"'s policy\.json passes its verbs PROBE_UNSET from hcp's environment \(env\), which does not hold it: its verbs run without it/);
});
