// The JSON Schemas of docs/schemas/ hold for what the built programs really print: every --json output of hcp and
// rungrad, hcp exec's response lines and MCP structuredContent, each validated with Ajv against its schema.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import type Ajv2020Module from "ajv/dist/2020.js";
import type addFormatsModule from "ajv-formats";
import { fixture, REPO, rungrad, type Run } from "./helpers.js";
import { execSession, hcp, mcpClient, PROBE_PACK, tempDir } from "../transports/support.js";
import { openapiPack } from "./openapi-support.js";
import { bank, planIdOf } from "./approvals-support.js";
import { OUTPUT_SCHEMAS } from "../../src/cli/output-schemas.js";
import { TOOL_OUTPUT } from "../../src/transports/output-schemas.js";

const require = createRequire(import.meta.url);
const Ajv2020 = (require("ajv/dist/2020.js") as typeof Ajv2020Module).default;
const addFormats = require("ajv-formats") as typeof addFormatsModule.default;

/** An hcp environment of its own: state, config, credentials and audit log in a fresh folder. */
function isolated(): NodeJS.ProcessEnv {
  const home = tempDir("hcp-schemas-");
  mkdirSync(join(home, "config"));
  return { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_CONFIG_HOME: join(home, "config"), HCP_CREDENTIALS: join(home, "config", "credentials.json"), HCP_AUDIT: join(home, "audit.jsonl") };
}

const stdoutOf = (r: Run): unknown => {
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
};

/** Real outputs of the built programs, by schema name. */
async function samples(): Promise<Record<string, unknown[]>> {
  const env = isolated();
  const h = (args: string[], stdin?: string) => hcp(args, { env, ...(stdin === undefined ? {} : { stdin }) });
  const out = tempDir("hcp-schemas-out-");
  const mock = openapiPack({ doc: "notes.yaml", verbs: { "notes.list": { description: "List notes." } }, binding: { mode: "mock", hub: "none" }, policy: { openapi: { base_url: "http://127.0.0.1:9/v1" } } });
  const transfer = ["run", PROBE_PACK, "transfer", "--arg", "amount=3", "--arg", "payee=eve", "--allow-write", "--json"];

  const dry = await h([...transfer, "--dry-run"]);
  const set = await h(["credentials", "set", "bank", "BANK_TOKEN", "--json"], "s3cret\n");
  const manifest = await hcp(["__rungrad_manifest"]);
  const exec = await execSession(
    [PROBE_PACK],
    [
      JSON.stringify({ id: 1, pack: "hcp-probe", verb: "echo", args: { message: "hi" } }),
      JSON.stringify({ id: "b", pack: "hcp-probe", verb: "transfer", args: { amount: "1", payee: "x" }, dry_run: true }),
      JSON.stringify({ id: 3, pack: "hcp-probe", verb: "nope", args: {} }),
      "not json",
    ],
    ["--allow-write"],
    { env },
  );
  const { client } = await mcpClient([PROBE_PACK], { env });
  let structured: unknown[];
  try {
    const calls = await Promise.all([
      client.callTool({ name: "hcp-probe_echo", arguments: { message: "hi" } }),
      client.callTool({ name: "hcp-probe_write", arguments: {} }),
      client.callTool({ name: "hcp-probe_transfer", arguments: { amount: "1", payee: "x", dry_run: true } }),
    ]);
    structured = calls.map((c) => c.structuredContent);
  } finally {
    await client.close();
  }
  const { client: api } = await mcpClient([mock], { env });
  try {
    structured.push((await api.callTool({ name: "notes_notes_list", arguments: {} })).structuredContent);
  } finally {
    await api.close();
  }

  // A person's answer at a terminal: the JSON is the last thing on the screen.
  const b = bank();
  const pay = ["run", b.root, "pay", "--arg", "amount=1", "--allow-write", "--dry-run", "--json"];
  const answers: { approved: boolean }[] = [];
  for (const answer of ["n", "y"]) {
    const screen = (await b.onTerminal(["approve", planIdOf(await b.hcp(pay)), "--json"], "[y/N]", answer)).stdout.replaceAll("\r\n", "\n");
    answers.push(JSON.parse(/\{\n  "plan_id"[\s\S]*\}\n?$/.exec(screen)?.[0] ?? screen) as { approved: boolean });
  }
  assert.deepEqual(answers.map((a) => a.approved), [false, true]);

  // hcp trust: a person's n and y at a terminal, the list (one pack matching, then changed), a revoke.
  const trusts: unknown[] = [stdoutOf(await b.hcp(["trust", "--list", "--json"]))];
  for (const answer of ["n", "y"]) {
    const screen = (await b.onTerminal(["trust", b.root, "--json"], "[y/N]", answer)).stdout.replaceAll("\r\n", "\n");
    trusts.push(JSON.parse(/\{\n  "root"[\s\S]*\}\n?$/.exec(screen)?.[0] ?? screen));
  }
  assert.deepEqual(trusts.slice(1).map((t) => (t as { trusted: boolean }).trusted), [false, true]);
  trusts.push(stdoutOf(await b.hcp(["trust", "--list", "--json"])));
  writeFileSync(join(b.root, "HARNESS.md"), "---\nname: bank\ndescription: Changed.\n---\n\nChanged.\n");
  const changed = stdoutOf(await b.hcp(["trust", "--list", "--json"])) as { packs: { matches: boolean; why?: string }[] };
  assert.deepEqual([changed.packs.length, changed.packs[0]!.matches, typeof changed.packs[0]!.why], [1, false, "string"]);
  trusts.push(changed, stdoutOf(await b.hcp(["trust", "--revoke", b.root, "--json"])));

  const skillOut = tempDir("rungrad-schemas-skill-");
  const newDir = tempDir("rungrad-schemas-new-");
  return {
    error: [JSON.parse((await h(["run", PROBE_PACK, "nope", "--json"])).stderr), JSON.parse((await rungrad(["manifest", "validate", "/nonexistent.json", "--json"])).stderr)],
    "hcp-run": [stdoutOf(await h(["run", PROBE_PACK, "echo", "--arg", "message=hi", "--json"])), stdoutOf(dry), stdoutOf(await h(["run", mock, "notes.list", "--json"]))],
    "hcp-exec-response": exec.responses,
    "mcp-structured-content": structured,
    "hcp-list": [stdoutOf(await h(["list", PROBE_PACK, "--json"])), stdoutOf(await h(["list", fixture("packs"), "--json"]))],
    "hcp-describe": [stdoutOf(await h(["describe", PROBE_PACK, "--json"])), stdoutOf(await h(["describe", mock, "--json"]))],
    "hcp-validate": [stdoutOf(await h(["validate", PROBE_PACK, "--json"])), JSON.parse((await h(["validate", fixture("packs/hcp-invalid"), "--json"])).stdout)],
    "hcp-meta": [stdoutOf(await h(["meta", PROBE_PACK])), stdoutOf(await h(["meta", mock]))],
    "hcp-skill": [stdoutOf(await h(["skill", PROBE_PACK, "--json"]))],
    "hcp-init": [stdoutOf(await h(["init", "--from-manifest", join(REPO, "examples/manifests/rgref.json"), "--out", join(out, "rgref"), "--json"]))],
    "hcp-mcp-config": [stdoutOf(await h(["mcp-config", PROBE_PACK, "--json"])), stdoutOf(await h(["mcp-config", "--url", "https://mcp.example.com/mcp", "--token-env", "HCP_TOKEN", "--json"]))],
    "hcp-trust": trusts,
    "hcp-approve": [stdoutOf(await h(["approve", "--list", "--json"])), ...answers],
    "hcp-audit": [stdoutOf(await h(["audit", "--json"]))],
    "hcp-credentials": [
      stdoutOf(set),
      stdoutOf(await h(["credentials", "get", "bank", "BANK_TOKEN", "--json"])),
      stdoutOf(await h(["credentials", "get", "bank", "BANK_TOKEN", "--reveal", "--json"])),
      stdoutOf(await h(["credentials", "delete", "bank", "BANK_TOKEN", "--dry-run", "--json"])),
      stdoutOf(await h(["credentials", "delete", "bank", "BANK_TOKEN", "--json"])),
    ],
    "rungrad-manifest-validate": [stdoutOf(await rungrad(["manifest", "validate", "-", "--json"], { stdin: manifest.stdout }))],
    "rungrad-manifest": [stdoutOf(manifest), stdoutOf(await rungrad(["manifest", "fmt", join(REPO, "examples/manifests/rgref.json")]))],
    "rungrad-agentmeta": [stdoutOf(await rungrad(["agentmeta", join(REPO, "examples/manifests/rgref.json")]))],
    "rungrad-skill": [stdoutOf(await rungrad(["skill", join(REPO, "examples/manifests/rgref.json"), "--out", skillOut, "--dry-run", "--json"]))],
    "rungrad-new": [stdoutOf(await rungrad(["new", "democtl", "--dir", newDir, "--dry-run", "--json"])), stdoutOf(await rungrad(["new", "democtl", "--dir", newDir, "--json"]))],
    "rungrad-score": [stdoutOf(await rungrad(["score", join(REPO, "examples/rgref/rgref"), "--read", "item list", "--json"]))],
  };
}

