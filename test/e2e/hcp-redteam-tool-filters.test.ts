// Red team, the operator's tool filters: `--exclude` and `--tools` choose tools by name, and a tool name over 64
// characters is cut and ends in a hash (pack/fields.ts). A glob written for the verb's end (`*_delete`) must still
// leave out a long verb that ends so, or an operator who excluded every delete serves one to the agent.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { WITNESS_BIN } from "./approvals-support.js";
import { isolatedEnv } from "./openapi-support.js";
import { mcpClient, tempDir } from "../transports/support.js";

const LONG = "projects.project.issues.issue.comments.comment.reactions.reaction.delete";

test("--exclude '*_delete' leaves out a long verb ending in delete whose tool name is cut (it ends in a hash): not listed, and a call of its name runs nothing", async () => {
  const dir = tempDir("hcp-tool-filters-");
  const root = join(dir, "tracker");
  mkdirSync(root);
  const witness = join(dir, "witness.log");
  const verbs = { [LONG]: { description: "Delete a reaction.", cli: ["witness", "delete"], policy: "write" }, "projects.list": { description: "List.", cli: ["witness", "list"], policy: "read" } };
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: "tracker", kind: "wrap", binding: { mode: "local", hub: "none" }, wrap: { bin: WITNESS_BIN }, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "tracker", verbs: { [LONG]: "write", "projects.list": "read" }, env: ["WITNESS"] }));
  const env = { ...isolatedEnv(), WITNESS: witness };
  for (const filter of [["--exclude", "*_delete"], ["--exclude", "*delete*"], ["--tools", "*_list"]]) {
    const { client } = await mcpClient([root], { env, allowWrite: true, args: filter });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names, ["tracker_projects_list"], `${filter.join(" ")}: ${names.join(", ")}`);
      // The name the tool would have had: refused as unknown.
      const cut = "tracker_projects_project_issues_issue_comments_comment__1e8b2a74";
      const r = await client.callTool({ name: cut, arguments: {} }).catch((e: unknown) => ({ isError: true, error: String(e) }));
      assert.equal((r as { isError?: boolean }).isError, true, JSON.stringify(r));
    } finally {
      await client.close();
    }
  }
  assert.equal(existsSync(witness) ? readFileSync(witness, "utf8") : "", "", "nothing ran");
  // A glob on the name as listed still works.
  const { client } = await mcpClient([root], { env, allowWrite: true, args: ["--tools", "tracker_projects_project_*"] });
  try {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ["tracker_projects_project_issues_issue_comments_comment__1e8b2a74"]);
  } finally {
    await client.close();
  }
});
