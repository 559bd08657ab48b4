// A pack of a folder of packs whose verbs cannot be MCP tools (an argument named dry_run, a tool name another pack
// has) is left out of hcp serve --mcp as a pack that does not load is: the other packs' tools are served. --strict
// refuses to start; a pack named directly is still refused; hcp exec, with no tool names, serves it.

import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROBE, isolatedEnv } from "./hardening.js";
import { execSession, hcp, httpClient, mcpClient, serveHttp, tempDir } from "../transports/support.js";

type Text = { type: string; text: string }[];

/** Writes a wrap pack running the probe into `dir/name` (its id is `name`); `verbs` with their policy. */
function writePack(dir: string, name: string, verbs: Record<string, { description: string; cli: string[]; args?: object; policy: "read" | "write" }>): string {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id: name, kind: "wrap", cliBin: "probe", wrap: { bin: PROBE }, verbs }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: name, verbs: Object.fromEntries(Object.entries(verbs).map(([k, v]) => [k, v.policy])) }));
  writeFileSync(join(root, "HARNESS.md"), `---\nname: ${name}\ndescription: Test pack.\n---\n\nTest pack.\n`);
  return root;
}

/** A folder of packs: `good` (a read verb that prints hi) and `bad`, whose write verb `put` has an argument named dry_run. */
function goodAndBad(): { dir: string; bad: string } {
  const dir = tempDir("hcp-folder-skip-");
  writePack(dir, "good", { hello: { description: "Say hi.", cli: ["probe", "run", "print:hi"], policy: "read" } });
  const bad = writePack(dir, "bad", {
    peek: { description: "Peek.", cli: ["probe", "run", "print:peeked"], policy: "read" },
    put: { description: "Put.", cli: ["probe", "show", "{{dry_run}}"], args: { type: "object", properties: { dry_run: { type: "string" } } }, policy: "write" },
  });
  return { dir, bad };
}

const BAD_WHY = 'verb "put" of pack "bad" has an argument named dry_run';

test("MCP over stdio: a folder's pack with an argument named dry_run is skipped, named on stderr and in the client's log; the others' tools work", async () => {
  const { dir } = goodAndBad();
  let firstLog!: (data: string) => void;
  const logged = new Promise<string>((resolve) => (firstLog = resolve));
  const { client, stderr } = await mcpClient([dir], { env: isolatedEnv(), onLog: (data) => firstLog(data) });
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["good_hello"]);
    const r = await client.callTool({ name: "good_hello", arguments: {} });
    assert.equal(r.isError, undefined);
    assert.equal((r.content as Text)[0]!.text, "hi\n");
    await assert.rejects(client.callTool({ name: "bad_peek", arguments: {} }), /unknown tool "bad_peek"/, "no tool of the skipped pack is served");
    assert.match(await logged, new RegExp(`skipped .*/bad: ${BAD_WHY}`));
    assert.match(stderr(), new RegExp(`^Warning: skipped .*/bad: ${BAD_WHY}, which every MCP tool that writes`, "m"));
  } finally {
    await client.close();
  }
});

test("MCP over HTTP: the same pack is skipped and named on stderr; the others' tools are served", async () => {
  const { dir } = goodAndBad();
  const served = await serveHttp([dir], { env: isolatedEnv() });
  try {
    const { client } = await httpClient(served.url);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["good_hello"]);
      const r = await client.callTool({ name: "good_hello", arguments: {} });
      assert.equal((r.content as Text)[0]!.text, "hi\n");
    } finally {
      await client.close();
    }
    assert.match(served.stderr(), new RegExp(`^Warning: skipped .*/bad: ${BAD_WHY}`, "m"));
  } finally {
    await served.stop();
  }
});

