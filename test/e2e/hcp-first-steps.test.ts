// What a new user of hcp runs into in the first hour, end to end: the documented examples load as written,
// and each mistake (a typo, a missing folder or credential) is named with what to do about it.

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, fixture } from "./helpers.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { PROBE_PACK, hcp, mcpClient, tempDir } from "../transports/support.js";

/** The first ```json block after `heading` in a doc page. */
function docJson(page: string, heading: string): unknown {
  const text = readFileSync(join(REPO, page), "utf8");
  const block = /```json\n([\s\S]*?)```/.exec(text.slice(text.indexOf(heading)));
  assert.ok(block, `${page} has a JSON example under ${heading}`);
  return JSON.parse(block[1]!);
}

test("the policy.json example of docs/pack-format.md validates against the ledger surface it describes", async () => {
  const root = tempDir();
  copyFileSync(fixture("examples/hcp/ledger/surface.json"), join(root, "surface.json"));
  writeFileSync(join(root, "policy.json"), JSON.stringify(docJson("docs/pack-format.md", "## policy.json")));
  const r = await hcp(["validate", root], { env: isolatedEnv() });
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /0 errors/);
});

test("policy.json cwd: the child runs in that folder (relative to the pack), the plan shows it; a missing folder is named", async () => {
  const env = isolatedEnv();
  const root = probePack("cwdpack", { mark: { description: "Marks its working folder.", cli: ["probe", "run", "pid:ran"] } }, {}, { default: "read", cwd: "work" });
  const work = join(root, "work");
  const missing = await hcp(["run", root, "mark"], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`working folder "${work}" is not a folder \\(policy\\.json cwd\\)`));
  assert.doesNotMatch(missing.stderr, /not found on PATH/);
  mkdirSync(work);
  const dry = await hcp(["run", root, "mark", "--dry-run"], { env });
  assert.match(dry.stdout, new RegExp(`cwd: +${work}\\n`));
  assert.equal(existsSync(join(work, "ran")), false, "a dry run runs nothing");
  const ran = await hcp(["run", root, "mark"], { env });
  assert.equal(ran.code, 0, ran.stderr);
  assert.ok(existsSync(join(work, "ran")), "the child ran in policy.json's cwd");
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "cwdpack", default: "read", cwd: 5 }));
  const bad = await hcp(["validate", root], { env });
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /policy\.json: cwd: policy: cwd must be a folder path/);
});

test("a dry run says how to confirm in the caller's terms: --confirm for hcp run, the confirm argument for an MCP tool", async () => {
  const env = isolatedEnv();
  const cli = await hcp(["run", PROBE_PACK, "transfer", "--arg", "amount=3", "--arg", "payee=eve", "--dry-run"], { env });
  const cliId = /plan_id: (\S+)/.exec(cli.stdout)![1]!;
  assert.match(cli.stdout, new RegExp(`then run it again with --confirm ${cliId} \\(once`));
  const { client } = await mcpClient([PROBE_PACK], { env, allowWrite: true });
  try {
    const r = (await client.callTool({ name: "hcp-probe_transfer", arguments: { amount: "3", payee: "eve", dry_run: true } })) as { content: { text: string }[] };
    const text = r.content[0]!.text;
    const id = /plan_id: (\S+)/.exec(text)![1]!;
    assert.ok(text.includes(`then call the tool again with the same arguments and "confirm": "${id}" (once`), text);
    assert.doesNotMatch(text, /--confirm/);
  } finally {
    await client.close();
  }
});

test("a missing credential names the hcp credentials set command that stores it; run as written, the verb then runs", async () => {
  const env = isolatedEnv();
  const root = probePack(
    "tokpack",
    { token: { description: "Prints its token.", cli: ["probe", "run", "env:TOK_TOKEN"] } },
    { binding: { hub: "local-credential", family: "tok" } },
    { default: "read", credentials: ["TOK_TOKEN"] },
  );
  const missing = await hcp(["run", root, "token"], { env });
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /does not exist; store it with hcp credentials set tok TOK_TOKEN \(it asks for the value\), or write the entry yourself \(the file mode 0600\) as \{"tok": \{"env": \{"TOK_TOKEN": "value"\}\}\}/);
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ other: { env: { X: "y" } } }), { mode: 0o600 });
  const absent = await hcp(["run", root, "token"], { env });
  assert.equal(absent.code, 3);
  const command = /store it with hcp (credentials set \S+ \S+)/.exec(absent.stderr)![1]!.split(" ");
  const set = await hcp(command, { env, stdin: "tok-secret-value\n" });
  assert.equal(set.code, 0, set.stderr);
  const ran = await hcp(["run", root, "token"], { env });
  assert.deepEqual([ran.code, ran.stdout], [0, "***\n"]);
  writeFileSync(env["HCP_CREDENTIALS"]!, '{"tok": {"env": {"TOK_TOKEN": "tok-secret-value"}},\n}');
  const broken = await hcp(["run", root, "token"], { env });
  assert.equal(broken.code, 3);
  assert.match(broken.stderr, /is not valid JSON \(at line 2, column 1\)\n$/);
  assert.doesNotMatch(broken.stderr, /tok-secret-value/);
});
