// What an MCP server tells the agent matches what it serves: the instructions and each pack's HARNESS.md (resource
// and prompt) speak only of the served tools; arguments are taken alike over MCP and exec; describe shows every limit.
// Through the SDK's Client against the built hcp.

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixture } from "./helpers.js";
import { PROBE, isolatedEnv, probePack } from "./hardening.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PROBE_PACK, hcp, mcpClient, serveHttp, tempDir } from "../transports/support.js";
import { eventually } from "../runtime/support.js";

/** The taskr pack (test/fixtures/manifests/taskr.json) as hcp init writes it, running the probe. */
async function taskr(env: NodeJS.ProcessEnv): Promise<string> {
  const pack = join(tempDir(), "taskr");
  const r = await hcp(["init", "--from-manifest", fixture("manifests/taskr.json"), "--bin", PROBE, "--out", pack], { env });
  assert.equal(r.code, 0, r.stderr);
  return pack;
}

/** What the agent reads about the packs: the instructions, every resource and every prompt's text. */
async function whatTheAgentReads(paths: string[], args: string[], env: NodeJS.ProcessEnv) {
  const { client } = await mcpClient(paths, { env, args });
  try {
    const tools = (await client.listTools()).tools.map((t) => t.name);
    const instructions = client.getInstructions() ?? "";
    const resources = (await client.listResources()).resources;
    const texts: Record<string, string> = {};
    for (const r of resources) {
      const read = await client.readResource({ uri: r.uri });
      texts[r.uri] = (read.contents[0] as { text: string }).text;
    }
    const prompts = (await client.listPrompts()).prompts;
    const promptTexts = await Promise.all(prompts.map(async (p) => ((await client.getPrompt({ name: p.name })).messages[0]!.content as { text: string }).text));
    return { tools, instructions, uris: resources.map((r) => r.uri), texts, prompts: prompts.map((p) => p.name), promptTexts };
  } finally {
    await client.close();
  }
}

