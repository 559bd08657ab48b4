// The credential file read through a verb that prints files: every value it holds is masked, whichever pack it is for.

import assert from "node:assert/strict";
import { chmodSync, existsSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { execSession, hcp, httpClient, mcpClient, serveHttp, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { trustPack } from "./helpers.js";

const STORED = {
  bank: { env: { BANK_TOKEN: "bk-Zq9t0kenAa11" }, openapi: { bearerAuth: "br-Xw7bearerBb22" } },
  mail: { env: { MAIL_PASSWORD: "ml-Kk4 pass/wörd" } },
};
const FRAGMENTS = ["Zq9t0ken", "Xw7bearer", "Kk4 pass"];

/** A pack that reads no credentials, whose read verb prints the file it is given (as kubectl get -f quotes one). */
function filesPack(): string {
  const args = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false };
  return probePack("files", { show: { description: "Print a file.", cli: ["cat", "--", "{{path}}"], args, policy: "read" } }, { cliBin: "cat", wrap: { bin: "/bin/cat" } });
}

/** Each output holds the file with every value masked, and no fragment of any. */
function assertMasked(outputs: string[]): void {
  const all = outputs.join("\n");
  for (const fragment of FRAGMENTS) assert.equal(all.includes(fragment), false, `${fragment} in:\n${all}`);
  for (const [i, out] of outputs.entries()) assert.match(out, /BANK_TOKEN\\*"?:\\*"\*\*\*\\*"/, `output ${i}: ${out}`);
}

test("attack: a verb of a pack that reads no credentials prints the credential file: every family's values are masked on run, exec and MCP (stdio and HTTP), the file's mode whatever", async () => {
  const env = isolatedEnv();
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify(STORED), { mode: 0o600 });
  const root = filesPack();
  await trustPack(root, env);
  const path = env["HCP_CREDENTIALS"]!;
  const outputs: string[] = [];
  for (const extra of [[], ["--json"]]) {
    const r = await hcp(["run", root, "show", "--arg", `path=${path}`, ...extra], { env });
    assert.equal(r.code, 0, r.stderr);
    outputs.push(r.stdout);
  }
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "files", verb: "show", args: { path } })], [], { env });
  assert.equal(exec.responses[0]?.ok, true, exec.stdout);
  outputs.push(exec.stdout);
  const { client } = await mcpClient([root], { env });
  try {
    outputs.push(JSON.stringify(await client.callTool({ name: "files_show", arguments: { path } })));
  } finally {
    await client.close();
  }
  const served = await serveHttp([root], { env });
  try {
    const { client: overHttp } = await httpClient(served.url);
    outputs.push(JSON.stringify(await overHttp.callTool({ name: "files_show", arguments: { path } })));
    await overHttp.close();
  } finally {
    await served.stop();
  }
  // A file others may read is used for no call, but what it holds is no less secret.
  chmodSync(path, 0o644);
  const loose = await hcp(["run", root, "show", "--arg", `path=${path}`], { env });
  assert.equal(loose.code, 0, loose.stderr);
  outputs.push(loose.stdout);
  assertMasked(outputs);
});

/**
 * A running server of filesPack, its credential file holding STORED, and a copy of that file the agent can print (a
 * backup, an editor's): `steps` changes the file (at `path`) and prints files through the verb (`show`, the copy unless
 * told another).
 */
async function underRunningServer(steps: (s: { path: string; folder: string; show: (file?: string) => Promise<string> }) => Promise<void>): Promise<void> {
  const env = isolatedEnv();
  const path = env["HCP_CREDENTIALS"]!;
  writeFileSync(path, JSON.stringify(STORED), { mode: 0o600 });
  const folder = tempDir("hcp-credential-copy-");
  const copy = join(folder, "credentials.json.bak");
  writeFileSync(copy, JSON.stringify(STORED));
  const { client } = await mcpClient([filesPack()], { env });
  try {
    await steps({ path, folder, show: async (file = copy) => JSON.stringify(await client.callTool({ name: "files_show", arguments: { path: file } })) });
  } finally {
    await client.close();
  }
}

