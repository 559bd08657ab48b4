// hcp's own environment read through a verb: a program gets only the variables §6.4 lets through, but it runs as the
// user and can read its parent's environment in /proc, as any verb that prints a file the agent names can
// (`/proc/self/stat` gives the program's parent, hcp). The secrets a person gave hcp there are masked.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { execSession, hcp, httpClient, mcpClient, serveHttp, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { trustPack } from "./helpers.js";

const SECRETS = {
  OPENAI_API_KEY: "sk-Zq9envKEYaa11bb",
  AWS_SECRET_ACCESS_KEY: "aws/Xw7+secretKk22",
  DATABASE_URL: "postgres://app:Db5pass-word33@db.internal/app",
};
const FRAGMENTS = ["Zq9envKEY", "Xw7+secret", "Db5pass"];
/**
 * Shown as they are: a name that says nothing secret, a secret-looking name whose value is too short to mask, one whose
 * value is the path of a file (it names where a secret is), and hcp's own credential file's path.
 */
function shown(env: NodeJS.ProcessEnv): Record<string, string> {
  const keyFile = join(tempDir("hcp-gcloud-"), "service-account.json");
  writeFileSync(keyFile, "{}");
  return { HCP_TEST_NOTE: "plain-Visible-value", COOKIE_SECURE: "false", GOOGLE_APPLICATION_CREDENTIALS: keyFile, HCP_CREDENTIALS: env["HCP_CREDENTIALS"]! };
}

/** A pack that reads no credentials, whose read verb prints its parent's environment (hcp's), as `cat` would. */
function environPack(): string {
  const verb = { description: "Print the parent's environment.", cli: ["sh", "-c", 'cat "/proc/$PPID/environ"'], policy: "read" };
  return probePack("envy", { show: verb }, { cliBin: "sh", wrap: { bin: "/bin/sh" } });
}

test("attack: a read verb prints hcp's own environment from /proc: every value of a variable named like a secret, and a URL's password, is masked on run, exec and MCP (stdio and HTTP); other values, short ones and paths of files show", async () => {
  const base = isolatedEnv();
  const SHOWN = shown(base);
  const env = { ...base, ...SECRETS, ...SHOWN };
  const root = environPack();
  await trustPack(root, env);
  const outputs: string[] = [];
  for (const extra of [[], ["--json"]]) {
    const r = await hcp(["run", root, "show", ...extra], { env });
    assert.equal(r.code, 0, r.stderr);
    outputs.push(r.stdout);
  }
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "envy", verb: "show", args: {} })], [], { env });
  assert.equal(exec.responses[0]?.ok, true, exec.stdout);
  outputs.push(exec.stdout);
  const { client } = await mcpClient([root], { env });
  try {
    outputs.push(JSON.stringify(await client.callTool({ name: "envy_show", arguments: {} })));
  } finally {
    await client.close();
  }
  const served = await serveHttp([root], { env });
  try {
    const { client: overHttp } = await httpClient(served.url);
    outputs.push(JSON.stringify(await overHttp.callTool({ name: "envy_show", arguments: {} })));
    await overHttp.close();
  } finally {
    await served.stop();
  }
  const all = outputs.join("\n");
  for (const fragment of FRAGMENTS) assert.equal(all.includes(fragment), false, `${fragment} in:\n${all}`);
  for (const [i, out] of outputs.entries()) {
    assert.match(out, /OPENAI_API_KEY=\*\*\*/, `output ${i}: ${out}`);
    assert.match(out, /DATABASE_URL=postgres:\/\/app:\*\*\*@db\.internal\/app/, `output ${i}: ${out}`);
    for (const [name, value] of Object.entries(SHOWN)) assert.ok(out.includes(`${name}=${value}`), `${name} not shown in output ${i}: ${out}`);
  }
});
