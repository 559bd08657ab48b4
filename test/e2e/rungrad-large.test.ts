import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromManifest } from "../../src/agentmeta/project.js";
import { stableJSON } from "../../src/json/stable.js";
import { parseManifest } from "../../src/manifest/decode.js";
import { rungrad } from "./helpers.js";

const flag = (name: string, type = "bool") => ({ name, shorthand: "", usage: `Usage of --${name}`, default: type === "bool" ? "false" : "", type, required: false });

/** A valid manifest of `count` commands whose texts hold astral characters, HTML characters and U+2028. */
function largeManifest(count: number): string {
  const leaf = { examples: [], related: [], output_modes: ["json"], requires_auth: false, mutates: false, supports_dry_run: false, destructive: false, requires_confirmation: false, supports_meta: false, local_flags: [flag("force")] };
  const commands: unknown[] = [{ ...leaf, path: [], use: "big", short: "Big tool" }];
  for (let i = 1; i < count; i++) {
    const name = `cmd${i}`;
    commands.push({ ...leaf, path: [name], use: `${name} <name>`, short: `${"\u{1F600}".repeat(i % 50)} <${i}> & \u2028 done`, extensions: { "example.com/big": { n: i, w: 1.50 } } });
  }
  return JSON.stringify({ schema_version: "rungrad-manifest/1", spec_version: "rungrad-spec/1", tool_name: "big", tool_version: "v1", global_flags: [flag("json"), flag("no-prompt")], commands });
}

test("rungrad agentmeta prints a document of several megabytes whole and in order, with and without --json", async () => {
  const dir = await mkdtemp(join(tmpdir(), "rungrad-large-"));
  try {
    const text = largeManifest(6000);
    const file = join(dir, "manifest.json");
    await writeFile(file, text);
    const expected = stableJSON(fromManifest(parseManifest(text)));
    assert.ok(expected.length > 3 * (1 << 20), `${expected.length} characters`);
    for (const args of [["agentmeta", "--json", file], ["agentmeta", file], ["manifest", "fmt", file]]) {
      const r = await rungrad(args);
      assert.equal(r.stderr, "", args.join(" "));
      assert.equal(r.code, 0, args.join(" "));
      const want = args[0] === "manifest" ? stableJSON(parseManifest(text)) : expected;
      assert.ok(r.stdout === want, `${args.join(" ")}: ${r.stdout.length} characters, expected ${want.length}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