test("every --json output, exec response line and MCP structuredContent validates against its schema in docs/schemas", async () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const got = await samples();
  assert.deepEqual(Object.keys(got).sort(), OUTPUT_SCHEMAS.map((s) => s.name).sort(), "each schema is checked against real output");
  for (const { name } of OUTPUT_SCHEMAS) {
    const file = JSON.parse(readFileSync(join(REPO, "docs/schemas", `${name}.json`), "utf8")) as Record<string, unknown>;
    const validate = ajv.compile(file);
    for (const [i, value] of got[name]!.entries()) {
      assert.ok(validate(value), `${name} #${i}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
    }
  }
});

test("the MCP tools' outputSchema is the documented one: tools/list serves the schema of mcp-structured-content's program part, without its plan for a tool that takes no dry_run", async () => {
  const doc = JSON.parse(readFileSync(join(REPO, "docs/schemas/mcp-structured-content.json"), "utf8")) as { anyOf: { anyOf: { title: string }[] }[] };
  const documented = doc.anyOf[0]!;
  assert.deepEqual(documented, JSON.parse(JSON.stringify(TOOL_OUTPUT)));
  const { client } = await mcpClient([PROBE_PACK], { env: isolated() });
  try {
    const { tools } = await client.listTools();
    const previewable = tools.filter((t) => Object.hasOwn(t.inputSchema.properties ?? {}, "dry_run"));
    assert.ok(previewable.length > 0 && previewable.length < tools.length, "the probe has tools of both kinds");
    for (const t of tools) {
      const parts = previewable.includes(t) ? documented.anyOf : documented.anyOf.filter((p) => p.title !== "dry run");
      assert.deepEqual(t.outputSchema, { type: "object", anyOf: parts }, t.name);
    }
  } finally {
    await client.close();
  }
});
