// A credential of one character, or one that is a word hcp writes (`exit_code`, `code`), must not break hcp: masking
// rewrote the keys of hcp's own envelopes (`e***it_code`), and `hcp run` failed. hcp's field names are public and kept;
// everything that came from the program (its output, and the keys of the JSON it prints) is masked as strictly as ever.

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { execSession, hcp, mcpClient, rawHttp, serveHttp, tempDir } from "../transports/support.js";
import { trustPack } from "./helpers.js";

const SECRETS = { SHORT_TOKEN: "x", WORD_TOKEN: "exit_code", CODE_TOKEN: "code" };

/** What the program prints: each secret as a key and a value of its JSON, and in its text. */
const STDOUT = '{"***":"***","***":"***","***":"***","said":"one *** two *** three ***"}\n';
const STDERR = "err *** *** ***\n";

/** A pack whose program prints its three credentials as keys and values of a JSON object, then exits with its argument. */
function leakPack(): { dir: string; env: NodeJS.ProcessEnv } {
  const root = tempDir("hcp-short-secret-");
  const dir = join(root, "pack");
  mkdirSync(dir);
  const program = join(dir, "leak.mjs");
  writeFileSync(
    program,
    [
      "#!/usr/bin/env node",
      "const [a, b, c] = [process.env.SHORT_TOKEN, process.env.WORD_TOKEN, process.env.CODE_TOKEN];",
      "process.stdout.write(JSON.stringify({ [a]: a, [b]: b, [c]: c, said: `one ${a} two ${b} three ${c}` }) + '\\n');",
      "process.stderr.write(`err ${a} ${b} ${c}\\n`);",
      "process.exit(Number(process.argv[2]));",
      "",
    ].join("\n"),
  );
  chmodSync(program, 0o755);
  const surface = {
    id: "shorty",
    kind: "wrap",
    binding: { mode: "user", hub: "local-credential", family: "shortfam" },
    wrap: { bin: "./leak.mjs" },
    verbs: {
      leak: { description: "Print the tokens.", cli: ["leak", "0"], policy: "read" },
      fail: { description: "Print the tokens and exit 3.", cli: ["leak", "3"], policy: "read" },
      change: { description: "A write, to be planned.", cli: ["leak", "0"], policy: "write" },
    },
  };
  writeFileSync(join(dir, "surface.json"), JSON.stringify(surface));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "shorty", verbs: { leak: "read", fail: "read", change: "write" } }));
  writeFileSync(join(dir, "HARNESS.md"), "---\nname: shorty\ndescription: Prints its tokens.\n---\n\nPrints its tokens.\n");
  const credentials = join(root, "credentials.json");
  writeFileSync(credentials, JSON.stringify({ shortfam: { env: SECRETS } }));
  chmodSync(credentials, 0o600);
  const home = join(root, "home");
  const env = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_CONFIG_HOME: join(home, "config"), HCP_CREDENTIALS: credentials, HCP_AUDIT: join(root, "audit.jsonl") };
  return { dir, env };
}

const RESULT_KEYS = ["argv", "duration_ms", "exit_code", "json", "pack", "signal", "stderr", "stderr_bytes", "stderr_truncated", "stdout", "stdout_bytes", "stdout_truncated", "timed_out", "verb"];

/** A well-formed exec result of `verb` that exited with `code`, the program's output masked, keys of its JSON too. */
function assertResult(r: Record<string, unknown>, verb: string, code: number, where: string): void {
  assert.deepEqual(Object.keys(r).sort(), RESULT_KEYS, `${where}: hcp's field names are kept`);
  assert.equal(r["exit_code"], code, where);
  assert.equal(r["verb"], verb, where);
  assert.equal(r["stdout"], STDOUT, `${where}: the secrets, keys and values of the program's JSON, are masked`);
  assert.equal(r["stderr"], STDERR, where);
  assert.deepEqual(r["json"], { "***": "***", said: "one *** two *** three ***" }, where);
}

