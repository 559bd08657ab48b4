// What an agent meets in packs hcp generates from real CLIs, through the SDK's Client against the built hcp: argument
// names it can use, values it can pass, refusals that say what to do.

import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, fixture } from "./helpers.js";
import { PROBE, isolatedEnv, probePack } from "./hardening.js";
import { HCP, hcp, mcpClient, tempDir } from "../transports/support.js";

type Text = { type: string; text: string }[];

/** The taskr pack (test/fixtures/manifests/taskr.json) running the probe, with its credential file. */
async function taskr(): Promise<{ pack: string; env: NodeJS.ProcessEnv }> {
  const env = isolatedEnv();
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ taskr: { env: { TASKR_TOKEN: "tk-agent-1" } } }));
  chmodSync(env["HCP_CREDENTIALS"]!, 0o600);
  const pack = join(tempDir(), "taskr");
  const r = await hcp(["init", "--from-manifest", fixture("manifests/taskr.json"), "--bin", PROBE, "--out", pack], { env });
  assert.equal(r.code, 0, r.stderr);
  return { pack, env };
}

test("MCP: a comment starting with - is passed as an operand, and a first operand naming a subcommand is refused saying which", async () => {
  const { pack, env } = await taskr();
  const { client } = await mcpClient([pack], { env, allowWrite: true });
  try {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === "taskr_task_comment")!.inputSchema as { properties: Record<string, unknown> };
    assert.deepEqual(schema.properties["task_gid"], { type: "string", not: { enum: ["delete", "help"] } }, "the schema says what is refused");
    const harness = readFileSync(join(pack, "HARNESS.md"), "utf8");
    assert.match(harness, /^ {2}- `task_gid` \(string, required, not "delete", "help"\)$/m, "and so does HARNESS.md");
    const ok = await client.callTool({ name: "taskr_task_comment", arguments: { task_gid: "1207", message: "- done\n- tested" } });
    assert.notEqual(ok.isError, true, JSON.stringify(ok));
    const ran = (ok.structuredContent as { json: { argv: string[] } }).json.argv;
    assert.deepEqual(ran, ["task", "comment", "--json", "--no-prompt", "--", "1207", "- done\n- tested"]);
    const refused = await client.callTool({ name: "taskr_task_comment", arguments: { task_gid: "delete", message: "c9" } });
    assert.equal(refused.isError, true);
    assert.match((refused.content as Text)[0]!.text, /invalid_args: .*argument "task_gid": must not be "delete", "help"/);
    assert.equal((refused.structuredContent as { exit_code?: number }).exit_code, undefined, "nothing ran");
  } finally {
    await client.close();
  }
});

test("hcp init --from-exe on hcp itself: the pack validates; describe's [verb] operand is argument _verb, and the tool runs", async () => {
  const env = isolatedEnv();
  const pack = join(tempDir(), "hcp");
  const init = await hcp(["init", "--from-exe", HCP, "--out", pack], { env });
  assert.equal(init.code, 0, init.stderr);
  const v = await hcp(["validate", pack], { env });
  assert.equal(v.code, 0, v.stdout);
  const { client } = await mcpClient([pack], { env });
  try {
    const { tools } = await client.listTools();
    const describe = tools.find((t) => t.name === "hcp_describe")!;
    assert.deepEqual(Object.keys((describe.inputSchema as { properties: object }).properties), ["pack", "_verb"]);
    const r = await client.callTool({ name: "hcp_describe", arguments: { pack: fixture("packs/hcp-probe"), _verb: "echo" } });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    assert.equal((r.structuredContent as { json: { verbs: { verb: string }[] } }).json.verbs[0]!.verb, "echo");
  } finally {
    await client.close();
  }
});

