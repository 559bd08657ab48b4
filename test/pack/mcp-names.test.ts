import assert from "node:assert/strict";
import { test } from "node:test";
import { toolName } from "../../src/pack/fields.js";
import { manyTools } from "../../src/pack/mcp-names.js";

const keys = (n: number, start: string) => Array.from({ length: n }, (_, i) => `${start}${i}`);

test("a pack of more than 128 tools is noted, with a --tools glob that serves exactly its largest group of verbs", () => {
  assert.deepEqual(manyTools("gh", keys(128, "repos-get-")), [], "128 tools: no note");
  for (const [sep, glob] of [
    ["-", "gh_repos-*"],
    [".", "gh_repos_*"],
  ] as const) {
    const verbs = [...keys(100, `repos${sep}get${sep}`), ...keys(40, `issues${sep}list${sep}`), `repository${sep}x`, "repos"];
    const [note] = manyTools("gh", verbs);
    assert.equal(note, `142 MCP tools are more than many clients take at once (128 is a common limit): serve a part of them with hcp serve --mcp's --tools, --exclude or --read-only (--tools '${glob}' serves its 100 repos verbs)`);
    // The glob (letters, _ and - before its one *) matches those 100 tools and no other.
    const matches = new RegExp(`^${glob.replace("*", ".*")}$`);
    assert.equal(verbs.filter((v) => matches.test(toolName("gh", v))).length, 100);
  }
});