test("a credential of one character, or one that is a field name of hcp's (exit_code, code), breaks no envelope of run, run --json, exec, MCP nor a dry run, and is masked in the program's output, keys of its JSON included", async () => {
  const { dir, env } = leakPack();
  await trustPack(dir, env);

  const plain = await hcp(["run", dir, "leak"], { env });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, STDOUT);
  assert.equal(plain.stderr, STDERR);
  const failed = await hcp(["run", dir, "fail"], { env });
  assert.equal(failed.code, 3, `hcp run exits with the program's code: ${failed.stderr}`);
  assert.equal(failed.stderr, STDERR);

  const json = await hcp(["run", dir, "fail", "--json"], { env });
  assert.equal(json.code, 3, json.stderr);
  assertResult(JSON.parse(json.stdout) as Record<string, unknown>, "fail", 3, "run --json");

  const dry = await hcp(["run", dir, "change", "--dry-run", "--json"], { env });
  assert.equal(dry.code, 0, dry.stderr);
  const shown = JSON.parse(dry.stdout) as { plan: Record<string, unknown>; plan_id: string };
  assert.match(shown.plan_id, /^hcp1\./);
  assert.deepEqual(Object.keys(shown.plan).sort(), ["argv", "cwd", "env", "pack", "policy", "policy_sha256", "root", "stdin", "surface_sha256", "verb"]);
  assert.deepEqual(shown.plan["policy"], { policy: "write", confirm: false, timeout_ms: 60000, max_output_bytes: 1048576 }, "max_output_bytes is not ma***_output_bytes");
  const planEnv = shown.plan["env"] as Record<string, string>;
  for (const name of Object.keys(SECRETS)) assert.match(planEnv[name] ?? "", /^hmac-sha256:[0-9a-f]{64}$/, name);

  const exec = await execSession([dir], [JSON.stringify({ id: 1, pack: "shorty", verb: "fail", args: {} })], [], { env });
  assert.equal(exec.responses.length, 1, exec.stderr);
  assert.equal(exec.responses[0]!.ok, true);
  assertResult(exec.responses[0]!.result!, "fail", 3, "exec");

  const { client } = await mcpClient([dir], { env });
  try {
    const called = (await client.callTool({ name: "shorty_fail", arguments: {} })) as { structuredContent: Record<string, unknown>; content: { text: string }[]; isError?: boolean };
    assert.equal(called.isError, true);
    // Masked, the program's JSON has the key *** three times: json says less than stdout, which stays beside it.
    assertResult(called.structuredContent, "fail", 3, "MCP");
    assert.ok(called.content[0]!.text.startsWith(STDOUT), called.content[0]!.text);
    const planned = (await client.callTool({ name: "shorty_change", arguments: { dry_run: true } })) as unknown as { structuredContent: { plan: Record<string, unknown> } };
    assert.deepEqual(Object.keys(planned.structuredContent.plan["policy"] as object).sort(), ["confirm", "max_output_bytes", "policy", "timeout_ms"]);
    // An error the server makes is a JSON-RPC error the client reads: its `code` is not masked (a masked one is no
    // answer to the client, which waits until its timeout).
    const refused = await client.callTool({ name: "shorty_nothing", arguments: {} }, undefined, { timeout: 20_000 }).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(refused instanceof McpError, String(refused));
    assert.equal(refused.code, ErrorCode.InvalidParams, refused.message);
  } finally {
    await client.close();
  }
});

test("over HTTP, with a credential `code`, the errors hcp and the SDK answer stay JSON-RPC a client reads: their code is not masked", async () => {
  const { dir, env } = leakPack();
  const served = await serveHttp([dir], { env });
  try {
    const refusals = [
      await rawHttp(served.url, { body: '{"jsonrpc":"2.0","id":1,"method":"x' }),
      await rawHttp(served.url, { headers: { origin: "http://x.example" }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' }),
    ];
    for (const r of refusals) {
      assert.ok(r.status >= 400, `${r.status} ${r.body}`);
      const message = JSON.parse(r.body) as { jsonrpc: string; error: { code: unknown; message: string } };
      assert.equal(message.jsonrpc, "2.0", r.body);
      assert.equal(typeof message.error.code, "number", r.body);
      assert.equal(r.body.includes("x.example"), false, "the Origin, holding the secret x, is still masked");
    }
  } finally {
    await served.stop();
  }
});
