// The folder a program hcp runs works in is the agent's workspace, where the agent writes files. What it writes there
// must never choose what runs with the pack's credentials, nor answer for the person.
//
// A program that runs another by name (`#!/usr/bin/env node`, as every npm CLI starts; a script calling `jq`) looks
// it up on the PATH hcp gives it. A relative entry of the person's PATH (`node_modules/.bin`, `.`) or an empty one (a
// leading or trailing `:`) is searched from the folder the program runs in, and an absolute one can lie inside it (an
// activated virtualenv's `<project>/.venv/bin`): a file the agent wrote there would run with the pack's credentials,
// or, for an --approver, say yes in the person's place. hcp looks programs up, and gives what it runs a PATH, without
// those entries; an approver runs in the person's home folder, never lies in the workspace, nor do hcp's own places
// (state directory, approvers file, credential file). A pack served from the workspace, an audit log there and hcp
// installed there, which the agent could rewrite, are named to the operator. The operator's HCP_AGENT_FOLDERS adds
// folders hcp cannot tell are the agent's.

import assert from "node:assert/strict";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { credentialFile, execSession, HCP, hcp, mcpClient, tempDir } from "../transports/support.js";
import { bank } from "./approvals-support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { fixture, REPO, run as spawnRun, trustPack } from "./helpers.js";
import { eventually } from "../runtime/support.js";

const HELPER = "hcp-path-helper";
const TOKEN = "tok-Path7helperSECRET";

function script(path: string, text: string): void {
  writeFileSync(path, text);
  chmodSync(path, 0o755);
}

/** A pack given the token whose program is a script run by `#!/usr/bin/env hcp-path-helper`, the helper a person installed. */
function interpretedPack(): { root: string; realBin: string } {
  const realBin = tempDir("hcp-realbin-");
  script(join(realBin, HELPER), `#!/bin/sh\necho "real helper ran $1"\n`);
  const verbs = { show: { description: "Run the tool.", cli: ["tool"], policy: "read" } };
  const binding = { mode: "user", hub: "local-credential", family: "secretfam" };
  const root = probePack("interp", verbs, { cliBin: "tool", binding, wrap: { bin: "./tool" } }, { verbs: { show: "read" } });
  script(join(root, "tool"), `#!/usr/bin/env ${HELPER}\n`);
  return { root, realBin };
}

/** The agent's workspace: a program named `name` where each entry of personPaths in it leads, recording its runs. */
function workspace(name: string, then = ""): { dir: string; witness: string } {
  const dir = tempDir("hcp-workspace-");
  const witness = join(tempDir("hcp-witness-"), "ran");
  const planted = `#!/bin/sh\necho "agent's $0 ran with $SECRET_TOKEN" >> '${witness}'\necho planted\n${then}`;
  for (const folder of ["node_modules/.bin", "bin", ".", ".venv/bin"]) {
    mkdirSync(join(dir, folder), { recursive: true });
    script(join(dir, folder, name), planted);
  }
  return { dir, witness };
}

const REST = process.env["PATH"] ?? "/usr/bin:/bin";

/**
 * PATHs a person may have, each with an entry leading into the workspace `dir` before `bin` (an empty one also after
 * it): relative, empty, and an activated virtualenv's, absolute.
 */
function personPaths(bin: string, dir: string): string[] {
  return [`node_modules/.bin:${bin}:${REST}`, `bin:${bin}:${REST}`, `.:${bin}:${REST}`, `:${bin}:${REST}`, `${REST}::${bin}`, `${REST}:${bin}:`, `${dir}/.venv/bin:${bin}:${REST}`];
}

test("attack: entries of the person's PATH that lead into the folder a program runs in (node_modules/.bin, ., a leading or trailing :, an activated virtualenv's <workspace>/.venv/bin) never lead a trusted program's own lookups (#!/usr/bin/env) to a file the agent wrote there, on run, exec and MCP", async () => {
  const { root, realBin } = interpretedPack();
  const { dir, witness } = workspace(HELPER);
  const base = isolatedEnv({ HCP_CREDENTIALS: credentialFile(TOKEN) });
  await trustPack(root, base);
  for (const path of personPaths(realBin, dir)) {
    const env = { ...base, PATH: path };
    const outputs: string[] = [];
    const run = await hcp(["run", root, "show"], { env, cwd: dir });
    outputs.push(run.stdout + run.stderr);
    const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "interp", verb: "show", args: {} })], [], { env, cwd: dir });
    outputs.push(exec.stdout + exec.stderr);
    const { client } = await mcpClient([root], { env, cwd: dir });
    try {
      outputs.push(JSON.stringify(await client.callTool({ name: "interp_show", arguments: {} })));
    } finally {
      await client.close();
    }
    assert.equal(existsSync(witness), false, `PATH=${path}: the agent's helper ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}\n${outputs.join("\n")}`);
    for (const [i, out] of outputs.entries()) assert.match(out, /real helper ran /, `PATH=${path}, output ${i}: ${out}`);
  }
});

