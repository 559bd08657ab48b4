// Both programs warn alike on stderr: `Warning: …` (errors: `Error: …`), never the program's name, and a warning
// is not chatter: --quiet and --json keep it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture } from "./helpers.js";
import { hcp, tempDir } from "../transports/support.js";

/** A folder of packs: one that loads, one that does not. */
function folder(): string {
  const dir = tempDir("hcp-warnings-");
  cpSync(fixture("packs/hcp-invalid"), join(dir, "hcp-invalid"), { recursive: true });
  mkdirSync(join(dir, "good"));
  const surface = { id: "good", kind: "wrap", binding: { mode: "local", hub: "none" }, wrap: { bin: "/bin/echo" }, verbs: { say: { description: "Say hi.", cli: ["echo", "hi"], policy: "read" } } };
  writeFileSync(join(dir, "good", "surface.json"), JSON.stringify(surface));
  writeFileSync(join(dir, "good", "policy.json"), JSON.stringify({ surface_id: "good", default: "deny", verbs: { say: "read" } }));
  return dir;
}

test("a pack left out of a folder is a `Warning:` line from list, exec, serve and mcp-config, under --quiet and --json too; exec and serve name the served packs' own warnings once", async () => {
  const packs = folder();
  const [list, exec, serve, config] = await Promise.all([
    hcp(["list", packs, "--json", "--quiet"]),
    hcp(["exec", packs, "--quiet"], { stdin: "" }),
    hcp(["serve", "--mcp", packs], { stdin: "" }),
    hcp(["mcp-config", packs, "--json", "--quiet"]),
  ]);
  for (const [name, r] of Object.entries({ list, exec, serve, config })) {
    assert.equal(r.code, 0, `${name}: ${r.stderr}`);
    // The long-running ones also name the served packs' own warnings (here: good has no HARNESS.md), once each.
    const served = name === "serve" || name === "exec";
    const own = r.stderr.split("\n").filter((l) => l.startsWith("Warning: pack good: "));
    assert.ok(served ? own.length > 0 && new Set(own).size === own.length : own.length === 0, `${name}: ${r.stderr}`);
    const lines = r.stderr.split("\n").filter((l) => l !== "" && !(served && l.startsWith("Warning: pack good: ")));
    assert.ok(lines.length > 0, `${name} names the pack it leaves out`);
    for (const l of lines) assert.match(l, /^Warning: (skipped|the server will leave out) \/.*\/hcp-invalid: /, name);
  }
});