/** A stand-in for the tracker API on loopback: records each request, answers 200 with `{"ok": true}`. */
async function trackerApi(): Promise<{ base: string; seen: { method: string; url: string; auth?: string; body: string }[]; close: () => void }> {
  const seen: { method: string; url: string; auth?: string; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok": true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}/api/v1`, seen, close: () => server.close() };
}

test("OpenAPI: a verb with a parameter named confirm is named by hcp init, by hcp validate (a warning) and by the server's refusal, with what to do; served without it, the agent's calls reach the API as the schema says", async () => {
  const env = isolatedEnv();
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ "tracker-api": { openapi: { bearerAuth: "tk-tracker-9" } } }));
  chmodSync(env["HCP_CREDENTIALS"]!, 0o600);
  const pack = join(tempDir(), "tracker");
  const init = await hcp(["init", "--from-openapi", fixture("openapi/tracker.yaml"), "--out", pack], { env });
  assert.equal(init.code, 0, init.stderr);
  assert.match(init.stderr, /verb "delete-issue" of pack "tracker-api" has an argument named confirm, .*--exclude tracker-api_delete-issue, or deny it in policy\.json/);
  const refused = await hcp(["serve", "--mcp", pack], { env, timeoutMs: 60_000 });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /has an argument named confirm, .*serve it without this verb \(--exclude tracker-api_delete-issue, or deny it in policy\.json\)/);
  // hcp validate, where a person checks a pack before serving it, says the same (a warning: run and exec serve it).
  const validated = await hcp(["validate", pack], { env });
  assert.equal(validated.code, 0, validated.stdout);
  assert.ok(validated.stdout.includes(`verbs: not_conforming: hcp serve --mcp does not serve this pack (named directly it refuses to start; in a folder of packs it leaves the pack out): ${refused.stderr.replace(/^Error: /, "").trimEnd()}\n`), validated.stdout);
  assert.match(validated.stdout, /0 errors, 1 warning\n$/);
  const policyFile = join(pack, "policy.json");
  const generated = readFileSync(policyFile, "utf8");
  writeFileSync(policyFile, JSON.stringify({ ...JSON.parse(generated), verbs: { ...JSON.parse(generated).verbs, "delete-issue": "deny" } }));
  const denied = await hcp(["validate", pack], { env });
  assert.doesNotMatch(denied.stdout, /serve --mcp does not serve/, "a denied verb is no tool: the server starts");
  writeFileSync(policyFile, generated);

  const api = await trackerApi();
  try {
    writeFileSync(policyFile, JSON.stringify({ ...JSON.parse(readFileSync(policyFile, "utf8")), openapi: { base_url: api.base } }));
    const { client } = await mcpClient([pack], { env, allowWrite: true, args: ["--exclude", "tracker-api_delete-issue"] });
    try {
      const { tools } = await client.listTools();
      const list = tools.find((t) => t.name === "tracker-api_list-issues")!;
      assert.equal(list.description, "List a project's issues, newest first. Read-only: it changes nothing.");
      const props = (list.inputSchema as { properties: Record<string, Record<string, unknown>> }).properties;
      assert.deepEqual(props["state"]!["enum"], ["open", "in_progress", "closed"]);
      assert.equal(props["project"]!["description"], "The project's key, such as WEB");
      const read = await client.callTool({ name: "tracker-api_list-issues", arguments: { project: "WEB", state: "open", label: ["ux", "p1"] } });
      assert.notEqual(read.isError, true, JSON.stringify(read.content));
      const wrong = await client.callTool({ name: "tracker-api_get-issue", arguments: { project: "web", number: 0 } });
      assert.equal(wrong.isError, true);
      assert.match((wrong.content as Text)[0]!.text, /argument "project": must match pattern .*argument "number": must be >= 1/);
      const created = await client.callTool({ name: "tracker-api_create-issue", arguments: { project: "WEB", body: { title: "Crash on start", priority: "high" } } });
      assert.notEqual(created.isError, true, JSON.stringify(created.content));
    } finally {
      await client.close();
    }
    assert.deepEqual(
      api.seen.map((s) => [s.method, s.url, s.auth, s.body]),
      [
        ["GET", "/api/v1/projects/WEB/issues?state=open&label=ux&label=p1", "Bearer tk-tracker-9", ""],
        ["POST", "/api/v1/projects/WEB/issues", "Bearer tk-tracker-9", '{"title":"Crash on start","priority":"high"}'],
      ],
      "the refused call never reached the API",
    );
  } finally {
    api.close();
  }
});