test("--read-only and --tools: the instructions and HARNESS.md (resource and prompt) speak only of the served tools and say so; a pack with none served is not mentioned", async () => {
  const env = isolatedEnv();
  const pack = await taskr(env);

  const ro = await whatTheAgentReads([pack], ["--read-only"], env);
  assert.ok(ro.tools.includes("taskr_task_list") && !ro.tools.includes("taskr_task_comment"), ro.tools.join());
  const harness = ro.texts["hcp://taskr/HARNESS.md"]!;
  assert.match(harness, /^### `task\.list` \(read/m);
  for (const hidden of ["task.comment", "task.tag", "files.add", "update` (write"]) {
    assert.ok(!harness.includes(`### \`${hidden}`), `${hidden} is not described:\n${harness}`);
  }
  for (const text of [harness, ro.instructions, ro.promptTexts[0]!]) {
    assert.ok(!/taskr_task_comment|taskr_task_tag|taskr_files_add|taskr_update\b/.test(text), `no hidden tool is named:\n${text}`);
  }
  assert.match(harness, /^> On this server only these tools of the pack are served: `taskr_completion`, .*`taskr_task_list`.*\. A verb this text names without one of them cannot be called here\.$/m);
  assert.match(harness, /^---\nname: taskr\n/, "the frontmatter stays first");
  assert.equal(ro.promptTexts[0], harness, "the prompt is the same text");

  // --tools on two packs: the probe pack, none of whose tools is chosen, is not spoken of at all.
  const some = await whatTheAgentReads([pack, PROBE_PACK], ["--allow-write", "--tools", "taskr_task_*"], env);
  assert.deepEqual(some.tools.sort(), ["taskr_task_comment", "taskr_task_comment_delete", "taskr_task_list", "taskr_task_tag"]);
  assert.deepEqual(some.uris, ["hcp://taskr/HARNESS.md"]);
  assert.deepEqual(some.prompts, ["taskr"]);
  assert.ok(!some.instructions.includes("hcp-probe"), some.instructions);
  assert.match(some.instructions, /^hcp serves 1 HCP harness pack; /, "the packs spoken of, counted in words an agent reads");
  const both = await whatTheAgentReads([pack, PROBE_PACK], [], env);
  assert.match(both.instructions, /^hcp serves 2 HCP harness packs; /);
  // How to confirm is said of the gates the served tools have, and only of them.
  assert.ok(!ro.instructions.includes("confirm"), `a read-only server speaks of no confirm:\n${ro.instructions}`);
  assert.match(some.instructions, /^Confirm-gated verbs: call with dry_run: true .* A person approves it/m);
  assert.doesNotMatch(some.instructions, /Plan-checked/);
  const checked = probePack("plancheck", { note: { description: "Notes a thing.", cli: ["probe", "echo", "x"] } }, {}, { default: "read", verbs: { note: { policy: "write", confirm: "plan" } } });
  const plan = await whatTheAgentReads([checked], ["--allow-write"], env);
  assert.match(plan.instructions, /^Plan-checked verbs: call with dry_run: true to get the plan and its plan_id, then again with the same arguments and confirm: <plan_id>; no person is asked\./m);
  assert.doesNotMatch(plan.instructions, /Confirm-gated|A person approves/, "no person is said to approve a plan check");
  const text = some.texts["hcp://taskr/HARNESS.md"]!;
  assert.match(text, /^### `task\.comment\.delete` \(write, needs a person's approval/m);
  assert.ok(!/### `(project\.list|files\.add|version|completion)`|taskr_project_list|taskr_version/.test(text), text);

  // Everything served: HARNESS.md is served as written, with no note.
  const all = await whatTheAgentReads([pack], ["--allow-write"], env);
  assert.ok(!all.texts["hcp://taskr/HARNESS.md"]!.includes("On this server only"));
  assert.match(all.texts["hcp://taskr/HARNESS.md"]!, /^### `files\.add` \(write/m);
});

/** `n` read verbs, v0 to v(n-1). */
const readVerbs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, { description: `Verb ${i}.`, cli: ["probe", "echo", "x"], policy: "read" }]));

test("the instructions name a pack's tools up to 50; an API's hundreds are counted, tools/list naming them (the instructions go before the agent every turn)", async () => {
  const fifty = probePack("fifty", readVerbs(50));
  const many = probePack("many", readVerbs(300));
  const { tools, instructions } = await whatTheAgentReads([fifty, many], [], isolatedEnv());
  assert.equal(tools.length, 350);
  assert.match(instructions, /^hcp serves 2 HCP harness packs; each verb is a tool named <pack>_<verb>; a verb with no tool in tools\/list is not served\.$/m);
  assert.match(instructions, new RegExp(`^- fifty: .* Tools: ${Array.from({ length: 50 }, (_, i) => `fifty_v${i}`).join(", ")}\\.$`, "m"));
  assert.match(instructions, /^- many: .* Tools: 300, each named in tools\/list\.$/m);
  assert.ok(!instructions.includes("many_v"), "no tool of the API is named");
  assert.ok(instructions.length < 3_000, `${instructions.length} characters`);
});

/** The schema of taskr_task_comment's task_gid, as the client lists it. */
const gidOf = async (client: Client) => ((await client.listTools()).tools.find((t) => t.name === "taskr_task_comment")!.inputSchema.properties as Record<string, unknown>)["task_gid"];
/** taskr's HARNESS.md as served. */
const harnessOf = async (client: Client) => ((await client.readResource({ uri: "hcp://taskr/HARNESS.md" })).contents[0] as { text: string }).text;

test("a subcommand the server hides (--read-only, --exclude) is not named by a served verb's refused values (inputSchema, HARNESS.md); the value is still refused", async () => {
  const env = isolatedEnv();
  const pack = await taskr(env);
  // task.comment reads here, and refuses its subcommands' names as task_gid: "delete" (task.comment.delete) and "help".
  const policyFile = join(pack, "policy.json");
  const policy = JSON.parse(readFileSync(policyFile, "utf8")) as { verbs: Record<string, unknown> };
  policy.verbs["task.comment"] = "read";
  writeFileSync(policyFile, JSON.stringify(policy));

  for (const args of [["--read-only"], ["--allow-write", "--exclude", "taskr_task_comment_delete"]]) {
    const { client } = await mcpClient([pack], { env, args });
    try {
      assert.deepEqual(await gidOf(client), { type: "string", not: { enum: ["help"] } }, args.join(" "));
      const harness = await harnessOf(client);
      assert.match(harness, /^ {2}- `task_gid` \(string, required, not "help"\)$/m);
      assert.ok(!/"delete"|comment\.delete|comment_delete/.test(harness), `${args.join(" ")}: the hidden subcommand is not named:\n${harness}`);
      assert.ok(!/"delete"|comment_delete/.test(client.getInstructions() ?? ""));
      // The guard is whole: the runtime still refuses the subcommand's name.
      const r = await client.callTool({ name: "taskr_task_comment", arguments: { task_gid: "delete", message: "x" } });
      assert.equal(r.isError, true);
      assert.equal((r.structuredContent as { error: { code: string } }).error.code, "invalid_args", JSON.stringify(r));
    } finally {
      await client.close();
    }
  }
  // Served, the subcommand is named: the agent may call it, and may not reach it through task.comment.
  const { client } = await mcpClient([pack], { env, allowWrite: true });
  try {
    assert.deepEqual(await gidOf(client), { type: "string", not: { enum: ["delete", "help"] } });
    assert.match(await harnessOf(client), /^ {2}- `task_gid` \(string, required, not "delete", "help"\)$/m);
  } finally {
    await client.close();
  }
});

/** A pack whose read verb `look` and write verb `save` (neither gated) each append a line to `log` when they run. */
function witnessed(): { pack: string; runs: () => string[] } {
  const dir = join(tempDir(), "wit");
  mkdirSync(dir);
  const log = join(dir, "..", "ran.log");
  writeFileSync(log, "");
  writeFileSync(join(dir, "w.sh"), `#!/bin/sh\necho "$1" >> '${log}'\n`);
  chmodSync(join(dir, "w.sh"), 0o755);
  const verbs = { look: { description: "Look.", cli: ["w", "look"], policy: "read" }, save: { description: "Save.", cli: ["w", "save"], policy: "write" } };
  writeFileSync(join(dir, "surface.json"), JSON.stringify({ id: "wit", kind: "wrap", wrap: { bin: "./w.sh" }, binding: { mode: "local", hub: "none" }, verbs }));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "wit", verbs: { look: "read", save: "write" } }));
  return { pack: dir, runs: () => readFileSync(log, "utf8").split("\n").filter((l) => l !== "") };
}