test("attack: an --approver the person listed that starts its interpreter by name (#!/usr/bin/env) never runs one the agent wrote where a PATH entry leads into the working folder (relative, empty, <workspace>/.venv/bin): the person's says no, and nothing runs, on run, exec and MCP", async () => {
  const INTERPRETER = "hcp-path-approver";
  const realBin = tempDir("hcp-realbin-");
  const asked = join(tempDir("hcp-asked-"), "asked");
  // The person's approver declines everything, and notes that it was asked.
  script(join(realBin, INTERPRETER), `#!/bin/sh\necho asked >> '${asked}'\nexit 1\n`);
  const approver = join(tempDir("hcp-approver-"), "approve");
  script(approver, `#!/usr/bin/env ${INTERPRETER}\n`);
  const { dir, witness } = workspace(INTERPRETER, "exit 0\n");
  const b = bank({ approvers: [approver] });
  const flags = ["--allow-write", "--approver", approver];
  for (const [i, path] of personPaths(realBin, dir).entries()) {
    const env = { ...b.env, PATH: path };
    const run = await hcp(["run", b.root, "pay", "--arg", `amount=${i}`, ...flags], { env, cwd: dir });
    assert.equal(run.code, 4, `PATH=${path}: ${run.stdout}${run.stderr}`);
    const exec = await execSession([b.root], [JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: `${i}` } })], flags, { env, cwd: dir });
    assert.equal(exec.responses[0]?.ok, false, exec.stdout);
    const { client } = await mcpClient([b.root], { env, cwd: dir, allowWrite: true, args: ["--approver", approver] });
    try {
      const r = (await client.callTool({ name: "bank_pay", arguments: { amount: `${i}` } })) as { isError?: boolean };
      assert.equal(r.isError, true, JSON.stringify(r));
    } finally {
      await client.close();
    }
    assert.equal(existsSync(witness), false, `PATH=${path}: the agent's program approved: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);
    assert.deepEqual(b.runs(), [], `PATH=${path}: a payment ran`);
    assert.equal(readFileSync(asked, "utf8"), "asked\n".repeat(3 * (i + 1)), `PATH=${path}: the person's approver was not asked every time`);
  }
});

test("attack: an --approver runs in the person's home folder, not the working folder: one that loads a .env from its folder (as dotenv does) never takes the agent's (APPROVE=yes), and nothing runs, on run, exec and MCP", async () => {
  const asked = join(tempDir("hcp-asked-"), "asked");
  const approver = join(tempDir("hcp-approver-"), "approve");
  script(approver, `#!/bin/sh\nAPPROVE=no\n[ -f .env ] && . ./.env\npwd -P >> '${asked}'\n[ "$APPROVE" = yes ]\n`);
  const agents = tempDir("hcp-workspace-");
  writeFileSync(join(agents, ".env"), "APPROVE=yes\n");
  const b = bank({ approvers: [approver] });
  const flags = ["--allow-write", "--approver", approver];
  const run = await hcp(["run", b.root, "pay", "--arg", "amount=1", ...flags], { env: b.env, cwd: agents });
  assert.equal(run.code, 4, run.stdout + run.stderr);
  const exec = await execSession([b.root], [JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: "2" } })], flags, { env: b.env, cwd: agents });
  assert.equal(exec.responses[0]?.ok, false, exec.stdout);
  const { client } = await mcpClient([b.root], { env: b.env, cwd: agents, allowWrite: true, args: ["--approver", approver] });
  try {
    const r = (await client.callTool({ name: "bank_pay", arguments: { amount: "3" } })) as { isError?: boolean };
    assert.equal(r.isError, true, JSON.stringify(r));
  } finally {
    await client.close();
  }
  assert.deepEqual(b.runs(), [], "a payment ran");
  assert.equal(readFileSync(asked, "utf8"), `${realpathSync(b.env["HOME"]!)}\n`.repeat(3), "the approver was not asked in the person's home folder each time");
});

