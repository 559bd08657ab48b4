// A local-credential value reaches the child but never appears in any output of any transport.

import assert from "node:assert/strict";
import { test } from "node:test";
import { SECRET_PACK, credentialFile, execSession, hcp, mcpClient } from "../transports/support.js";
import { trustPack } from "./helpers.js";

const SECRET = "s3cr3t-VALUE-4242";

test("credentials are masked in run, run --json, exec and MCP output, and in errors", async () => {
  const env = { ...process.env, HCP_CREDENTIALS: credentialFile(SECRET) };
  await trustPack(SECRET_PACK, env);
  const outputs: string[] = [];
  for (const verb of ["show", "leak"]) {
    for (const extra of [[], ["--json"]]) {
      const r = await hcp(["run", SECRET_PACK, verb, ...extra], { env });
      outputs.push(r.stdout, r.stderr);
    }
  }
  const plain = await hcp(["run", SECRET_PACK, "show"], { env });
  assert.match(plain.stdout, /^\*\*\*\n/, "the child saw the value; the output shows ***");

  const exec = await execSession(
    [SECRET_PACK],
    ["show", "leak"].map((verb) => JSON.stringify({ id: verb, pack: "hcp-secret", verb, args: {} })),
    [],
    { env },
  );
  outputs.push(exec.stdout, exec.stderr);
  assert.equal(exec.responses.length, 2);

  const { client, stderr } = await mcpClient([SECRET_PACK], { env });
  try {
    for (const name of ["hcp-secret_show", "hcp-secret_leak"]) outputs.push(JSON.stringify(await client.callTool({ name, arguments: {} })));
    outputs.push(JSON.stringify(await client.readResource({ uri: "hcp://hcp-secret/HARNESS.md" })));
  } finally {
    await client.close();
  }
  outputs.push(stderr());

  // An unsafe credential file is refused without quoting it.
  const insecure = await hcp(["run", SECRET_PACK, "show", "--json"], { env: { ...process.env, HCP_CREDENTIALS: credentialFile(SECRET, 0o644) } });
  assert.equal(insecure.code, 3);
  assert.match(insecure.stderr, /"code": "credentials_insecure"/);
  outputs.push(insecure.stdout, insecure.stderr);

  const all = outputs.join("\n");
  assert.ok(all.includes("***"));
  assert.equal(all.includes(SECRET), false, "the credential value appears in no output");
});
