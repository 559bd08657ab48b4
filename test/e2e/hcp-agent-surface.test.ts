// What an agent meets in packs hcp generates from real CLIs, through the SDK's Client against the built hcp: argument
// names it can use, values it can pass, refusals that say what to do.

import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fixture } from "./helpers.js";
import { PROBE, isolatedEnv } from "./hardening.js";
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