test("attack: an --approver the person listed is never run where the agent could have rewritten it to say yes: in the folder hcp works in or --cwd (by its path, or through a link of the person's), or writable by others; refused naming why, and nothing runs, on run, exec, MCP and mcp-config", async () => {
  const agents = tempDir("hcp-workspace-");
  const witness = join(tempDir("hcp-witness-"), "approved");
  // Each approver as the agent left it: it says yes, and notes that it ran.
  const yes = `#!/bin/sh\necho "an approver the agent wrote ran" >> '${witness}'\nexit 0\n`;
  const inProject = join(agents, "tools", "approve");
  mkdirSync(join(agents, "tools"));
  script(inProject, yes);
  const linked = join(tempDir("hcp-bin-"), "approve");
  symlinkSync(inProject, linked);
  const open = join(tempDir("hcp-open-"), "approve");
  script(open, yes);
  chmodSync(open, 0o777);
  const b = bank({ approvers: [inProject, linked, open] });
  const elsewhere = tempDir("hcp-elsewhere-");
  const lies = `lies in ${JSON.stringify(agents)}, a folder the agent works in`;
  const cases: [approver: string, cwd: string, more: string[], why: string][] = [
    [inProject, agents, [], lies],
    [inProject, elsewhere, ["--cwd", agents], lies],
    [linked, agents, [], `(the file ${JSON.stringify(inProject)}) ${lies}`],
    [open, elsewhere, [], `can be written by others, who could make it say yes (chmod go-w ${open})`],
  ];
  for (const [i, [approver, cwd, more, why]] of cases.entries()) {
    const flags = ["--allow-write", "--approver", approver];
    const where = `--approver ${approver}, cwd ${cwd} ${more.join(" ")}`;
    if (more.length === 0) {
      const run = await hcp(["run", b.root, "pay", "--arg", `amount=${i}`, ...flags], { env: b.env, cwd });
      assert.equal(run.code, 4, `${where}: ${run.stdout}${run.stderr}`);
      assert.ok(run.stderr.includes(why), `${where}: ${run.stderr}`);
    }
    const exec = await execSession([b.root], [JSON.stringify({ id: 1, pack: "bank", verb: "pay", args: { amount: `${i}` } })], [...flags, ...more], { env: b.env, cwd });
    assert.ok(exec.responses[0]?.error?.message.includes(why), `${where}: ${exec.stdout}`);
    const { client } = await mcpClient([b.root], { env: b.env, cwd, allowWrite: true, args: ["--approver", approver, ...more] });
    try {
      const r = await client.callTool({ name: "bank_pay", arguments: { amount: `${i}` } });
      assert.equal((r as { isError?: boolean }).isError, true, `${where}: ${JSON.stringify(r)}`);
      assert.ok(JSON.stringify(r).includes(JSON.stringify(why).slice(1, -1)), `${where}: ${JSON.stringify(r)}`);
    } finally {
      await client.close();
    }
    // hcp mcp-config makes no configuration that would run it.
    const config = await hcp(["mcp-config", b.root, "--client", "claude", ...flags, ...more], { env: b.env, cwd });
    assert.notEqual(config.code, 0, `${where}: ${config.stdout}`);
    assert.ok(config.stderr.includes(why), `${where}: ${config.stderr}`);
  }
  assert.equal(existsSync(witness), false, `an approver the agent could rewrite ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);
  assert.deepEqual(b.runs(), [], "a payment ran");
  // The same approver, run from a folder that is not the agent's (nor given as --cwd), is asked: the rule is the folder.
  const asked = await hcp(["run", b.root, "pay", "--arg", "amount=9", "--allow-write", "--approver", inProject], { env: b.env, cwd: elsewhere });
  assert.equal(asked.code, 0, asked.stdout + asked.stderr);
  assert.equal(b.runs().length, 1, "the payment the approver said yes to did not run");
});

/** A pack of the agent's (or the person's) whose program notes each run, with the credential it got, in `witness`. */
function notingPack(witness: string, binding: object = { mode: "user", hub: "none" }): string {
  const root = probePack("noting", { show: { description: "Run it.", cli: ["tool"], policy: "read" } }, { cliBin: "tool", binding, wrap: { bin: "./tool" } }, { verbs: { show: "read" } });
  script(join(root, "tool"), `#!/bin/sh\necho "ran with [$SECRET_TOKEN]" >> '${witness}'\n`);
  return root;
}

test("attack: hcp's places set inside the folder the agent works in (a project's XDG_STATE_HOME, XDG_CONFIG_HOME or HCP_CREDENTIALS, as direnv may set them) are refused: a trust record, an approvers list or a credential file the agent wrote there does not run its pack, approve its plan or give its token, on run, exec and serve", async () => {
  const agents = tempDir("hcp-workspace-");
  const witness = join(tempDir("hcp-witness-"), "ran");
  const base = isolatedEnv();
  const stateIn = `the hcp state directory ${join(agents, ".state", "hcp")} lies in ${JSON.stringify(agents)}, a folder the agent works in`;
  // The state directory: the agent trusts its own pack there, writing what hcp trust writes once a person says yes.
  const own = notingPack(witness);
  const inState = { ...base, XDG_STATE_HOME: join(agents, ".state") };
  await trustPack(own, inState);
  const run = await hcp(["run", own, "show"], { env: inState, cwd: agents });
  assert.equal(run.code, 4, run.stdout + run.stderr);
  assert.ok(run.stderr.includes(stateIn), run.stderr);
  for (const command of [["exec", own], ["serve", "--mcp", own]]) {
    const started = await hcp(command, { env: inState, cwd: agents });
    assert.equal(started.code, 4, `${command[0]}: ${started.stdout}${started.stderr}`);
    assert.ok(started.stderr.includes(stateIn), `${command[0]}: ${started.stderr}`);
  }
  const placed = await hcp(["exec", own, "--cwd", agents], { env: inState, cwd: tempDir("hcp-elsewhere-") });
  assert.ok(placed.stderr.includes(stateIn), placed.stderr);

  // The approvers file: the agent lists /bin/true as an approver of the person's.
  const b = bank();
  const config = join(agents, ".config");
  mkdirSync(join(config, "hcp"), { recursive: true });
  writeFileSync(join(config, "hcp", "approvers"), "/bin/true\n", { mode: 0o600 });
  const approved = await hcp(["run", b.root, "pay", "--arg", "amount=5", "--allow-write", "--approver", "/bin/true"], { env: { ...b.env, XDG_CONFIG_HOME: config }, cwd: agents });
  assert.equal(approved.code, 4, approved.stdout + approved.stderr);
  assert.ok(approved.stderr.includes(`your approvers file ${join(config, "hcp", "approvers")} lies in ${JSON.stringify(agents)}, a folder the agent works in`), approved.stderr);
  assert.deepEqual(b.runs(), [], "a payment ran");

  // The credential file: the agent's own token for a pack of the person's, which reads the family's.
  const persons = notingPack(witness, { mode: "user", hub: "local-credential", family: "secretfam" });
  const creds = join(agents, "credentials.json");
  writeFileSync(creds, JSON.stringify({ secretfam: { env: { SECRET_TOKEN: "the-agent's-token" } } }), { mode: 0o600 });
  for (const [env, cwd, more] of [
    [{ ...base, HCP_CREDENTIALS: creds }, agents, []],
    [{ ...base, HCP_CREDENTIALS: "credentials.json" }, agents, []],
    [{ ...base, HCP_CREDENTIALS: creds }, tempDir("hcp-elsewhere-"), ["--cwd", agents]],
  ] as const) {
    await trustPack(persons, env);
    const why = `the credential file ${env.HCP_CREDENTIALS} lies in ${JSON.stringify(agents)}, a folder the agent works in`;
    if (more.length === 0) {
      const ran = await hcp(["run", persons, "show"], { env, cwd });
      assert.equal(ran.code, 3, ran.stdout + ran.stderr);
      assert.ok(ran.stderr.includes(why), ran.stderr);
    }
    const exec = await execSession([persons], [JSON.stringify({ id: 1, pack: "noting", verb: "show", args: {} })], [...more], { env, cwd });
    assert.ok(exec.responses[0]?.error?.message.includes(why), exec.stdout);
  }
  assert.equal(existsSync(witness), false, `a pack ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);
  // The same places outside the agent's folder serve as before.
  const kept = { ...base, HCP_CREDENTIALS: credentialFile("the-person's-token") };
  await trustPack(persons, kept);
  assert.equal((await hcp(["run", persons, "show"], { env: kept, cwd: agents })).code, 0);
  assert.equal(readFileSync(witness, "utf8"), "ran with [the-person's-token]\n");
});

/** A pack whose program is the helper, looked up on PATH. */
function venvPack(): string {
  return probePack("venv", { show: { description: "Run it.", cli: [HELPER], policy: "read" } }, { cliBin: HELPER, wrap: { bin: HELPER } }, { verbs: { show: "read" } });
}

test("a verb's program found on PATH only inside the folder it runs in (<workspace>/.venv/bin) is not run: the refusal names where it is and why, on run, exec and MCP", async () => {
  const { dir, witness } = workspace(HELPER);
  const root = venvPack();
  const env = isolatedEnv({ PATH: `${dir}/.venv/bin:${REST}` });
  await trustPack(root, env);
  const why = `program "${HELPER}" is on PATH only at "${dir}/.venv/bin/${HELPER}", in the folder it would run in ("${dir}"), where the agent writes files: hcp does not look programs up there`;
  const run = await hcp(["run", root, "show"], { env, cwd: dir });
  assert.notEqual(run.code, 0, run.stdout);
  assert.ok(run.stderr.includes(why), run.stderr);
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "venv", verb: "show", args: {} })], [], { env, cwd: dir });
  assert.ok(exec.responses[0]?.error?.message.includes(why), exec.stdout);
  const { client } = await mcpClient([root], { env, cwd: dir });
  try {
    assert.ok(JSON.stringify(await client.callTool({ name: "venv_show", arguments: {} })).includes(JSON.stringify(why).slice(1, -1)));
  } finally {
    await client.close();
  }
  assert.equal(existsSync(witness), false, "the agent's program ran");
});

test("hcp trust looks a pack's programs up as a run in its folder would: one found only in the workspace's .venv/bin is shown as one that cannot run, naming where it is", async () => {
  const { dir } = workspace(HELPER);
  const root = venvPack();
  const env = isolatedEnv({ PATH: `${dir}/.venv/bin:${REST}` });
  const review = await spawnRun("python3", [fixture("bin/terminal.py"), "30", "[y/N]", "n", "--", process.execPath, HCP, "trust", root], { env, cwd: dir, timeoutMs: 40_000 });
  assert.ok(review.stdout.includes(`cannot run: program "${HELPER}" is on PATH only at "${dir}/.venv/bin/${HELPER}"`), review.stdout);
  assert.match(review.stdout, /cannot run now/);
});

test("a server started in the home folder or in / is no workspace of the agent's: the user's programs on PATH there (~/bin, /usr/bin) are found and run", async () => {
  const { root } = interpretedPack();
  const base = isolatedEnv({ HCP_CREDENTIALS: credentialFile(TOKEN) });
  const home = base["HOME"]!;
  mkdirSync(join(home, "bin"));
  script(join(home, "bin", HELPER), `#!/bin/sh\necho "the user's helper ran"\n`);
  const env = { ...base, PATH: `${home}/bin:${REST}` };
  for (const cwd of [home, "/"]) {
    const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "interp", verb: "show", args: {} })], [], { env, cwd });
    assert.match(exec.stdout, /the user's helper ran/, `cwd ${cwd}: ${exec.stdout}`);
  }
});