const message = (verb: string) => `verb "${verb}" of pack "wit" needs no confirmation, so a confirm (plan_id) is not taken: call it again without confirm; nothing was run`;

test("confirm on a verb that needs no confirmation is refused alike over MCP, exec and hcp run (invalid_args, saying to call without it); nothing runs", async () => {
  const env = isolatedEnv();
  const w = witnessed();
  const { client } = await mcpClient([w.pack], { env, allowWrite: true });
  try {
    for (const verb of ["look", "save"]) {
      const r = await client.callTool({ name: `wit_${verb}`, arguments: { confirm: "a-plan-id" } });
      assert.equal(r.isError, true);
      assert.deepEqual(r.structuredContent, { error: { code: "invalid_args", message: message(verb) } });
    }
  } finally {
    await client.close();
  }
  const lines = ["look", "save"].map((verb, i) => JSON.stringify({ id: i, pack: "wit", verb, args: {}, confirm: "a-plan-id" })).join("\n");
  const exec = await hcp(["exec", w.pack, "--allow-write"], { env, stdin: `${lines}\n` });
  const answers = exec.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: number; ok: boolean; error?: unknown });
  assert.deepEqual(answers.sort((a, b) => a.id - b.id), [
    { id: 0, ok: false, error: { code: "invalid_args", message: message("look") } },
    { id: 1, ok: false, error: { code: "invalid_args", message: message("save") } },
  ]);
  const run = await hcp(["run", w.pack, "look", "--confirm", "a-plan-id"], { env });
  assert.equal(run.code, 1, run.stderr);
  assert.ok(run.stderr.includes(message("look")), run.stderr);
  assert.deepEqual(w.runs(), [], "nothing ran");
  // Without confirm, each runs: the refusal was about confirm alone.
  const ok = await hcp(["exec", w.pack, "--allow-write"], { env, stdin: `${JSON.stringify({ id: 1, pack: "wit", verb: "save", args: {} })}\n` });
  assert.match(ok.stdout, /"ok":true/);
  assert.deepEqual(w.runs(), ["save"]);
});

