// Red team: MCP messages are masked by their layout (src/transports/mcp-mask.ts): the field names hcp and MCP define
// are kept, every value is masked. A progress notification carries the last line of the program's stderr: the agent
// has the program write the credential there (raw and JSON-escaped), with credentials that are one character or a
// field name of the notification itself (`message`, `progress`), and reads the notifications.

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { mcpClient, tempDir } from "../transports/support.js";

const LONG = "tok-5be2c0a91f7d4e36";
const SECRETS = { SHORT_TOKEN: "x", FIELD_TOKEN: "message", OTHER_TOKEN: "progress", LONG_TOKEN: LONG };

/**
 * A pack whose program writes every credential to stderr, raw and JSON-escaped, then waits (so progress is sent) until
 * the file `go` exists.
 */
function stderrPack(): { dir: string; env: NodeJS.ProcessEnv; go: string } {
  const root = tempDir("hcp-notify-secret-");
  const dir = join(root, "pack");
  const go = join(root, "go");
  mkdirSync(dir);
  const program = join(dir, "leak.mjs");
  writeFileSync(
    program,
    [
      "#!/usr/bin/env node",
      "import { existsSync } from 'node:fs';",
      "const e = process.env;",
      "const escaped = [...e.LONG_TOKEN].map((c) => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')).join('');",
      "process.stderr.write(`step ${e.SHORT_TOKEN} ${e.FIELD_TOKEN} ${e.OTHER_TOKEN} ${e.LONG_TOKEN} ${escaped}\\n`);",
      `const wait = () => (existsSync(${JSON.stringify(go)}) ? process.stdout.write('done\\n') : setTimeout(wait, 20));`,
      "wait();",
      "",
    ].join("\n"),
  );
  chmodSync(program, 0o755);
  const surface = {
    id: "noisy",
    kind: "wrap",
    binding: { mode: "user", hub: "local-credential", family: "noisyfam" },
    wrap: { bin: program },
    verbs: { work: { description: "Work slowly.", cli: ["work"], policy: "read" } },
  };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "noisy", verbs: { work: "read" } }));
  const credentials = join(root, "credentials.json");
  writeFileSync(credentials, JSON.stringify({ noisyfam: { env: SECRETS } }));
  chmodSync(credentials, 0o600);
  const home = join(root, "home");
  const env = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_CONFIG_HOME: join(home, "config"), HCP_CREDENTIALS: credentials, HCP_AUDIT: join(root, "audit.jsonl") };
  return { dir, env, go };
}

/** Whether a progress notification carries the program's last stderr line. */
const hasStderr = (p: { message?: string }) => (p.message ?? "").includes("; stderr: ");

test("MCP progress notifications carry the program's stderr masked (raw and JSON-escaped), and keep their fields when a credential is one character or one of their field names", async () => {
  const { dir, env, go } = stderrPack();
  const { client } = await mcpClient([dir], { env });
  try {
    const seen: { progress: number; message?: string }[] = [];
    // The program runs until a notification has carried its stderr line: however slow the machine, never a fixed time.
    const onprogress = (p: { progress: number; message?: string }) => {
      seen.push(p);
      if (hasStderr(p)) writeFileSync(go, "");
    };
    const r = await client.callTool({ name: "noisy_work", arguments: {} }, undefined, { onprogress });
    assert.equal(r.isError, undefined, JSON.stringify(r));
    // The SDK client checked each notification against MCP's schema: `progress` and `message` were kept as fields.
    const first = seen.findIndex(hasStderr);
    assert.ok(first >= 0, "a progress notification carried the stderr line");
    for (const [i, p] of seen.entries()) {
      assert.equal(typeof p.progress, "number");
      const message = p.message ?? "";
      // Sent before the program's stderr reached hcp: nothing written yet. From then on, each shows the line masked.
      if (i < first) assert.match(message, /; 0 bytes of output$/, message);
      else assert.match(message, /stderr: step \*\*\* \*\*\* \*\*\* \*\*\* \*\*\*$/, message);
      for (const s of [LONG, "\\u0074", "x", "message", "progress"]) assert.ok(!message.includes(s), `${JSON.stringify(s)} in ${message}`);
    }
  } finally {
    await client.close();
  }
});