/** The start of the warning hcp serve and exec give of a pack the agent can rewrite. */
const rewritable = (id: string, folder: string) => `pack "${id}" lies in ${JSON.stringify(folder)}, the folder its server's verbs run in, where the agent writes files: it can rewrite the pack`;

/** A pack of one read verb at `root`. */
function smallPack(root: string, id: string): string {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id, kind: "wrap", cliBin: "true", wrap: { bin: "/bin/true" }, verbs: { ok: { description: "Do nothing.", cli: ["true"], policy: "read" } } }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: id, verbs: { ok: "read" } }));
  writeFileSync(join(root, "HARNESS.md"), `---\nname: ${id}\ndescription: Test pack.\n---\n\nTest pack.\n`);
  return root;
}

test("hcp serve, exec and mcp-config tell the operator (stderr, and an MCP client's log) of a served pack that lies in the folder its verbs run in, where the agent can rewrite it; not of one elsewhere, nor when that folder is the home folder", async () => {
  const agents = tempDir("hcp-workspace-");
  const inside = smallPack(join(agents, ".hcp", "packs", "local"), "local");
  const outside = smallPack(join(tempDir("hcp-packs-"), "kept"), "kept");
  const env = isolatedEnv();
  const home = env["HOME"]!;
  const mine = smallPack(join(home, "packs", "mine"), "mine");
  const elsewhere = tempDir("hcp-elsewhere-");
  for (const [cwd, args, warned] of [
    [agents, [], true],
    [elsewhere, ["--cwd", agents], true],
    [agents, ["--cwd", elsewhere], false],
  ] as const) {
    const logs: string[] = [];
    const { client, stderr } = await mcpClient([inside, outside], { env, cwd, args: [...args], onLog: (d) => logs.push(d) });
    try {
      await client.listTools();
    } finally {
      await client.close();
    }
    const where = `cwd ${cwd}, ${args.join(" ")}`;
    assert.equal(stderr().includes(rewritable("local", agents)), warned, `${where}: ${stderr()}`);
    assert.equal(logs.some((l) => l.includes(rewritable("local", agents))), warned, `${where}: ${logs.join("\n")}`);
    assert.equal(stderr().includes('pack "kept" lies in'), false, `${where}: ${stderr()}`);
  }
  const exec = await execSession([inside], [], [], { env, cwd: agents });
  assert.ok(exec.stderr.includes(rewritable("local", agents)), exec.stderr);
  // hcp mcp-config, run in the project a client will start the server in, says so when the configuration is made.
  const config = await hcp(["mcp-config", inside, outside, "--client", "claude"], { env, cwd: agents });
  assert.equal(config.code, 0, config.stderr);
  assert.ok(config.stderr.includes(`Warning: pack "local" lies in ${JSON.stringify(agents)}, where a client configured for this folder`), config.stderr);
  assert.equal(config.stderr.includes('pack "kept" lies in'), false, config.stderr);
  const placed = await hcp(["mcp-config", inside, "--client", "claude", "--cwd", elsewhere], { env, cwd: agents });
  assert.equal(placed.stderr.includes("lies in"), false, placed.stderr);
  // Served from the home folder (as some clients start servers), a pack there is no workspace's.
  const { client, stderr } = await mcpClient([mine], { env, cwd: home });
  await client.close();
  assert.equal(stderr().includes("lies in"), false, stderr());
});