test("--strict refuses to start (exit 1, as for an invalid pack); named directly, the pack is refused as before; mcp-config says the same", async () => {
  const { dir, bad } = goodAndBad();
  const env = isolatedEnv();
  const [strict, direct, config, configStrict] = await Promise.all([
    hcp(["serve", "--mcp", dir, "--strict"], { env }),
    hcp(["serve", "--mcp", bad], { env }),
    hcp(["mcp-config", dir], { env }),
    hcp(["mcp-config", dir, "--strict"], { env }),
  ]);
  assert.equal(strict.code, 1, strict.stderr);
  assert.match(strict.stderr, new RegExp(`^Error: ${BAD_WHY}`, "m"));
  assert.equal(direct.code, 1, direct.stderr);
  assert.match(direct.stderr, new RegExp(`^Error: ${BAD_WHY}`, "m"));
  assert.doesNotMatch(direct.stderr, /skipped/);
  assert.equal(config.code, 0, config.stderr);
  assert.match(config.stderr, new RegExp(`^Warning: the server will leave out .*/bad: ${BAD_WHY}`, "m"));
  assert.equal(configStrict.code, 1, configStrict.stderr);
  for (const r of [strict, direct, config, configStrict]) assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
});

test("--exclude of the verb that cannot be a tool serves the rest of that pack, with no warning", async () => {
  const { dir } = goodAndBad();
  const { client, stderr } = await mcpClient([dir], { env: isolatedEnv(), args: ["--exclude", "bad_put"] });
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["bad_peek", "good_hello"]);
    const r = await client.callTool({ name: "bad_peek", arguments: {} });
    assert.equal((r.content as Text)[0]!.text, "peeked\n");
  } finally {
    await client.close();
  }
  assert.doesNotMatch(stderr(), /skipped/);
});

test("hcp exec and hcp list have no tool names: they serve and list that pack as before; hcp validate warns of it", async () => {
  const { dir } = goodAndBad();
  const env = isolatedEnv();
  const [exec, list, validate] = await Promise.all([
    execSession([dir], [JSON.stringify({ id: 1, pack: "bad", verb: "peek", args: {} })], [], { env }),
    hcp(["list", dir], { env }),
    hcp(["validate", dir], { env }),
  ]);
  assert.equal(exec.code, 0, exec.stderr);
  assert.deepEqual([exec.responses[0]?.ok, exec.responses[0]?.result?.["stdout"]], [true, "peeked\n"]);
  assert.doesNotMatch(exec.stderr, /skipped/);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /\bbad\b/);
  assert.doesNotMatch(list.stderr, /skipped/);
  assert.equal(validate.code, 0, validate.stdout);
  assert.match(validate.stdout, new RegExp(`warning: .*verbs: not_conforming: hcp serve --mcp does not serve this pack \\(named directly it refuses to start; in a folder of packs it leaves the pack out\\): ${BAD_WHY}`));
});

test("two packs of a folder with one tool name: the first loaded (by folder name) keeps it, the later is skipped naming both; both named directly, the server refuses", async () => {
  const dir = tempDir("hcp-folder-collide-");
  // Pack a's verb b.c and pack a_b's verb c are both the tool a_b_c.
  const a = writePack(dir, "a", { "b.c": { description: "From a.", cli: ["probe", "run", "print:from a"], policy: "read" } });
  const aB = writePack(dir, "a_b", {
    c: { description: "From a_b.", cli: ["probe", "run", "print:from a_b"], policy: "read" },
    d: { description: "Other.", cli: ["probe", "run", "print:other"], policy: "read" },
  });
  const env = isolatedEnv();
  const { client, stderr } = await mcpClient([dir], { env });
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["a_b_c"], "the whole later pack is left out");
    const r = await client.callTool({ name: "a_b_c", arguments: {} });
    assert.equal((r.content as Text)[0]!.text, "from a\n");
  } finally {
    await client.close();
  }
  assert.match(stderr(), /^Warning: skipped .*\/a_b: tool name a_b_c is taken twice: by verb "b\.c" of pack "a" and by verb "c" of pack "a_b"/m);
  const [direct, strict] = await Promise.all([hcp(["serve", "--mcp", a, aB], { env }), hcp(["serve", "--mcp", dir, "--strict"], { env })]);
  assert.equal(direct.code, 1, direct.stderr);
  assert.match(direct.stderr, /^Error: tool name a_b_c is taken twice: by verb "b\.c" of pack "a" and by verb "c" of pack "a_b"/m);
  assert.equal(strict.code, 1, strict.stderr);
  assert.match(strict.stderr, /^Error: tool name a_b_c is taken twice/m);
});
