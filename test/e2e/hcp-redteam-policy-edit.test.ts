// A person who denies a verb while a server serves its pack: `hcp serve` and `hcp exec` load their packs once, and the
// old policy.json went on serving the verb it now denies (the agent's call ran). A call of a pack whose surface.json or
// policy.json changed since the server loaded it is refused until the server starts again; the same text written
// again (an editor's save, hcp init --keep-policy) changes nothing. Spawns the built hcp; the probe writes a witness.

import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { isolatedEnv, probePack } from "./hardening.js";
import { mcpClient, tempDir } from "../transports/support.js";

test("attack: a verb a person denies while the server runs is not run by the server that loaded the old policy.json: its calls are refused (pack_changed) until the server starts again; policy.json written again as it was changes nothing", async () => {
  const witness = join(tempDir("hcp-policy-edit-"), "ran");
  const root = probePack("edited", { list: { description: "List.", cli: ["probe", "run", `pid:${witness}`, "print:listed"], policy: "read" } }, {}, { verbs: { list: "read" } });
  const policyFile = join(root, "policy.json");
  const { client } = await mcpClient([root], { env: isolatedEnv() });
  try {
    const first = await client.callTool({ name: "edited_list", arguments: {} });
    assert.notEqual(first.isError, true, JSON.stringify(first.content));
    assert.ok(existsSync(witness));
    rmSync(witness);
    // The same text written again (a new file, a new inode): nothing changed, the verb is served.
    const text = readFileSync(policyFile, "utf8");
    rmSync(policyFile);
    writeFileSync(policyFile, text);
    const same = await client.callTool({ name: "edited_list", arguments: {} });
    assert.notEqual(same.isError, true, JSON.stringify(same.content));
    rmSync(witness);
    // The person denies it.
    writeFileSync(policyFile, JSON.stringify({ surface_id: "edited", verbs: { list: "deny" } }));
    const denied = await client.callTool({ name: "edited_list", arguments: {} });
    assert.equal(denied.isError, true);
    assert.equal((denied.structuredContent as { error: { code: string } }).error.code, "pack_changed");
    assert.match(JSON.stringify(denied.content), /changed since this server loaded it \(policy\.json\): start the server again/);
    const dry = await client.callTool({ name: "edited_list", arguments: { dry_run: true } });
    assert.equal(dry.isError, true, "not even a plan of the old pack");
    // Or removes policy.json, or changes surface.json: refused alike.
    rmSync(policyFile);
    assert.equal((await client.callTool({ name: "edited_list", arguments: {} })).isError, true);
    assert.equal(existsSync(witness), false, "the denied verb never ran");
  } finally {
    await client.close();
  }
  // A server started now serves the pack as its files say (no policy.json: a read hint runs).
  const { client: fresh } = await mcpClient([root], { env: isolatedEnv() });
  try {
    assert.notEqual((await fresh.callTool({ name: "edited_list", arguments: {} })).isError, true);
  } finally {
    await fresh.close();
  }
});