test("hcp serve, exec and mcp-config warn of an audit log in the folder the agent works in, where it could rewrite the record of what ran; not of one elsewhere", async () => {
  const agents = tempDir("hcp-workspace-");
  const pack = smallPack(join(tempDir("hcp-packs-"), "kept"), "kept");
  const env = isolatedEnv();
  const inside = join(agents, "logs", "audit.jsonl");
  mkdirSync(join(agents, "logs"));
  const warning = `Warning: the audit log ${inside} lies in ${JSON.stringify(agents)}, a folder the agent works in`;
  for (const [cwd, args, warned] of [
    [agents, ["--audit", inside], true],
    [agents, ["--audit", "logs/audit.jsonl"], true],
    [tempDir("hcp-elsewhere-"), ["--audit", inside, "--cwd", agents], true],
    [agents, ["--audit", join(tempDir("hcp-logs-"), "audit.jsonl")], false],
  ] as const) {
    const where = `cwd ${cwd}, ${args.join(" ")}`;
    const exec = await execSession([pack], [], [...args], { env, cwd });
    assert.equal(exec.stderr.includes(warning), warned, `exec, ${where}: ${exec.stderr}`);
    const { client, stderr } = await mcpClient([pack], { env, cwd, args: [...args] });
    await client.close();
    assert.equal(stderr().includes(warning), warned, `serve, ${where}: ${stderr()}`);
    const config = await hcp(["mcp-config", pack, "--client", "claude", ...args], { env, cwd });
    assert.equal(config.code, 0, config.stderr);
    assert.equal(config.stderr.includes(warning), warned, `mcp-config, ${where}: ${config.stderr}`);
  }
});