const noDryRun = `verb "look" of pack "wit" only reads and needs no confirmation, so it has no dry run (a dry run is for verbs that write or need a confirmation): call it again without dry_run (hcp run: --dry-run) to run it; nothing was run`;

test("dry_run on a verb that only reads and needs no confirmation is refused alike over MCP, exec and hcp run (invalid_args, saying to call without it); a write's dry run is taken on each", async () => {
  const env = isolatedEnv();
  const w = witnessed();
  const { client } = await mcpClient([w.pack], { env, allowWrite: true });
  try {
    const tools = (await client.listTools()).tools;
    const props = (name: string) => Object.keys((tools.find((t) => t.name === name)!.inputSchema.properties ?? {}) as object);
    assert.deepEqual(props("wit_look"), [], "a read tool's schema has no dry_run");
    assert.deepEqual(props("wit_save"), ["dry_run"]);
    const r = await client.callTool({ name: "wit_look", arguments: { dry_run: true } });
    assert.equal(r.isError, true);
    assert.deepEqual(r.structuredContent, { error: { code: "invalid_args", message: noDryRun } });
    const plan = await client.callTool({ name: "wit_save", arguments: { dry_run: true } });
    assert.equal(plan.isError, undefined, JSON.stringify(plan));
    assert.match(JSON.stringify(plan.structuredContent), /"plan_id":"hcp1\./);
    // dry_run: false asks for nothing: the read runs, as over exec.
    const ran = await client.callTool({ name: "wit_look", arguments: { dry_run: false } });
    assert.notEqual(ran.isError, true, JSON.stringify(ran));
  } finally {
    await client.close();
  }
  assert.deepEqual(w.runs(), ["look"]);
  const lines = [JSON.stringify({ id: 0, pack: "wit", verb: "look", args: {}, dry_run: true }), JSON.stringify({ id: 1, pack: "wit", verb: "save", args: {}, dry_run: true })].join("\n");
  const exec = await hcp(["exec", w.pack], { env, stdin: `${lines}\n` });
  const answers = exec.stdout.trim().split("\n").map((l) => JSON.parse(l) as { id: number; ok: boolean; error?: unknown; result?: { plan_id?: string } });
  answers.sort((a, b) => a.id - b.id);
  assert.deepEqual(answers[0], { id: 0, ok: false, error: { code: "invalid_args", message: noDryRun } });
  assert.equal(answers[1]!.ok, true, exec.stdout);
  assert.match(answers[1]!.result!.plan_id!, /^hcp1\./);
  const run = await hcp(["run", w.pack, "look", "--dry-run"], { env });
  assert.equal(run.code, 1, run.stderr);
  assert.ok(run.stderr.includes(noDryRun), run.stderr);
  assert.deepEqual(w.runs(), ["look"], "no dry run ran anything");
});

test("hcp describe shows the values an argument may not take (a subcommand's name), as HARNESS.md does, in text and JSON", async () => {
  const env = isolatedEnv();
  const pack = await taskr(env);
  const text = await hcp(["describe", pack, "task.comment"], { env });
  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, /^ {4}task_gid \(string, required, not "delete", "help"\)$/m);
  const json = await hcp(["describe", pack, "task.comment", "--json"], { env });
  const args = (JSON.parse(json.stdout) as { verbs: { arguments: { name: string; not?: string[] }[] }[] }).verbs[0]!.arguments;
  assert.deepEqual(args.find((a) => a.name === "task_gid")!.not, ["delete", "help"]);
  assert.equal(args.find((a) => a.name === "message")!.not, undefined);

  // An array operand: its first item may not name a subcommand.
  const dir = join(tempDir(), "arr");
  mkdirSync(dir);
  const args2 = { type: "object", properties: { words: { type: "array", items: { type: "string" }, prefixItems: [{ not: { enum: ["rm", "help"] } }] } }, required: ["words"] };
  writeFileSync(join(dir, "surface.json"), JSON.stringify({ id: "arr", kind: "wrap", wrap: { bin: PROBE }, verbs: { say: { description: "Say.", cli: ["p", "say", "--", "{{words}}"], args: args2, policy: "read" } } }));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "arr", verbs: { say: "read" } }));
  const arr = await hcp(["describe", dir], { env });
  assert.match(arr.stdout, /^ {4}words \(array of string, required, first not "rm", "help"\)$/m, arr.stdout + arr.stderr);
  const arrJson = JSON.parse((await hcp(["describe", dir, "--json"], { env })).stdout) as { verbs: { arguments: { first_not?: string[] }[] }[] };
  assert.deepEqual(arrJson.verbs[0]!.arguments[0]!.first_not, ["rm", "help"]);
});

