// MCP tools as agents see them, through the SDK's Client against the built hcp: packs generated from a real-shaped
// manifest, descriptions, the text block and structuredContent, hints, tool selection, progress, logging, prompts,
// mcp-config.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { fixture } from "./helpers.js";
import { PROBE, isolatedEnv, probePack } from "./hardening.js";
import { HCP, hcp, mcpClient, tempDir } from "../transports/support.js";

const TOKEN = "tk-mcp-77aa01";

/** The taskr pack (from test/fixtures/manifests/taskr.json) in a folder of packs, with its credential file. */
async function taskr(): Promise<{ dir: string; pack: string; env: NodeJS.ProcessEnv }> {
  const env = isolatedEnv();
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ taskr: { env: { TASKR_TOKEN: TOKEN } } }));
  chmodSync(env["HCP_CREDENTIALS"]!, 0o600);
  const dir = join(tempDir(), "packs");
  const pack = join(dir, "taskr");
  const r = await hcp(["init", "--from-manifest", fixture("manifests/taskr.json"), "--bin", PROBE, "--out", pack], { env });
  assert.equal(r.code, 0, r.stderr);
  return { dir, pack, env };
}

type Text = { type: string; text: string }[];

test("tools/list: two-sentence descriptions (a fallback when empty), outputSchema, write hints from policy", async () => {
  const { pack, env } = await taskr();
  const policyFile = join(pack, "policy.json");
  const policy = JSON.parse(readFileSync(policyFile, "utf8")) as { verbs: Record<string, unknown> };
  policy.verbs["task.tag"] = { policy: "write", idempotent: true };
  writeFileSync(policyFile, JSON.stringify(policy));
  const { client } = await mcpClient([pack], { env });
  try {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.equal(byName.get("taskr_task_list")!.description, "List tasks. Read-only: it changes nothing.");
    assert.equal(byName.get("taskr_project_list")!.description, "Runs `taskr project list`. Read-only: it changes nothing.");
    assert.equal(
      byName.get("taskr_task_comment_delete")!.description,
      "Delete a comment. A write (it may change things), needs a person's approval of each run (call with dry_run: true to see the plan first), and is refused: this server was started without --allow-write.",
    );
    for (const t of tools) {
      assert.match(t.description ?? "", /^[A-Z`].*[.] [A-Z].*[.]$/, `${t.name}: two sentences`);
      assert.equal(t.outputSchema?.type, "object", `${t.name} declares its output`);
    }
    assert.deepEqual(byName.get("taskr_task_comment")!.annotations, {
      title: "taskr: task.comment",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
    assert.deepEqual(byName.get("taskr_task_tag")!.annotations, {
      title: "taskr: task.tag",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    const list = byName.get("taskr_task_list")!.inputSchema as { properties: Record<string, unknown>; required?: string[] };
    assert.deepEqual(Object.keys(list.properties), ["project", "assignee", "limit", "state", "tag"]);
    assert.equal(list.required, undefined, "the optional operand is optional");
  } finally {
    await client.close();
  }
});

test("tools/call: the text block is the child's stdout; a failure appends stderr and the exit code; the envelope is structuredContent", async () => {
  const root = probePack(
    "tx",
    {
      show: { description: "show", cli: ["probe", "show", "{{what}}"], args: { type: "object", properties: { what: { type: "string" } } }, policy: "read" },
      broken: { description: "broken", cli: ["probe", "run", "print:partial", "eprint:disk is full", "exit:3"], policy: "read" },
    },
    { binding: { mode: "local" } },
    { verbs: { show: "read", broken: "read" } },
  );
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const ok = await client.callTool({ name: "tx_show", arguments: { what: "a b" } });
    const sc = ok.structuredContent as { stdout?: string; exit_code: number; argv: string[]; json: { argv: string[] } };
    assert.deepEqual(JSON.parse((ok.content as Text)[0]!.text), sc.json, "the text block is stdout as is, structuredContent has it parsed");
    assert.ok(!("stdout" in sc), "stdout goes once, as json, where it is JSON");
    assert.deepEqual(sc.json.argv, ["show", "a b"], "exactly this argv ran");
    assert.equal(sc.exit_code, 0);
    assert.equal(ok.isError, undefined);

    const bad = await client.callTool({ name: "tx_broken", arguments: {} });
    assert.equal(bad.isError, true);
    assert.equal((bad.content as Text)[0]!.text, "partial\n[stderr]\ndisk is full\n[exited with code 3]");
    assert.equal((bad.structuredContent as { exit_code: number }).exit_code, 3);
  } finally {
    await client.close();
  }
});

test("--tools, --exclude and --read-only choose the tools; a tool left out cannot be called", async () => {
  const { pack, env } = await taskr();
  const names = async (args: string[]) => {
    const { client } = await mcpClient([pack], { env, args, allowWrite: true });
    try {
      const { tools } = await client.listTools();
      if (args.includes("--read-only")) {
        const r = client.callTool({ name: "taskr_update", arguments: {} });
        await assert.rejects(r, /unknown tool/);
      }
      return tools.map((t) => t.name);
    } finally {
      await client.close();
    }
  };
  assert.deepEqual(await names(["--read-only"]), ["taskr_completion", "taskr_project_list", "taskr_task_list", "taskr_update_check", "taskr_version"]);
  assert.deepEqual(await names(["--tools", "taskr_task_*", "--exclude", "*_delete"]), ["taskr_task_comment", "taskr_task_list", "taskr_task_tag"]);
  assert.deepEqual(await names(["--tools", "taskr_version", "--tools", "taskr_update?check"]), ["taskr_update_check", "taskr_version"]);
});

test("progress: a call carrying a progressToken gets notifications at most once a second, with the last stderr line", async () => {
  // The verb runs until the test has seen two notifications, the last one naming the last stderr line: however slow
  // the machine, the call lasts as long as the assertions need, never a fixed time.
  const go = join(tempDir(), "go");
  const root = probePack(
    "slow",
    { work: { description: "work", cli: ["probe", "run", "eprint:step one", "eprint:step two", `until:${go}`, "print:done"], policy: "read" } },
    {},
    { verbs: { work: "read" } },
  );
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const seen: { progress: number; message?: string }[] = [];
    const onprogress = (p: { progress: number; message?: string }) => {
      seen.push(p);
      if (seen.length >= 2 && (p.message ?? "").endsWith("stderr: step two")) writeFileSync(go, "");
    };
    const r = await client.callTool({ name: "slow_work", arguments: {} }, undefined, { onprogress });
    assert.equal((r.content as Text)[0]!.text, "done\n");
    assert.ok(seen.length >= 2, "notifications while the call runs");
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]!.progress - seen[i - 1]!.progress >= 900, "at most once a second");
    assert.match(seen.at(-1)!.message ?? "", /bytes of output; stderr: step two$/);
  } finally {
    await client.close();
  }
});

test("a folder of packs serves what loads, names the rest on stderr and in the client's log; --strict refuses", async () => {
  const { dir, env } = await taskr();
  mkdirSync(join(dir, "broken"));
  writeFileSync(join(dir, "broken", "surface.json"), '{"id": "broken", "kind": "wrap", "verbs": {}}');
  const transport = new StdioClientTransport({ command: process.execPath, args: [HCP, "serve", "--mcp", dir], env: env as Record<string, string>, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const client = new Client({ name: "t", version: "1" });
  const logged = new Promise<string>((resolve) => client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(String(n.params.data))));
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "taskr_task_list"));
    assert.match(await logged, /skipped .*broken: .*wrap\.bin is required|skipped .*broken/);
    assert.match(stderr, /^Warning: skipped .*broken: pack at .*broken has validation errors/m);
  } finally {
    await client.close();
  }
  const strict = await hcp(["serve", "--mcp", dir, "--strict"], { env });
  assert.notEqual(strict.code, 0);
  assert.match(strict.stderr, /broken/);
  const list = await hcp(["list", dir], { env });
  assert.equal(list.code, 0);
  assert.match(list.stdout, /taskr/);
  assert.match(list.stderr, /^Warning: skipped .*broken/m);
});

test("each pack's HARNESS.md is a prompt as well as a resource", async () => {
  const { pack, env } = await taskr();
  const { client } = await mcpClient([pack], { env });
  try {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ["taskr"]);
    const got = await client.getPrompt({ name: "taskr" });
    const harness = readFileSync(join(pack, "HARNESS.md"), "utf8");
    assert.equal((got.messages[0]!.content as { text: string }).text, harness);
    const read = await client.readResource({ uri: "hcp://taskr/HARNESS.md" });
    assert.equal((read.contents[0] as { text: string }).text, harness);
  } finally {
    await client.close();
  }
});

test("structuredContent keeps a big integer's literal on the wire (9007199254740993)", async () => {
  const root = probePack("big", { n: { description: "n", cli: ["probe", "run", 'print:{"n":9007199254740993}'], policy: "read" } }, {}, { verbs: { n: "read" } });
  const child = spawn(process.execPath, [HCP, "serve", "--mcp", root], { env: isolatedEnv(), stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
  const lines = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "big_n", arguments: {} } },
  ];
  child.stdin.write(lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const answer = await new Promise<string>((resolve) => {
    const check = () => {
      const line = out.split("\n").find((l) => l.includes('"id":2'));
      if (line !== undefined) resolve(line);
    };
    child.stdout.on("data", check);
  });
  child.stdin.end();
  await new Promise((resolve) => child.on("close", resolve));
  assert.match(answer, /"json":\{"n":9007199254740993\}/);
  // A client that parses it as JavaScript reads 9007199254740992: the exact text goes beside it, as stdout.
  assert.match(answer, /"stdout":"\{\\"n\\":9007199254740993\}\\n"/);
});

test("attack: structuredContent never leaves an agent only a JSON value that says less than the output: an id past 2^53 (a snowflake), a key given twice, a number a double does not keep (1e400, 1e-400, -0, 19 digits) or a lone surrogate keeps stdout beside json, as an API's body keeps body", async () => {
  const verbs = {
    id: { description: "A snowflake id.", cli: ["probe", "run", 'print:{"id": 1234567890123456789}'], policy: "read" },
    // Numbers a double does not keep (written as null, 0, 0, rounded) and a lone surrogate (written as U+FFFD).
    huge: { description: "Overflow.", cli: ["probe", "run", 'print:{"a": 1e400}'], policy: "read" },
    tiny: { description: "Underflow.", cli: ["probe", "run", 'print:{"a": 1e-400}'], policy: "read" },
    minus: { description: "Minus zero.", cli: ["probe", "run", 'print:{"a": -0}'], policy: "read" },
    digits: { description: "19 significant digits.", cli: ["probe", "run", 'print:{"a": 123456789012345.6789}'], policy: "read" },
    lone: { description: "A lone surrogate.", cli: ["probe", "run", 'print:{"a": "\\ud800"}'], policy: "read" },
    twice: { description: "A key twice.", cli: ["probe", "run", 'print:{"to": "alice", "to": "mallory"}'], policy: "read" },
    plain: { description: "Plain JSON.", cli: ["probe", "run", 'print:{"id": 12345}'], policy: "read" },
  };
  const root = probePack("ids", verbs, {}, { verbs: Object.fromEntries(Object.keys(verbs).map((v) => [v, "read"])) });
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const lost = [["id", '{"id": 1234567890123456789}\n'], ["twice", '{"to": "alice", "to": "mallory"}\n'], ["huge", '{"a": 1e400}\n'], ["tiny", '{"a": 1e-400}\n'], ["minus", '{"a": -0}\n'], ["digits", '{"a": 123456789012345.6789}\n'], ["lone", '{"a": "\\ud800"}\n']] as const;
    for (const [verb, shown] of lost) {
      const r = await client.callTool({ name: `ids_${verb}`, arguments: {} });
      assert.equal((r.structuredContent as { stdout?: string }).stdout, shown, `${verb}: the exact text beside json`);
    }
    const plain = await client.callTool({ name: "ids_plain", arguments: {} });
    assert.equal((plain.structuredContent as { stdout?: string }).stdout, undefined, "JSON that says all: once, as json");
  } finally {
    await client.close();
  }
});

test("hcp mcp-config prints a configuration per client; the json one starts a working server", async () => {
  const { pack, env } = await taskr();
  const config = async (client: string, extra: string[] = []) => {
    const r = await hcp(["mcp-config", pack, "--client", client, ...extra], { env });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout;
  };
  const hcpScript = HCP;
  const expectedArgs = [hcpScript, "serve", "--mcp", pack, "--read-only", "--exclude", "taskr_version"];
  const claude = JSON.parse(await config("claude", ["--read-only", "--exclude", "taskr_version"])) as { mcpServers: Record<string, { command: string; args: string[] }> };
  // The places named in the environment reach the server the client starts (hcp-first-steps and hcp-mcp-config show it works).
  const placesEnv = { HCP_CREDENTIALS: env["HCP_CREDENTIALS"]!, HCP_AUDIT: env["HCP_AUDIT"]!, XDG_CONFIG_HOME: env["XDG_CONFIG_HOME"]!, XDG_STATE_HOME: env["XDG_STATE_HOME"]! };
  assert.deepEqual(claude.mcpServers["hcp-taskr"], { command: process.execPath, args: expectedArgs, env: placesEnv });
  // Where it goes, for either client that reads this shape.
  const where = (await hcp(["mcp-config", pack, "--client", "claude"], { env })).stderr;
  assert.match(where, /paste into Claude Desktop: claude_desktop_config\.json .*, under mcpServers; Claude Code: \.mcp\.json in the project, under mcpServers/);
  const cursor = JSON.parse(await config("cursor")) as { mcpServers: Record<string, unknown> };
  assert.ok(cursor.mcpServers["hcp-taskr"]);
  const vscode = JSON.parse(await config("vscode", ["--allow-write"])) as { servers: Record<string, { type: string; args: string[] }> };
  assert.equal(vscode.servers["hcp-taskr"]!.type, "stdio");
  assert.deepEqual(vscode.servers["hcp-taskr"]!.args.slice(-1), ["--allow-write"]);
  assert.equal(
    await config("codex"),
    `[mcp_servers.hcp-taskr]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${[hcpScript, "serve", "--mcp", pack].map((a) => JSON.stringify(a)).join(", ")}]\nenv = { ${Object.entries(placesEnv).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ")} }\n`,
  );

  const entry = JSON.parse(await config("json", ["--read-only"])) as { command: string; args: string[] };
  const transport = new StdioClientTransport({ command: entry.command, args: entry.args, env: env as Record<string, string>, stderr: "pipe" });
  const client = new Client({ name: "t", version: "1" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0 && tools.every((t) => t.annotations?.readOnlyHint === true));
  } finally {
    await client.close();
  }

  const bad = await hcp(["mcp-config", pack, "--client", "emacs"], { env });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--client must be one of claude, vscode, cursor, codex, json/);
});

test("an output past max_output_bytes ends, in the text the agent reads, with its whole lines, then how much was written, shown and kept, and to narrow the call: a line cut short is never shown as if whole", async () => {
  const prints = Array.from({ length: 10 }, (_, i) => `print:/data/many/file_${i}.txt`);
  const root = probePack("cut", { ls: { description: "List.", cli: ["probe", "run", ...prints], policy: "read" } }, {}, { verbs: { ls: { policy: "read", max_output_bytes: 60 } } });
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const r = await client.callTool({ name: "cut_ls", arguments: {} });
    const text = (r.content as { text: string }[])[0]!.text;
    const sc = r.structuredContent as { stdout: string; stdout_bytes: number; stdout_truncated: boolean };
    assert.equal(sc.stdout_truncated, true);
    assert.equal(sc.stdout.length, 60, "the result keeps what the pack keeps");
    assert.equal(text, `/data/many/file_0.txt\n/data/many/file_1.txt\n[stdout truncated: ${sc.stdout_bytes} bytes written, the first 44 shown (the verb keeps 60 bytes of each stream); narrow the call (a filter, a page, a path) for the rest]`);
  } finally {
    await client.close();
  }
});