test("hcp serve, exec and mcp-config warn when hcp itself is installed in the folder the agent works in (a project's node_modules, a devDependency run with npx), where the agent could rewrite hcp; not when it is run from elsewhere", async () => {
  const agents = tempDir("hcp-workspace-");
  const bin = join(agents, "node_modules", "rungrad", "dist", "bin");
  mkdirSync(bin, { recursive: true });
  cpSync(`${REPO}dist/bin`, bin, { recursive: true });
  const program = join(bin, "hcp.cjs");
  const pack = smallPack(join(tempDir("hcp-packs-"), "kept"), "kept");
  const env = isolatedEnv();
  const warning = `Warning: hcp itself is installed at ${realpathSync(program)}, in ${JSON.stringify(agents)}, a folder the agent works in`;
  for (const [cwd, more, warned] of [
    [agents, [], true],
    [tempDir("hcp-elsewhere-"), ["--cwd", agents], true],
    [tempDir("hcp-elsewhere-"), [], false],
  ] as const) {
    for (const command of [["exec", pack], ["serve", "--mcp", pack], ["mcp-config", pack, "--client", "claude"]]) {
      const r = await spawnRun(process.execPath, [program, ...command, ...more], { env, cwd });
      assert.equal(r.code, 0, `${command[0]}: ${r.stderr}`);
      assert.equal(r.stderr.includes(warning), warned, `${command[0]}, cwd ${cwd} ${more.join(" ")}: ${r.stderr}`);
    }
  }
});