test("attack: while the person rewrites the credential file (not JSON for a moment, then empty), a running server's answers still mask every value it held: a copy of the file a verb prints shows none of them", async () => {
  const outputs: string[] = [];
  await underRunningServer(async ({ path, show }) => {
    outputs.push(await show());
    writeFileSync(path, '{"bank": {"env": {"BANK_TOKEN": "bk-Zq9', { mode: 0o600 });
    outputs.push(await show());
    writeFileSync(path, "", { mode: 0o600 });
    outputs.push(await show());
  });
  assertMasked(outputs);
});

test("attack: the person deletes the credential file, then writes it again with a rotated token, under a running server: every value it has held stays masked (the old token may still work), and the new one is masked", async () => {
  const rotated = { ...STORED, bank: { ...STORED.bank, env: { BANK_TOKEN: "bk-Rr5rotatedCc33" } } };
  const outputs: string[] = [];
  let last = "";
  await underRunningServer(async ({ path, folder, show }) => {
    // A file holding the new token beside the old.
    const both = join(folder, "both.txt");
    writeFileSync(both, `old ${STORED.bank.env.BANK_TOKEN} new ${rotated.bank.env.BANK_TOKEN}\n`);
    outputs.push(await show());
    unlinkSync(path);
    outputs.push(await show());
    writeFileSync(path, JSON.stringify(rotated), { mode: 0o600 });
    outputs.push(await show());
    last = await show(both);
  });
  assertMasked(outputs);
  assert.match(last, /old \*\*\* new \*\*\*/, last);
});

test("attack: a verb prints the server's --token-file (its path is on hcp's command line, /proc/<pid>/cmdline): the bearer token is masked in the result", async () => {
  const env = isolatedEnv();
  const token = "tk-Qp4bearerTOKENzz99";
  const tokenFile = join(tempDir("hcp-token-"), "token");
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const root = filesPack();
  const served = await serveHttp([root], { env, args: ["--token-file", tokenFile] });
  const outputs: string[] = [];
  try {
    const { client } = await httpClient(served.url, { token });
    try {
      outputs.push(JSON.stringify(await client.callTool({ name: "files_show", arguments: { path: tokenFile } })));
      outputs.push(JSON.stringify(await client.callTool({ name: "files_show", arguments: { path: `/proc/${served.child.pid}/cmdline` } })));
    } finally {
      await client.close();
    }
  } finally {
    await served.stop();
  }
  assert.ok(outputs[1]!.includes(tokenFile), `the command line names the token file: ${outputs[1]}`);
  assert.equal(outputs.join("\n").includes("Qp4bearer"), false, outputs.join("\n"));
  assert.match(outputs[0]!, /\*\*\*/, outputs[0]);
});

test("attack: a credential file that names a variable twice (an old token left above its rotation): both values are masked in every pack's output, and a pack reading that family is refused naming the key, its program never run", async () => {
  const env = isolatedEnv();
  const path = env["HCP_CREDENTIALS"]!;
  // JSON.parse keeps the last of a repeated key; the first is the person's old token, which may still work.
  writeFileSync(path, '{"bank": {"env": {"BANK_TOKEN": "bk-Zq9oldTokenCc33", "BANK_TOKEN": "bk-Zq9t0kenAa11"}}, "bank": {"openapi": {"bearerAuth": "br-Xw7bearerBb22"}}}', { mode: 0o600 });
  const files = filesPack();
  await trustPack(files, env);
  const printed = await hcp(["run", files, "show", "--arg", `path=${path}`], { env });
  assert.equal(printed.code, 0, printed.stderr);
  assert.equal(printed.stdout, '{"bank": {"env": {"BANK_TOKEN": "***", "BANK_TOKEN": "***"}}, "bank": {"openapi": {"bearerAuth": "***"}}}');
  const witness = join(tempDir("hcp-witness-"), "ran");
  const bank = probePack("bank", { show: { description: "Show.", cli: ["probe", "run", `pid:${witness}`, "env:BANK_TOKEN"], policy: "read" } }, { binding: { mode: "user", hub: "local-credential", family: "bank" } });
  await trustPack(bank, env);
  const refused = await hcp(["run", bank, "show"], { env });
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(refused.stderr, /credential file .* has the key "bank\.env\.BANK_TOKEN" twice; keep the one you use/);
  assert.equal(existsSync(witness), false, "the program never ran");
});