/** `hcp serve --mcp DIR` through the SDK's client over stdio, with the server's stderr and the client's log as they come. */
async function servedWithLog(dir: string, env: NodeJS.ProcessEnv): Promise<{ client: Client; stderr: () => string; logged: string[] }> {
  const logged: string[] = [];
  const { client, stderr } = await mcpClient([dir], { env, onLog: (line) => logged.push(line) });
  return { client, stderr, logged };
}

test("hcp serve: a pack's warnings go to the operator's stderr once, and to the client's log, with the pack's secrets masked (stdio and HTTP)", async () => {
  const secret = "tk-warned-7f3a91c2";
  const env = isolatedEnv();
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ warnfam: { env: { WARN_TOKEN: secret } } }));
  chmodSync(env["HCP_CREDENTIALS"]!, 0o600);
  const dir = join(tempDir(), "warned");
  mkdirSync(dir);
  // An unknown top-level field is a warning naming it; here its name is the credential's value.
  const surface = { id: "warned", kind: "wrap", wrap: { bin: PROBE }, binding: { mode: "user", hub: "local-credential", family: "warnfam" }, [secret]: 1, verbs: { echo: { cli: ["p", "echo"], policy: "read" } } };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "warned", verbs: { echo: "read" }, credentials: ["WARN_TOKEN"] }));

  const { client, stderr: stderrNow, logged } = await servedWithLog(dir, env);
  try {
    await client.listTools();
    // The log notifications follow `initialized`; a hang guard far above their time.
    await eventually(() => logged.length >= 3, 20_000);
    const stderr = stderrNow();
    const lines = stderr.split("\n").filter((l) => l.startsWith("Warning: pack warned:"));
    assert.ok(lines.some((l) => /unknown_field/.test(l)), stderr);
    assert.ok(lines.some((l) => /echo.*description/.test(l)), `a verb without a description is warned of too: ${stderr}`);
    assert.equal(new Set(lines).size, lines.length, "each once");
    assert.ok(!stderr.includes(secret) && stderr.includes("***"), stderr);
    assert.deepEqual(logged, lines.map((l) => l.slice("Warning: ".length)), "the client's log gets the same lines");
  } finally {
    await client.close();
  }
  const http = await serveHttp([dir], { env });
  try {
    const lines = http.stderr().split("\n").filter((l) => l.startsWith("Warning: pack warned:"));
    assert.ok(lines.length >= 2 && new Set(lines).size === lines.length, http.stderr());
    assert.ok(!http.stderr().includes(secret), http.stderr());
  } finally {
    await http.stop();
  }
});