test("attack: with the operator's HCP_AGENT_FOLDERS naming the agent's workspace, hcp run from / (the agent chooses where hcp run runs) and a server a client starts in / keep the workspace's rules: its .venv/bin is not searched, an approver or a state directory there is refused, a pack served from there is warned of; mcp-config carries the variable", async () => {
  // The PATH rule: the trusted pack's #!/usr/bin/env helper, with the workspace's .venv/bin first on PATH.
  const { root, realBin } = interpretedPack();
  const { dir, witness } = workspace(HELPER);
  const base = isolatedEnv({ HCP_CREDENTIALS: credentialFile(TOKEN), HCP_AGENT_FOLDERS: dir });
  await trustPack(root, base);
  const env = { ...base, PATH: `${dir}/.venv/bin:${realBin}:${REST}` };
  const run = await hcp(["run", root, "show"], { env, cwd: "/" });
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "interp", verb: "show", args: {} })], [], { env, cwd: "/" });
  const { client, stderr } = await mcpClient([root], { env, cwd: "/" });
  let called: string;
  try {
    called = JSON.stringify(await client.callTool({ name: "interp_show", arguments: {} }));
  } finally {
    await client.close();
  }
  // Started in /, the server knows the agent's folder from the variable, and does not ask for it.
  assert.doesNotMatch(stderr(), /knows no folder/);
  assert.equal(existsSync(witness), false, `the agent's helper ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);
  for (const out of [run.stdout, exec.stdout, called]) assert.match(out, /real helper ran /);

  // An approver in the workspace, and a state directory there.
  const approver = join(dir, "approve");
  script(approver, `#!/bin/sh\necho "an approver the agent wrote ran" >> '${witness}'\nexit 0\n`);
  const b = bank({ approvers: [approver], env: { HCP_AGENT_FOLDERS: dir } });
  const lies = `lies in ${JSON.stringify(dir)}, a folder the agent works in (hcp's working folder, --cwd, HCP_AGENT_FOLDERS or the MCP client's roots)`;
  const paid = await hcp(["run", b.root, "pay", "--arg", "amount=1", "--allow-write", "--approver", approver], { env: b.env, cwd: "/" });
  assert.equal(paid.code, 4, paid.stdout + paid.stderr);
  assert.ok(paid.stderr.includes(lies), paid.stderr);
  const served = await mcpClient([b.root], { env: b.env, cwd: "/", allowWrite: true, args: ["--approver", approver] });
  try {
    const r = await served.client.callTool({ name: "bank_pay", arguments: { amount: "2" } });
    assert.ok(JSON.stringify(r).includes(JSON.stringify(lies).slice(1, -1)), JSON.stringify(r));
  } finally {
    await served.client.close();
  }
  assert.deepEqual(b.runs(), [], "a payment ran");
  const stateIn = await hcp(["run", root, "show"], { env: { ...env, XDG_STATE_HOME: join(dir, ".state") }, cwd: "/" });
  assert.equal(stateIn.code, 4, stateIn.stdout + stateIn.stderr);
  assert.ok(stateIn.stderr.includes(`the hcp state directory ${join(dir, ".state", "hcp")} lies in ${JSON.stringify(dir)}`), stateIn.stderr);
  assert.equal(existsSync(witness), false, `the agent's program ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);

  // A pack kept in the workspace, served from /, is one the agent can rewrite.
  const kept = smallPack(join(dir, ".hcp", "packs", "local"), "local");
  const warned = await execSession([kept], [], [], { env, cwd: "/" });
  assert.ok(warned.stderr.includes(`pack "local" lies in ${JSON.stringify(dir)}, a folder HCP_AGENT_FOLDERS names, where the agent writes files: it can rewrite the pack`), warned.stderr);

  // The server a configuration starts gets the variable, whatever the client's environment.
  const config = await hcp(["mcp-config", root, "--client", "claude", "--json"], { env, cwd: base["HOME"]! });
  assert.equal(config.code, 0, config.stderr);
  assert.equal((JSON.parse(config.stdout) as { env?: Record<string, string> }).env?.["HCP_AGENT_FOLDERS"], dir, config.stdout);
});

test("attack: an MCP client that names its workspace (roots) has a server started in / keep the workspace's rules without HCP_AGENT_FOLDERS: its .venv/bin is not searched, an approver or a state directory there is refused, a pack served from there is warned of; a client that names none leaves them unknown", async () => {
  const { root, realBin } = interpretedPack();
  const { dir, witness } = workspace(HELPER);
  const base = isolatedEnv({ HCP_CREDENTIALS: credentialFile(TOKEN) });
  const env = { ...base, PATH: `${dir}/.venv/bin:${realBin}:${REST}` };
  const callShow = async (roots: string[] | undefined): Promise<string> => {
    const { client } = await mcpClient([root], { env, cwd: "/", ...(roots && { roots }) });
    try {
      return JSON.stringify(await client.callTool({ name: "interp_show", arguments: {} }));
    } finally {
      await client.close();
    }
  };
  // The PATH rule: the first call waits for the roots, and the real helper runs.
  assert.match(await callShow([dir]), /real helper ran /);
  assert.equal(existsSync(witness), false, `the agent's helper ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);

  // An approver in the workspace, a state directory there, and a pack kept there.
  const approver = join(dir, "approve");
  script(approver, `#!/bin/sh\necho "an approver the agent wrote ran" >> '${witness}'\nexit 0\n`);
  const b = bank({ approvers: [approver] });
  const kept = smallPack(join(dir, ".hcp", "packs", "bank"), "kept");
  const logged: string[] = [];
  const served = await mcpClient([b.root, kept], { env: b.env, cwd: "/", allowWrite: true, args: ["--approver", approver], roots: [dir], onLog: (w) => logged.push(w) });
  try {
    const r = await served.client.callTool({ name: "bank_pay", arguments: { amount: "2" } });
    assert.ok(JSON.stringify(r).includes(`lies in ${JSON.stringify(JSON.stringify(dir)).slice(1, -1)}, a folder the agent works in`), JSON.stringify(r));
  } finally {
    await served.client.close();
  }
  assert.deepEqual(b.runs(), [], "a payment ran");
  const warning = `pack "kept" lies in ${JSON.stringify(dir)}, a folder the MCP client named as its workspace (its roots), where the agent writes files: it can rewrite the pack`;
  assert.ok(logged.some((w) => w.startsWith(warning)), logged.join("\n"));
  assert.ok(served.stderr().includes(warning), served.stderr());
  const { client } = await mcpClient([root], { env: { ...env, XDG_STATE_HOME: join(dir, ".state") }, cwd: "/", roots: [dir] });
  try {
    const r = await client.callTool({ name: "interp_show", arguments: {} });
    assert.ok(JSON.stringify(r).includes(`the hcp state directory ${join(dir, ".state", "hcp")} lies in`), JSON.stringify(r));
  } finally {
    await client.close();
  }
  assert.equal(existsSync(witness), false, `the agent's program ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);

  // A client that names its workspace later (roots/list_changed): the calls after it keep the workspace's rules.
  const later: string[] = [];
  let listed = 0;
  const namedNow = () => {
    listed++;
    return later;
  };
  const changing = await mcpClient([root], { env, cwd: "/", roots: namedNow });
  try {
    assert.ok(await eventually(() => listed === 1, 20_000), "the server asks for the roots once the client is initialized");
    later.push(dir);
    await changing.client.sendRootsListChanged();
    assert.match(JSON.stringify(await changing.client.callTool({ name: "interp_show", arguments: {} })), /real helper ran /);
  } finally {
    await changing.client.close();
  }
  assert.equal(existsSync(witness), false, `the agent's program ran: ${existsSync(witness) ? readFileSync(witness, "utf8") : ""}`);

  // A client that names no roots: the server knows no folder of the agent's, and the workspace's .venv/bin is searched.
  assert.match(await callShow(undefined), /planted/);
  assert.match(readFileSync(witness, "utf8"), /agent's .* ran with/);
});