test("MCP: long verbs that differ only past 64 characters are two tools, each running its own verb", async () => {
  const ends = ["attachments", "reactions"];
  const verbs = Object.fromEntries(ends.map((end) => [`post.projects.project.issues.number.comments.${end}`, { description: `Adds ${end}.`, cli: ["probe", end], policy: "read" }]));
  const root = probePack("my-company-platform-api", verbs);
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 2);
    for (const [i, end] of ends.entries()) {
      const tool = tools[i]!;
      assert.ok(tool.name.length <= 64 && tool.name.startsWith("my-company-platform-api_post_projects_project_"), tool.name);
      const r = await client.callTool({ name: tool.name, arguments: {} });
      assert.deepEqual((r.structuredContent as { json: { argv: string[] } }).json.argv, [end]);
    }
    assert.notEqual(tools[0]!.name, tools[1]!.name);
  } finally {
    await client.close();
  }
});

test("MCP: a value starting with - where the template has no -- is refused saying what to give instead; nothing runs", async () => {
  const root = probePack("files", { show: { description: "Show a file.", cli: ["probe", "show", "{{target}}"], policy: "read" } });
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const r = await client.callTool({ name: "files_show", arguments: { target: "-rf" } });
    assert.equal(r.isError, true);
    assert.equal(
      (r.content as Text)[0]!.text,
      'Error: flag_injection: argument target: value "-rf" starts with "-", which the program would read as a flag, so hcp refuses it: give a value that does not start with "-" (a verb whose argv template has a literal "--" before {{target}} takes such values)',
    );
    assert.equal((r.structuredContent as { exit_code?: number }).exit_code, undefined, "nothing ran");
  } finally {
    await client.close();
  }
});

test("after the person edits policy.json, hcp validate warns where the generated HARNESS.md no longer says what it does", async () => {
  const env = isolatedEnv();
  const pack = join(tempDir(), "rgref");
  assert.equal((await hcp(["init", "--from-manifest", join(REPO, "examples/manifests/rgref.json"), "--out", pack], { env })).code, 0);
  const fresh = await hcp(["validate", pack], { env });
  assert.match(fresh.stdout, /0 errors, 0 warnings/, "a generated pack agrees with itself");
  const policyFile = join(pack, "policy.json");
  const policy = JSON.parse(readFileSync(policyFile, "utf8")) as { verbs: Record<string, unknown> };
  policy.verbs["item.create"] = { policy: "write", confirm: true };
  policy.verbs["item.get"] = "deny";
  writeFileSync(policyFile, JSON.stringify(policy));
  const r = await hcp(["validate", pack], { env });
  assert.equal(r.code, 0, "warnings: the pack still loads");
  assert.match(r.stdout, /HARNESS\.md: verbs\["item\.create"\]: policy: HARNESS\.md says verb "item\.create" is "write", and policy\.json makes it "write, needs a person's approval"/);
  assert.match(r.stdout, /HARNESS\.md: verbs\["item\.get"\]: policy: HARNESS\.md describes verb "item\.get", which policy\.json denies/);
  assert.match(r.stdout, /0 errors, 2 warnings/);
});

test("HARNESS.md of an API with several security schemes names each credential and how the person stores each", async () => {
  const env = isolatedEnv();
  const pack = join(tempDir(), "notes");
  const init = await hcp(["init", "--from-openapi", fixture("openapi/notes.yaml"), "--out", pack], { env });
  assert.equal(init.code, 0, init.stderr);
  const harness = readFileSync(join(pack, "HARNESS.md"), "utf8");
  for (const scheme of ["bearerAuth", "apiKeyQuery", "basicAuth"]) {
    assert.match(harness, new RegExp(`^hcp credentials set notes ${scheme} --scheme {3}# prompts for the value$`, "m"));
    assert.match(init.stderr, new RegExp(`hcp credentials set notes ${scheme} --scheme`), "init's next steps say the same");
  }
  assert.match(harness, /`\{"notes": \{"openapi": \{"bearerAuth": "\.\.\.", "apiKeyQuery": "\.\.\.", "basicAuth": "\.\.\."\}\}\}`/);
});
