// `hcp serve --mcp` through the SDK's Client over stdio: tools, annotations, calls, confirmation, elicitation, resources, cancellation.

import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { alive } from "../runtime/support.js";
import { probePack } from "./hardening.js";
import { PROBE_PACK, hcp, mcpClient, pack, tempDir } from "../transports/support.js";

type Structured = Record<string, unknown> & { error?: { code: string; message: string } };

test("tools/list: one tool per listable verb, annotations from policy, gated verbs take dry_run and confirm", async () => {
  const { client } = await mcpClient([PROBE_PACK]);
  try {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual(
      [...byName.keys()],
      ["echo", "fail", "slow", "quick", "write", "transfer", "sleeper"].map((v) => `hcp-probe_${v}`),
      "hidden (deny) is never listed",
    );
    assert.deepEqual(byName.get("hcp-probe_echo")!.annotations, { title: "Probe: echo", readOnlyHint: true, openWorldHint: false });
    assert.deepEqual(byName.get("hcp-probe_write")!.annotations, {
      title: "Probe: write",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    assert.deepEqual(byName.get("hcp-probe_transfer")!.annotations, {
      title: "Probe: transfer",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    const gated = byName.get("hcp-probe_transfer")!.inputSchema as { properties: Record<string, unknown>; required: string[] };
    assert.deepEqual(Object.keys(gated.properties), ["amount", "payee", "dry_run", "confirm"]);
    assert.deepEqual(gated.required, ["amount", "payee"]);
    assert.deepEqual(Object.keys((byName.get("hcp-probe_echo")!.inputSchema as { properties: object }).properties), ["message", "count"]);
    assert.match(byName.get("hcp-probe_write")!.description ?? "", /without --allow-write/);
    const instructions = client.getInstructions() ?? "";
    assert.match(instructions, /hcp-probe: A probe CLI for transport tests/);
    assert.ok(instructions.includes("Read hcp://hcp-probe/HARNESS.md before using it."), instructions);
  } finally {
    await client.close();
  }
});

test("tools/call: results, validation errors and refusals are isError results; HARNESS.md is a resource", async () => {
  const { client } = await mcpClient([PROBE_PACK]);
  try {
    const ok = await client.callTool({ name: "hcp-probe_echo", arguments: { message: "hello" } });
    assert.equal(ok.isError, undefined);
    const sc = ok.structuredContent as { json: { argv: string[] }; exit_code: number; stdout?: string; stdout_bytes: number };
    assert.deepEqual(sc.json.argv, ["echo", "hello"]);
    const text = (ok.content as { text: string }[])[0]!.text;
    assert.equal(Buffer.byteLength(text), sc.stdout_bytes, "the text block is the child's stdout as is");
    assert.ok(!("stdout" in sc), "stdout goes once, as json, where it is JSON");
    assert.deepEqual((JSON.parse(text) as { argv: string[] }).argv, ["echo", "hello"]);

    const invalid = await client.callTool({ name: "hcp-probe_echo", arguments: { message: 1, extra: true } });
    assert.equal(invalid.isError, true);
    assert.equal((invalid.structuredContent as Structured).error!.code, "invalid_args");

    const failed = await client.callTool({ name: "hcp-probe_fail", arguments: {} });
    assert.equal(failed.isError, true);
    assert.equal((failed.structuredContent as { exit_code: number }).exit_code, 3);

    const timedOut = await client.callTool({ name: "hcp-probe_slow", arguments: {} });
    assert.equal(timedOut.isError, true);
    assert.equal((timedOut.structuredContent as { timed_out: boolean }).timed_out, true);

    const write = await client.callTool({ name: "hcp-probe_write", arguments: {} });
    assert.equal(write.isError, true);
    assert.equal((write.structuredContent as Structured).error!.code, "write_not_allowed");

    await assert.rejects(client.callTool({ name: "hcp-probe_hidden", arguments: {} }), /unknown tool/);

    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), ["hcp://hcp-probe/HARNESS.md"]);
    const read = await client.readResource({ uri: "hcp://hcp-probe/HARNESS.md" });
    const skill = (read.contents[0] as { text: string }).text;
    assert.equal(skill, readFileSync(join(PROBE_PACK, "HARNESS.md"), "utf8"));
    assert.equal(resources[0]!.size, Buffer.byteLength(skill), "its size in bytes, as MCP's Resource.size");
  } finally {
    await client.close();
  }
});

test("a call that succeeds printing only on stderr (rclone's check, a CLI's own --dry-run preview) gives the agent its stderr in the text block; one that prints nothing says (no output); stdout alone stays as is", async () => {
  const root = probePack("quiet", {
    check: { description: "Check.", cli: ["probe", "run", "eprint:0 differences found", "eprint:4 matching files"], policy: "read" },
    nothing: { description: "Nothing.", cli: ["probe", "run", "exit:0"], policy: "read" },
    both: { description: "Both.", cli: ["probe", "run", "print:result", "eprint:progress"], policy: "read" },
  });
  const { client } = await mcpClient([root]);
  try {
    const text = async (name: string) => {
      const r = await client.callTool({ name, arguments: {} });
      assert.equal(r.isError, undefined, JSON.stringify(r));
      return (r.content as { text: string }[])[0]!.text;
    };
    assert.equal(await text("quiet_check"), "[stderr]\n0 differences found\n4 matching files");
    assert.equal(await text("quiet_nothing"), "(no output)");
    assert.equal(await text("quiet_both"), "result\n");
  } finally {
    await client.close();
  }
});

test("a long Skill (an API's, a section per verb) is not one the instructions send the agent to read whole before every use: they give its size and when to read it, and so does resources/list", async () => {
  const root = join(tempDir("hcp-mcp-long-skill-"), "probe");
  cpSync(PROBE_PACK, root, { recursive: true });
  const notes = "## Notes\n\n" + "A line of notes about the probe, as a long Skill has many.\n".repeat(800);
  writeFileSync(join(root, "HARNESS.md"), readFileSync(join(PROBE_PACK, "HARNESS.md"), "utf8") + "\n" + notes);
  const { client } = await mcpClient([root]);
  try {
    const instructions = client.getInstructions() ?? "";
    const text = (((await client.readResource({ uri: "hcp://hcp-probe/HARNESS.md" })).contents[0]) as { text: string }).text;
    const kib = Math.round(Buffer.byteLength(text) / 1024);
    assert.ok(kib > 32, `${kib} KiB`);
    assert.ok(!instructions.includes("before using it"), instructions);
    assert.ok(instructions.includes(`Its Skill, hcp://hcp-probe/HARNESS.md, is ${kib} KiB, mostly a section per verb that gives what its tool's description and input schema give: read it only when they are not enough.`), instructions);
    assert.equal((await client.listResources()).resources[0]!.size, Buffer.byteLength(text));
  } finally {
    await client.close();
  }
});

test("the prompt of a long Skill (an API's of 200 operations) leaves out its verb sections and names the resource that has them; a short one is whole", async () => {
  const dir = tempDir("hcp-mcp-long-prompt-");
  const paths: Record<string, unknown> = {};
  for (let i = 0; i < 200; i++) {
    const parameters = [{ name: "id", in: "path", required: true, description: "The record's id.", schema: { type: "string" } }];
    paths[`/records${i}/{id}`] = { get: { operationId: `get-record-${i}`, summary: `Show a record of catalogue ${i}, with its fields, its history and the records it names.`, parameters, responses: { "200": { description: "OK" } } } };
  }
  writeFileSync(join(dir, "api.json"), JSON.stringify({ openapi: "3.0.3", info: { title: "The Catalogue's official OpenAPI description", version: "1" }, servers: [{ url: "https://api.example.com" }], paths }));
  const init = await hcp(["init", "--from-openapi", join(dir, "api.json"), "--out", join(dir, "pack"), "--id", "catalogue"]);
  assert.equal(init.code, 0, init.stderr);
  const { client } = await mcpClient([join(dir, "pack")]);
  try {
    // A long name is not said again before each of 200 tools' titles: the pack's id is.
    assert.equal((await client.listTools()).tools[0]!.annotations?.title, "catalogue: get-record-0");
    const whole = ((await client.readResource({ uri: "hcp://catalogue/HARNESS.md" })).contents[0] as { text: string }).text;
    assert.ok(Buffer.byteLength(whole) > 32 * 1024 && whole.includes("### `get-record-199` (read)"), "the resource is the whole Skill");
    assert.ok(whole.includes("- Tool: `catalogue_get-record-199`\n- Arguments: `id` (required).\n"), "hcp init listed so many verbs with their arguments' names only");
    const prompt = ((await client.getPrompt({ name: "catalogue" })).messages[0]!.content as { text: string }).text;
    assert.ok(Buffer.byteLength(prompt) < 8 * 1024, `${Buffer.byteLength(prompt)} bytes`);
    assert.doesNotMatch(prompt, /^### /m, "no verb section");
    const note = /> This prompt[^\n]*\n\n/.exec(prompt)?.[0] ?? "";
    const kib = Math.round((Buffer.byteLength(whole) - Buffer.byteLength(prompt) + Buffer.byteLength(note)) / 1024);
    const intro = whole.slice(whole.indexOf("## Verbs"), whole.indexOf("### "));
    assert.ok(prompt.includes(`${intro}> This prompt leaves out the sections of the 200 verbs (${kib} KiB): each tool's description and input schema give what they say. The whole text is the resource hcp://catalogue/HARNESS.md.\n`), prompt);
    // What is said once for every verb stays: how approvals and credentials work.
    const head = whole.slice(0, whole.indexOf("## Verbs"));
    assert.ok(prompt.startsWith(head), "everything before the verb sections is kept");
  } finally {
    await client.close();
  }
  const short = await mcpClient([PROBE_PACK]);
  try {
    const read = ((await short.client.readResource({ uri: "hcp://hcp-probe/HARNESS.md" })).contents[0] as { text: string }).text;
    assert.equal(((await short.client.getPrompt({ name: "hcp-probe" })).messages[0]!.content as { text: string }).text, read);
  } finally {
    await short.client.close();
  }
});

test("confirm-gated write without elicitation: the agent alone cannot run it; each refusal says what a person can do", async () => {
  const { client } = await mcpClient([PROBE_PACK], { allowWrite: true });
  try {
    const args = { amount: "7", payee: "carol" };
    const call = (extra: Record<string, unknown>) => client.callTool({ name: "hcp-probe_transfer", arguments: { ...args, ...extra } });
    const error = (r: Awaited<ReturnType<typeof call>>) => (r.structuredContent as Structured).error;
    const required = error(await call({}))!;
    assert.equal(required.code, "approval_required");
    assert.match(required.message, /hcp approve hcp1\.\S+ ; then retry with the same plan_id/);
    assert.equal(error(await call({ confirm: "f".repeat(64) }))?.code, "plan_id_malformed");
    const dry = await call({ dry_run: true });
    assert.equal(dry.isError, undefined);
    const planId = (dry.structuredContent as { plan_id: string }).plan_id;
    // A plan_id approves only its own plan, and a dry run's id is no approval.
    const other = await client.callTool({ name: "hcp-probe_transfer", arguments: { amount: "700", payee: "carol", confirm: planId } });
    assert.equal(error(other)?.code, "confirmation_mismatch");
    const unapproved = error(await call({ confirm: planId }))!;
    assert.equal(unapproved.code, "approval_required");
    assert.ok(unapproved.message.includes(`hcp approve ${planId}`), unapproved.message);
  } finally {
    await client.close();
  }
});

test("confirm-gated write with elicitation: the plan is shown; accept runs, decline refuses", async () => {
  const asked: string[] = [];
  let action: "accept" | "decline" = "accept";
  const { client } = await mcpClient([PROBE_PACK], {
    allowWrite: true,
    elicit: (message) => {
      asked.push(message);
      return action === "accept" ? { action, content: { approve: true } } : { action };
    },
  });
  try {
    const accepted = await client.callTool({ name: "hcp-probe_transfer", arguments: { amount: "9", payee: "dan" } });
    assert.equal(accepted.isError, undefined);
    assert.deepEqual((accepted.structuredContent as { json: { argv: string[] } }).json.argv, ["transfer", "9", "--to=dan"]);
    assert.match(asked[0]!, /verb "transfer" of pack "hcp-probe"/);
    assert.match(asked[0]!, /"transfer", "9", "--to=dan"/);
    assert.match(asked[0]!, /plan_id: hcp1\./);

    action = "decline";
    const declined = await client.callTool({ name: "hcp-probe_transfer", arguments: { amount: "9", payee: "dan" } });
    assert.equal(declined.isError, true);
    assert.equal((declined.structuredContent as Structured).error!.code, "confirmation_declined");
    assert.equal(asked.length, 2);
  } finally {
    await client.close();
  }
});

test("a cancelled call kills the verb's whole process group, grandchild included", async () => {
  const dir = tempDir();
  const { client } = await mcpClient([PROBE_PACK], { cwd: dir });
  try {
    const stop = new AbortController();
    const call = client.callTool({ name: "hcp-probe_sleeper", arguments: {} }, undefined, { signal: stop.signal });
    const files = [join(dir, "child.pid"), join(dir, "grandchild.pid")];
    // Hang guards (60 s), as over HTTP: starting the server, the SDK and two node processes takes seconds on a loaded machine.
    for (let i = 0; i < 2400 && !files.every((f) => existsSync(f) && readFileSync(f, "utf8") !== ""); i++) await sleep(25);
    const pids = files.map((f) => Number(readFileSync(f, "utf8")));
    assert.ok(pids.every(alive), "both are running before the cancel");
    stop.abort();
    await assert.rejects(call);
    for (let i = 0; i < 2400 && pids.some(alive); i++) await sleep(25);
    assert.deepEqual(pids.map(alive), [false, false]);
    // The server is still serving.
    const ok = await client.callTool({ name: "hcp-probe_quick", arguments: {} });
    assert.equal((ok.structuredContent as { stdout: string }).stdout, "ok\n");
  } finally {
    await client.close();
  }
});

test("start-up refusals: a pack excluding mcp, colliding tool names, an invalid pack, no --mcp", async () => {
  const [cliOnly, collide, invalid, noMcp] = await Promise.all([
    hcp(["serve", "--mcp", pack("hcp-cli-only")]),
    hcp(["serve", "--mcp", pack("hcp-collide")]),
    hcp(["serve", "--mcp", pack("hcp-invalid")]),
    hcp(["serve", PROBE_PACK]),
  ]);
  assert.equal(cliOnly.code, 4);
  assert.equal(cliOnly.stderr, 'Error: pack "hcp-cli-only" does not allow the mcp transport (its surface.json transports: cli)\n');
  assert.equal(collide.code, 1);
  // The pack's own warnings (no HARNESS.md) come first, as on every start.
  assert.match(collide.stderr, /^(Warning: pack hcp-collide: [^\n]*\n)*Error: tool name hcp-collide_a_b is taken twice: by verb "a\.b" of pack "hcp-collide" and by verb "a_b"/);
  assert.equal(invalid.code, 1);
  assert.match(invalid.stderr, /^Error: pack at .*hcp-invalid has validation errors: surface\.json: binding\.colour: binding: /);
  assert.equal(noMcp.code, 1);
  assert.match(noMcp.stderr, /--mcp/);
  for (const r of [cliOnly, collide, invalid, noMcp]) assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
});