test("more tools than many clients take at once (128), or heavier than Claude Code takes without a warning (25,000 tokens): hcp mcp-config and hcp serve say so on stderr, and serve to the client's log; a selection under the limits says nothing", async () => {
  const env = isolatedEnv();
  const dir = join(tempDir(), "wide");
  mkdirSync(dir);
  const verbs = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`v${i}`, { description: `Verb ${i}.`, cli: ["p", "echo"], policy: "read" }]));
  writeFileSync(join(dir, "surface.json"), JSON.stringify({ id: "wide", kind: "wrap", wrap: { bin: PROBE }, verbs }));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "wide", default: "read" }));
  const warning = "Warning: 130 MCP tools are more than many clients take at once (128 is a common limit): serve a part of them with --tools, --exclude or --read-only";

  const config = await hcp(["mcp-config", dir, "--client", "claude"], { env });
  assert.equal(config.code, 0, config.stderr);
  assert.ok(config.stderr.includes(warning), config.stderr);
  const fewer = await hcp(["mcp-config", dir, "--client", "claude", "--exclude", "wide_v1?"], { env });
  assert.equal(fewer.code, 0, fewer.stderr);
  assert.ok(!fewer.stderr.includes("more than many clients"), fewer.stderr);

  const { client, stderr: stderrNow, logged } = await servedWithLog(dir, env);
  try {
    assert.equal((await client.listTools()).tools.length, 130);
    // The log notifications follow `initialized`; a hang guard far above their time.
    await eventually(() => logged.length > 0, 20_000);
    assert.ok(stderrNow().includes(warning), stderrNow());
    assert.ok(logged.includes(warning.slice("Warning: ".length)), logged.join("\n"));
  } finally {
    await client.close();
  }

  // 12 verbs of 9,000-character descriptions, 4 of them reads: few tools, but about 27,000 tokens.
  const heavy = join(tempDir(), "heavy");
  mkdirSync(heavy);
  const long = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`report.v${i}`, { description: `Report ${i}. ${"word ".repeat(1800)}`, cli: ["p", "echo"], policy: i < 4 ? "read" : "write" }]));
  writeFileSync(join(heavy, "surface.json"), JSON.stringify({ id: "heavy", kind: "wrap", wrap: { bin: PROBE }, verbs: long }));
  writeFileSync(join(heavy, "policy.json"), JSON.stringify({ surface_id: "heavy" }));
  const weighed = /^Warning: 12 MCP tools come to about 27,\d00 tokens \(their names, descriptions and input schemas\), which a client puts before the agent on every turn \(Claude Code warns past 25,000\): serve a part of them with --tools, --exclude or --read-only \(--read-only serves its 4 reads, about 9,\d00 tokens; --tools 'heavy_report_\*' serves its 12 report verbs\)$/m;
  const heavyConfig = await hcp(["mcp-config", heavy, "--client", "claude"], { env });
  assert.equal(heavyConfig.code, 0, heavyConfig.stderr);
  assert.match(heavyConfig.stderr, weighed);
  const reads = await hcp(["mcp-config", heavy, "--client", "claude", "--read-only"], { env });
  assert.equal(reads.code, 0, reads.stderr);
  assert.ok(!reads.stderr.includes("MCP tools"), reads.stderr);
  const served = await servedWithLog(heavy, env);
  try {
    assert.equal((await served.client.listTools()).tools.length, 12);
    await eventually(() => served.logged.some((l) => l.includes("MCP tools come to")), 20_000);
    assert.match(served.stderr(), weighed);
  } finally {
    await served.client.close();
  }
});
