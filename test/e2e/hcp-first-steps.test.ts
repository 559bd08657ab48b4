// What a new user of hcp runs into in the first hour, end to end: the documented examples load as written,
// and each mistake (a typo, a missing folder or credential) is named with what to do about it.

import assert from "node:assert/strict";
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO, fixture, trustPack } from "./helpers.js";
import { isolatedEnv, probePack, witness } from "./hardening.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PROBE_PACK, hcp, mcpClient, tempDir } from "../transports/support.js";
import { eventually } from "../runtime/support.js";
import { notesApi } from "./notes-api.js";
import { openapiPack } from "./openapi-support.js";

/** The first ```json block after `heading` in a doc page. */
function docJson(page: string, heading: string): unknown {
  const text = readFileSync(join(REPO, page), "utf8");
  const block = /```json\n([\s\S]*?)```/.exec(text.slice(text.indexOf(heading)));
  assert.ok(block, `${page} has a JSON example under ${heading}`);
  return JSON.parse(block[1]!);
}

test("the hcp describe output docs/packs.md shows is the program's, for the pack made from the taskr manifest it names", async () => {
  const marker = "`hcp describe ./packs/taskr task.list` prints:";
  const text = readFileSync(join(REPO, "docs/packs.md"), "utf8");
  const shown = /```\n([\s\S]*?)```/.exec(text.slice(text.indexOf(marker)));
  assert.ok(text.includes(marker) && shown, "docs/packs.md shows the output of hcp describe ./packs/taskr task.list");
  const dir = tempDir();
  const env = isolatedEnv();
  const init = await hcp(["init", "--from-manifest", fixture("manifests/taskr.json"), "--out", join(dir, "packs", "taskr"), "--quiet"], { env });
  assert.equal(init.code, 0, init.stderr);
  const described = await hcp(["describe", "./packs/taskr", "task.list"], { env, cwd: dir });
  assert.equal(described.code, 0, described.stderr);
  assert.equal(shown[1], described.stdout, "docs/packs.md: paste the output of hcp describe ./packs/taskr task.list");
});

test("hcp describe names the program a wrap pack runs in place of the runs: line's first word: an absolute path, one relative to the pack folder", async () => {
  const dir = tempDir();
  const env = isolatedEnv();
  for (const [bin, shown] of [
    ["/opt/taskr/bin/taskr-cli", "program: /opt/taskr/bin/taskr-cli (wrap.bin), run in place of the first word of each runs: line\n"],
    ["./bin/taskr-cli", "program: ./bin/taskr-cli (wrap.bin, relative to the pack folder), run in place of the first word of each runs: line\n"],
  ] as const) {
    const pack = join(dir, bin.replaceAll("/", "_"));
    const init = await hcp(["init", "--from-manifest", fixture("manifests/taskr.json"), "--bin", bin, "--out", pack, "--quiet"], { env });
    assert.equal(init.code, 0, init.stderr);
    const described = await hcp(["describe", pack, "task.list"], { env });
    const where = "runs in: the folder hcp is started in, or --cwd of hcp serve and hcp exec (policy.json sets no cwd)\n";
    assert.ok(described.stdout.startsWith(`taskr (pack taskr)\n${shown}${where}\ntask.list (read)`), described.stdout);
    assert.match(described.stdout, /\n {2}runs: taskr task list /);
    const json = await hcp(["describe", pack, "task.list", "--json"], { env });
    assert.deepEqual(Object.keys(JSON.parse(json.stdout) as object), ["pack", "name", "verbs"], "--json keeps its schema: the program is surface.json's wrap.bin");
  }
});

test("an API pack whose document names no absolute server: hcp init and hcp validate say where the base URL goes, in policy.json's own form; set so, the warning is gone", async () => {
  const dir = tempDir();
  const env = isolatedEnv();
  const doc = join(dir, "relative.yaml");
  writeFileSync(doc, readFileSync(fixture("openapi/notes.yaml"), "utf8").replace("url: http://127.0.0.1:{port}/v1", "url: /v1"));
  const pack = join(dir, "pack");
  const init = await hcp(["init", "--from-openapi", doc, "--out", pack], { env });
  assert.equal(init.code, 0, init.stderr);
  const form = 'give the API\'s base URL in policy.json: "openapi": {"base_url": "https://…"}';
  assert.ok(init.stderr.includes(`note: the document names no absolute server URL: ${form}\n`), init.stderr);
  const validated = await hcp(["validate", pack], { env });
  assert.equal(validated.code, 0, "a warning: the pack loads");
  assert.ok(validated.stdout.includes(`policy.json: openapi.base_url: policy: no verb of this pack can run: the first server of ${join(pack, "openapi.yaml")} is not an absolute URL ("/v1"): ${form}\n`), validated.stdout);
  const policyFile = join(pack, "policy.json");
  writeFileSync(policyFile, JSON.stringify({ ...JSON.parse(readFileSync(policyFile, "utf8")), openapi: { base_url: "https://notes.example.com/v1" } }));
  const set = await hcp(["validate", pack], { env });
  assert.match(set.stdout, /0 errors, 0 warnings\n$/, set.stdout);
});

test("the policy.json example of docs/pack-format.md validates against the ledger surface it describes", async () => {
  const root = tempDir();
  copyFileSync(fixture("examples/hcp/ledger/surface.json"), join(root, "surface.json"));
  writeFileSync(join(root, "policy.json"), JSON.stringify(docJson("docs/pack-format.md", "## policy.json")));
  const r = await hcp(["validate", root], { env: isolatedEnv() });
  assert.equal(r.code, 0, r.stdout);
  assert.match(r.stdout, /0 errors/);
});

test("policy.json cwd: the child runs in that folder (relative to the pack; over hcp run, hcp's copy of it), the plan shows it; a missing folder is named", async () => {
  const env = isolatedEnv();
  const cwd = ["probe", "run", "cwd"];
  const verbs = { mark: { description: "Says its working folder.", cli: cwd }, note: { description: "The same, as a write (a plan to show).", cli: cwd } };
  const root = probePack("cwdpack", verbs, {}, { default: "read", verbs: { note: "write" }, cwd: "work" });
  const work = join(root, "work");
  const missing = await hcp(["run", root, "mark"], { env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, new RegExp(`working folder "${work}" is not a folder \\(policy\\.json cwd\\)`));
  assert.doesNotMatch(missing.stderr, /not found on PATH/);
  mkdirSync(work);
  const dry = await hcp(["run", root, "note", "--dry-run"], { env });
  assert.match(dry.stdout, new RegExp(`cwd: +${work}\\n`));
  assert.equal(dry.stdout.includes("/hcp/packs/"), false, "the plan names the pack's own folder");
  const ran = await hcp(["run", root, "mark"], { env });
  assert.equal(ran.code, 0, ran.stderr);
  // hcp run runs a trusted pack from its copy in the state directory (docs/credentials.md "Trusting a pack").
  assert.match(ran.stdout, new RegExp(`^${env["XDG_STATE_HOME"]}/hcp/packs/[0-9a-f]{64}/[0-9a-f]{64}/work\n$`), "the child ran in policy.json's cwd");
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "cwdpack", default: "read", cwd: 5 }));
  const bad = await hcp(["validate", root], { env });
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /policy\.json: cwd: policy: cwd must be a folder path/);
});

/** The text of a tool's answer. */
const answerText = (r: unknown) => (r as { content: { text: string }[] }).content[0]!.text;

test("--cwd: the verbs of a pack without policy.json cwd run where the operator says, over MCP, hcp exec and the server mcp-config prints; the agent and hcp describe tell the folder; policy.json's cwd still wins", async () => {
  const env = isolatedEnv();
  const where = { description: "Says its working folder.", cli: ["probe", "run", "cwd"] };
  const loose = probePack("loose", { where, note: { description: "The same, as a write (a plan to show).", cli: ["probe", "run", "cwd"] } }, {}, { default: "read", verbs: { note: "write" } });
  const placed = probePack("placed", { where }, {}, { default: "read", cwd: "." });
  const repo = tempDir("hcp-repo-");
  const started = tempDir("hcp-client-folder-");

  // An MCP client starts the server in a folder of its own; --cwd, not that folder, is where the verbs run.
  const { client } = await mcpClient([loose, placed], { env, cwd: started, args: ["--cwd", repo] });
  try {
    assert.equal(answerText(await client.callTool({ name: "loose_where", arguments: {} })), `${repo}\n`);
    assert.equal(answerText(await client.callTool({ name: "placed_where", arguments: {} })), `${placed}\n`, "policy.json's cwd wins over --cwd");
    assert.match(answerText(await client.callTool({ name: "loose_note", arguments: { dry_run: true } })), new RegExp(`cwd: +${repo}\n`), "the plan names the folder");
    const instructions = client.getInstructions() ?? "";
    assert.ok(instructions.includes(`- loose: Test pack. Read hcp://loose/HARNESS.md before using it. Its verbs run in the folder ${JSON.stringify(repo)}.`), instructions);
    assert.ok(instructions.includes(`Its verbs run in the folder ${JSON.stringify(placed)}.`), instructions);
  } finally {
    await client.close();
  }
  // Without --cwd, the folder the client chose, and the agent is told which.
  const plain = await mcpClient([loose], { env, cwd: started });
  try {
    assert.equal(answerText(await plain.client.callTool({ name: "loose_where", arguments: {} })), `${started}\n`);
    assert.ok((plain.client.getInstructions() ?? "").includes(`Its verbs run in the folder ${JSON.stringify(started)}.`));
  } finally {
    await plain.client.close();
  }

  // Started in / (where Claude Desktop starts its servers), the server says so on stderr and in the client's log; not
  // with --cwd.
  const logged: string[] = [];
  const atRoot = await mcpClient([loose, placed], { env, cwd: "/", onLog: (line) => logged.push(line) });
  const warning = 'the verbs of pack "loose" run in /, the folder this server was started in: choose theirs with --cwd FOLDER (or cwd in policy.json)';
  try {
    await atRoot.client.listTools();
    // The log notifications follow `initialized`; a hang guard far above their time.
    await eventually(() => logged.length > 0, 20_000);
    assert.ok(atRoot.stderr().includes(`Warning: ${warning}\n`), atRoot.stderr());
    // Nor does it know which folders the agent writes in: the operator is told how to name them.
    const unknown = "this server knows no folder as the agent's (it runs in /): name the folders the agent writes in with HCP_AGENT_FOLDERS (absolute, separated by :), so that programs on PATH, approvers and hcp's own files there are never used (a client that names its workspace, its MCP roots, names them too)";
    await eventually(() => logged.length > 1, 20_000);
    assert.deepEqual(logged, [warning, unknown]);
  } finally {
    await atRoot.client.close();
  }
  const chosen = await mcpClient([loose], { env, cwd: "/", args: ["--cwd", repo] });
  try {
    await chosen.client.listTools();
    assert.doesNotMatch(chosen.stderr(), /run in \//);
    assert.doesNotMatch(chosen.stderr(), /knows no folder/);
  } finally {
    await chosen.client.close();
  }

  const exec = await hcp(["exec", loose, "--cwd", repo], { env, cwd: started, stdin: `${JSON.stringify({ id: 1, pack: "loose", verb: "where", args: {} })}\n` });
  assert.equal(exec.code, 0, exec.stderr);
  assert.equal((JSON.parse(exec.stdout) as { result: { stdout: string } }).result.stdout, `${repo}\n`);

  // mcp-config carries --cwd, absolute; without it, it says where the verbs would run and how to choose.
  const config = await hcp(["mcp-config", loose, "--cwd", "."], { env, cwd: repo });
  assert.equal(config.code, 0, config.stderr);
  const entry = JSON.parse(config.stdout) as { command: string; args: string[] };
  assert.deepEqual(entry.args.slice(-2), ["--cwd", repo]);
  assert.doesNotMatch(config.stderr, /sets no cwd/);
  const served = new Client({ name: "t", version: "1" });
  await served.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: env as Record<string, string>, cwd: started, stderr: "pipe" }));
  try {
    assert.equal(answerText(await served.callTool({ name: "loose_where", arguments: {} })), `${repo}\n`);
  } finally {
    await served.close();
  }
  // hcp describe, which a person reads to decide what may run, says where too.
  assert.match((await hcp(["describe", loose], { env })).stdout, /\nruns in: the folder hcp is started in, or --cwd of hcp serve and hcp exec \(policy\.json sets no cwd\)\n/);
  assert.ok((await hcp(["describe", placed], { env })).stdout.includes(`\nruns in: ${placed} (policy.json cwd)\n`));
  const unset = await hcp(["mcp-config", loose, placed], { env });
  assert.match(unset.stderr, /pack "loose" sets no cwd in policy\.json: the verbs run in the folder the client starts the server in; to choose it, add --cwd FOLDER/);
  assert.doesNotMatch((await hcp(["mcp-config", placed], { env })).stderr, /cwd/);

  // A folder that is not there is refused at the start, not at every call.
  for (const args of [["serve", "--mcp", loose], ["exec", loose], ["mcp-config", loose]]) {
    const bad = await hcp([...args, "--cwd", join(repo, "gone")], { env, stdin: "" });
    assert.deepEqual([bad.code, bad.stdout], [1, ""], args.join(" "));
    assert.match(bad.stderr, new RegExp(`--cwd ".*gone": ${repo}/gone is not a folder`));
  }
});

test("a dry run says how to confirm in the caller's terms: --confirm for hcp run, the confirm argument for an MCP tool", async () => {
  const env = isolatedEnv();
  const cli = await hcp(["run", PROBE_PACK, "transfer", "--arg", "amount=3", "--arg", "payee=eve", "--dry-run", "--allow-write"], { env });
  const cliId = /plan_id: (\S+)/.exec(cli.stdout)![1]!;
  assert.match(cli.stdout, new RegExp(`then run it again with --confirm ${cliId} \\(once`));
  assert.doesNotMatch(cli.stdout, /runs only with --allow-write/);
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

test("a dry run of a write where writes are not allowed says so: hcp run names --allow-write, an MCP server says it refuses it, approved or not", async () => {
  const env = isolatedEnv();
  const cli = await hcp(["run", PROBE_PACK, "transfer", "--arg", "amount=3", "--arg", "payee=eve", "--dry-run"], { env });
  assert.equal(cli.code, 0, cli.stderr);
  const cliId = /plan_id: (\S+)/.exec(cli.stdout)![1]!;
  assert.match(cli.stdout, /\n {2}it writes: it runs only with --allow-write\n/);
  assert.match(cli.stdout, new RegExp(`then run it again with --allow-write --confirm ${cliId} \\(once`));
  const refused = await hcp(["run", PROBE_PACK, "transfer", "--arg", "amount=3", "--arg", "payee=eve", "--confirm", cliId], { env });
  assert.equal(refused.code, 4);
  assert.match(refused.stderr, /writes, and writes are not allowed: add --allow-write to hcp run \(or to the hcp exec or hcp serve command that serves it\); nothing was run/);
  const { client } = await mcpClient([PROBE_PACK], { env });
  try {
    const r = (await client.callTool({ name: "hcp-probe_transfer", arguments: { amount: "3", payee: "eve", dry_run: true } })) as { content: { text: string }[] };
    assert.match(r.content[0]!.text, /this server was started without --allow-write: it is refused, approved or not, until a person restarts the server with --allow-write/);
    // The refusal of the write itself tells the agent who can allow it, not to add a flag it cannot add.
    const write = (await client.callTool({ name: "hcp-probe_transfer", arguments: { amount: "3", payee: "eve" } })) as { content: { text: string }[] };
    assert.equal(write.content[0]!.text, 'Error: write_not_allowed: verb "transfer" of pack "hcp-probe" writes, and this hcp serve was started without --allow-write, so writes are refused: only a person can restart it with --allow-write (tell them what you wanted to do); nothing was run');
  } finally {
    await client.close();
  }
  const exec = await hcp(["exec", PROBE_PACK], { env, stdin: `${JSON.stringify({ id: 1, pack: "hcp-probe", verb: "transfer", args: { amount: "3", payee: "eve" } })}\n` });
  assert.match(exec.stdout, /"message":"verb \\"transfer\\" of pack \\"hcp-probe\\" writes, and this hcp exec was started without --allow-write, so writes are refused: only a person can restart it/);
});

/** A pack whose one verb prints the TOK_TOKEN credential of family "tok" (masked, as every credential). */
function tokenPack(): string {
  return probePack(
    "tokpack",
    { token: { description: "Prints its token.", cli: ["probe", "run", "env:TOK_TOKEN"] } },
    { binding: { hub: "local-credential", family: "tok" } },
    { default: "read", credentials: ["TOK_TOKEN"] },
  );
}

test("a missing credential names the hcp credentials set command that stores it; run as written, the verb then runs", async () => {
  const env = isolatedEnv();
  const root = await trustPack(tokenPack(), env);
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

test("an API pack's missing credential names the command with --scheme and the file's openapi entry; run as written, the request carries it", async () => {
  const api = await notesApi();
  try {
    const root = openapiPack({ doc: "notes.yaml", verbs: { whoami: { description: "Who." } }, policy: { credentials: ["bearerAuth"], openapi: { base_url: `${api.origin}/v1` } } });
    const env = { ...isolatedEnv(), HCP_CREDENTIALS: join(tempDir(), "credentials.json") };
    await trustPack(root, env);
    const missing = await hcp(["run", root, "whoami"], { env });
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /store it with hcp credentials set notes bearerAuth --scheme \(it asks for the value\), or write the entry yourself \(the file mode 0600\) as \{"notes": \{"openapi": \{"bearerAuth": "value"\}\}\}/);
    const command = /store it with hcp (credentials set \S+ \S+ --scheme)/.exec(missing.stderr)![1]!.split(" ");
    const set = await hcp(command, { env, stdin: "tok-first-hour-77\n" });
    assert.equal(set.code, 0, set.stderr);
    const ran = await hcp(["run", root, "whoami"], { env });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(api.requests.at(-1)?.headers.authorization, "Bearer tok-first-hour-77");
    assert.equal(api.requests.length, 1, "nothing was sent without the credential");
  } finally {
    await api.close();
  }
});

/** An OpenAPI document whose one write takes a JSON body with nested fields. */
const NOTES_API = {
  openapi: "3.0.3",
  info: { title: "Notes API", version: "1", description: "A small notes service" },
  servers: [{ url: "https://notes.example.com/v1" }],
  paths: {
    "/notes": {
      post: {
        operationId: "createNote",
        summary: "Create a note",
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["text"],
                properties: {
                  text: { type: "string", description: "What the note says" },
                  tags: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string" } } } },
                },
              },
            },
          },
        },
        responses: { "201": { description: "created" } },
      },
    },
  },
};

/** A pack made by hcp init from NOTES_API; its folder. */
async function notesApiPack(): Promise<string> {
  const dir = tempDir();
  writeFileSync(join(dir, "openapi.json"), JSON.stringify(NOTES_API));
  const r = await hcp(["init", "--from-openapi", join(dir, "openapi.json"), "--out", join(dir, "pack")], { env: isolatedEnv() });
  assert.equal(r.code, 0, r.stderr);
  return join(dir, "pack");
}

test("HARNESS.md of an API pack: its name said once, and the fields of a request body listed, so a first call can be right", async () => {
  const pack = await notesApiPack();
  const harness = readFileSync(join(pack, "HARNESS.md"), "utf8");
  assert.doesNotMatch(harness, /API API/);
  assert.match(harness, /^description: 'Use the Notes API \(A small notes service\) through its hcp pack/m);
  assert.match(harness, /This pack calls the Notes API over HTTP for you\./);
  assert.ok(
    harness.includes(
      [
        "  - `body` (object, required): The request body (application/json).",
        "    - `text` (string, required): What the note says",
        "    - `tags` (array of objects, optional)",
        "      - `name` (string, required)",
      ].join("\n"),
    ),
    harness,
  );
});

test("HARNESS.md names each argument's type as hcp describe does (string|null, no misspelt plural); describe shows each API verb's request", async () => {
  const dir = tempDir();
  const env = isolatedEnv();
  const init = await hcp(["init", "--from-openapi", fixture("openapi/notes.yaml"), "--out", join(dir, "pack")], { env });
  assert.equal(init.code, 0, init.stderr);
  const harness = readFileSync(join(dir, "pack", "HARNESS.md"), "utf8");
  assert.match(harness, /\n {2}- `tag` \(string\|null, optional\)\n/);
  assert.match(harness, /\n {6}- `replies` \(array of values, optional\)\n/);
  assert.doesNotMatch(harness, /valuess|\(any, /);
  assert.match(harness, /### `notes.list` \(read, needs credentials\)\n\nList notes\.\n\n- Tool: `notes_notes_list`\n- Arguments:\n[^#]*- Runs: `GET \/notes`\n/, "HARNESS.md shows the request of a verb bound by its operationId");
  const described = await hcp(["describe", join(dir, "pack"), "notes.list"], { env });
  assert.match(described.stdout, /\n {4}tag \(string\|null, optional\)\n/);
  assert.match(described.stdout, /\n {2}runs: GET \/notes\n/, "a verb bound by its operationId shows its request");
  const json = await hcp(["describe", join(dir, "pack"), "get-note", "--json"], { env });
  assert.deepEqual((JSON.parse(json.stdout) as { verbs: { argv_template: string[] }[] }).verbs[0]!.argv_template, ["GET", "/notes/{id}"]);
});

test("a folder of packs given where one pack is wanted (run, describe, meta, skill) is named as such, with its packs, exit 1; a path that does not exist, exit 5", async () => {
  const dir = tempDir();
  cpSync(fixture("examples/hcp/ledger"), join(dir, "ledger"), { recursive: true });
  cpSync(PROBE_PACK, join(dir, "probe"), { recursive: true });
  const env = isolatedEnv();
  for (const args of [["run", dir, "setup.status"], ["describe", dir], ["meta", dir], ["skill", dir]]) {
    const r = await hcp(args, { env });
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    assert.equal(r.stderr, `Error: ${dir} is a folder of packs; give one of them: ${join(dir, "ledger")}, ${join(dir, "probe")}\n`, args[0]);
  }
  const one = await hcp(["describe", join(dir, "ledger")], { env });
  assert.equal(one.code, 0, one.stderr);
  const none = await hcp(["run", join(dir, "ledgr"), "setup.status"], { env });
  assert.equal(none.code, 5, "a mistyped pack folder is not found");
  assert.equal(none.stderr, `Error: no pack at ${join(dir, "ledgr")}: it does not exist (a pack is a folder with a surface.json)\n`);
});

test("hcp init --from-exe on a program that is no rungrad CLI says so (exit 2), not what a JSON reader makes of its output, and where writing its pack by hand is shown; it writes nothing", async () => {
  const dir = tempDir();
  const env = isolatedEnv();
  for (const program of ["/bin/true", "/bin/echo"]) {
    const r = await hcp(["init", "--from-exe", program, "--out", join(dir, "pack")], { env });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stderr,
      `Error: ${program} __rungrad_manifest: printed no manifest JSON (is it a CLI built on rungrad? Such a CLI prints its manifest for this hidden command); ` +
        `for any other CLI, write its pack by hand: docs/packs.md, "Writing a pack by hand, for any other CLI"\n`,
    );
    assert.equal(existsSync(join(dir, "pack")), false);
  }
  assert.match(readFileSync(join(REPO, "docs/packs.md"), "utf8"), /^## Writing a pack by hand, for any other CLI$/m, "the section the error names");
});

test("a mistyped verb is answered with the verbs the caller may use, never a denied one", async () => {
  const env = isolatedEnv();
  const root = probePack(
    "typos",
    { "item.list": { description: "Lists.", cli: ["probe", "list"] }, "item.get": { description: "Gets.", cli: ["probe", "get"] }, secret: { description: "Denied.", cli: ["probe", "secret"] } },
    {},
    { default: "read", verbs: { secret: "deny" } },
  );
  const r = await hcp(["run", root, "item.lst"], { env });
  assert.deepEqual([r.code, r.stderr], [5, 'Error: pack "typos" has no verb "item.lst" (verbs: item.list, item.get)\n']);
  const exec = await hcp(["exec", root], { env, stdin: '{"id": 1, "pack": "typos", "verb": "item.lst", "args": {}}\n' });
  assert.match(exec.stdout, /"code":"unknown_verb","message":"pack \\"typos\\" has no verb \\"item.lst\\" \(verbs: item.list, item.get\)"/);
});

test("in a pack of many verbs, a mistyped or missing verb is answered in one line: the closest verbs the caller may use (never a denied one) and how many there are", async () => {
  const env = isolatedEnv();
  const verbs: Record<string, { description: string; cli: string[] }> = {};
  for (const key of ["repo.get", "repo.list", "repo.delete", "issue.create"]) verbs[key] = { description: "A verb.", cli: ["probe", key] };
  for (let i = 0; i < 36; i++) verbs[`filler.v${String(i).padStart(2, "0")}`] = { description: "A filler.", cli: ["probe", "filler"] };
  const root = probePack("many", verbs, {}, { default: "read", verbs: { "repo.delete": "deny" } });
  const hint = (closest: string) => `(${closest}39 verbs in all; hcp describe ${root} lists them)`;

  const typo = await hcp(["run", root, "repo_gte"], { env });
  assert.deepEqual([typo.code, typo.stderr], [5, `Error: pack "many" has no verb "repo_gte" ${hint("closest: repo.get; ")}\n`]);
  const words = await hcp(["run", root, "issue-create"], { env });
  assert.deepEqual([words.code, words.stderr], [5, `Error: pack "many" has no verb "issue-create" ${hint("closest: issue.create; ")}\n`]);
  // The denied verb is the only one close, and is not named.
  const denied = await hcp(["run", root, "repo.delet"], { env });
  assert.deepEqual([denied.code, denied.stderr], [5, `Error: pack "many" has no verb "repo.delet" ${hint("")}\n`]);
  const far = await hcp(["exec", root], { env, stdin: '{"id": 1, "pack": "many", "verb": "zzz", "args": {}}\n' });
  assert.match(far.stdout, /"message":"pack \\"many\\" has no verb \\"zzz\\" \(39 verbs in all; hcp describe [^"]+ lists them\)"/);

  const none = await hcp(["run", root], { env });
  assert.deepEqual([none.code, none.stderr], [1, `Error: a VERB (or -- SUBCOMMAND… for a pass-through) is required (39 verbs in all; hcp describe ${root} shows their arguments)\n`]);
  // hcp describe is a person's: it names every verb, the denied one too.
  const described = await hcp(["describe", root, "repo.delet"], { env });
  assert.equal(described.stderr, `Error: pack "many" has no verb "repo.delet" (closest: repo.delete; 40 verbs in all; hcp describe ${root} lists them)\n`);
});

test("hcp init says when the pack's program would not be found when a verb runs, and the run's error says what to do", async () => {
  const env = isolatedEnv();
  const dir = tempDir();
  const manifest = fixture("manifests/taskr.json");
  const onPath = await hcp(["init", "--from-manifest", manifest, "--out", join(dir, "a")], { env: { ...env, PATH: "/nonexistent" } });
  assert.equal(onPath.code, 0, onPath.stderr);
  assert.match(onPath.stderr, /note: wrap\.bin "taskr" is not on PATH now, and hcp looks it up there each time a verb runs: put it on PATH, or give its path with --bin/);
  const relative = await hcp(["init", "--from-manifest", manifest, "--bin", "./bin/taskr", "--out", join(dir, "b")], { env });
  assert.match(relative.stderr, new RegExp(`note: wrap\\.bin "\\./bin/taskr" is relative to the pack folder, and there is no ${join(dir, "b", "bin", "taskr")}`));
  const absolute = await hcp(["init", "--from-manifest", manifest, "--bin", process.execPath, "--out", join(dir, "c")], { env });
  assert.doesNotMatch(absolute.stderr, /wrap\.bin/);
  writeFileSync(env["HCP_CREDENTIALS"]!, JSON.stringify({ taskr: { env: { TASKR_TOKEN: "taskr-token-value" } } }), { mode: 0o600 });
  await trustPack(join(dir, "a"), env);
  const run = await hcp(["run", join(dir, "a"), "version"], { env: { ...env, PATH: "/nonexistent" } });
  assert.equal(run.code, 5);
  assert.match(run.stderr, /program "taskr" was not found on PATH: put it on PATH, or write its path in the pack's surface\.json \(wrap\.bin/);
});

test("hcp mcp-config carries HCP_CREDENTIALS (made absolute): the client, which starts the server without it, gets the credential", async () => {
  const env = isolatedEnv();
  const dir = tempDir();
  writeFileSync(join(dir, "creds.json"), JSON.stringify({ tok: { env: { TOK_TOKEN: "tok-from-the-shell" } } }), { mode: 0o600 });
  const root = tokenPack();
  const r = await hcp(["mcp-config", root, "--client", "claude"], { env: { ...env, HCP_CREDENTIALS: "creds.json" }, cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const entry = (JSON.parse(r.stdout) as { mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }> }).mcpServers["hcp-tokpack"]!;
  // With the other places of this shell (hcp-mcp-config.test shows what they are for).
  const places = { HCP_AUDIT: env["HCP_AUDIT"]!, XDG_CONFIG_HOME: env["XDG_CONFIG_HOME"]!, XDG_STATE_HOME: env["XDG_STATE_HOME"]! };
  assert.deepEqual(entry.env, { HCP_CREDENTIALS: join(dir, "creds.json"), ...places });
  const codex = await hcp(["mcp-config", root, "--client", "codex"], { env: { ...env, HCP_CREDENTIALS: join(dir, "creds.json") } });
  const table = Object.entries({ HCP_CREDENTIALS: join(dir, "creds.json"), ...places }).map(([k, v]) => `${k} = ${JSON.stringify(v)}`);
  assert.ok(codex.stdout.endsWith(`env = { ${table.join(", ")} }\n`), codex.stdout);
  // The client's own environment has no HCP_CREDENTIALS; the entry's env is all the server gets of it.
  const clientEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (k !== "HCP_CREDENTIALS" && v !== undefined) clientEnv[k] = v;
  const client = new Client({ name: "first-steps", version: "1" });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, env: { ...clientEnv, ...entry.env }, cwd: tempDir(), stderr: "pipe" }));
  try {
    const call = (await client.callTool({ name: "tokpack_token", arguments: {} })) as { isError?: boolean; content: { text: string }[] };
    assert.equal(call.isError, undefined, call.content[0]!.text);
    assert.equal(call.content[0]!.text, "***\n");
  } finally {
    await client.close();
  }
  const without = await hcp(["mcp-config", root, "--client", "json"], { env: clientEnv });
  assert.deepEqual((JSON.parse(without.stdout) as { env?: unknown }).env, places);
});

test("hcp skill on a wrong path says there is no pack there (exit 5, not found), not that HARNESS.md is missing; a folder without surface.json names it (exit 1)", async () => {
  const missing = join(tempDir(), "nope");
  const r = await hcp(["skill", missing], { env: isolatedEnv() });
  assert.deepEqual([r.code, r.stdout], [5, ""]);
  assert.equal(r.stderr, `Error: no pack at ${missing}: it does not exist (a pack is a folder with a surface.json)\n`);
  const empty = tempDir();
  const e = await hcp(["skill", empty], { env: isolatedEnv() });
  assert.deepEqual([e.code, e.stdout], [1, ""]);
  assert.equal(e.stderr, `Error: pack at ${empty} has validation errors: surface.json: io: cannot read surface.json: no such file (see hcp validate ${empty})\n`);
});

test("an OpenAPI document that is not YAML is named with its position once, without the parser's trailing colon", async () => {
  const dir = tempDir();
  writeFileSync(join(dir, "bad.yaml"), "openapi: 3.0.0\ninfo: {title: x\n");
  const r = await hcp(["init", "--from-openapi", join(dir, "bad.yaml"), "--out", join(dir, "pack")], { env: isolatedEnv() });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^Error: the OpenAPI document \S+bad\.yaml is not valid YAML at line 3, column 1: [^\n]*[^:\n]\n$/);
  assert.doesNotMatch(r.stderr, /column 1: .*at line/);
});

test("hcp init ends with the next steps: store the credential (as the pack reads it), describe, trust (hcp run needs it), mcp-config; --quiet keeps them out", async () => {
  const env = isolatedEnv();
  const dir = tempDir();
  const out = join(dir, "my packs", "taskr");
  const r = await hcp(["init", "--from-manifest", fixture("manifests/taskr.json"), "--bin", process.execPath, "--out", out], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(
    r.stderr.endsWith(
      [
        "next:",
        "  hcp credentials set taskr TASKR_TOKEN   # store the credential its verbs need (it asks for the value)",
        `  hcp describe '${out}'   # each verb's arguments and policy; edit ${join(out, "policy.json")} to change what may run`,
        `  hcp trust '${out}'   # you, at your terminal: review what it runs, then y; hcp run runs only packs you trusted`,
        `  hcp mcp-config '${out}' --client claude   # the entry that serves it to your MCP client (or vscode, cursor, codex)`,
        "",
      ].join("\n"),
    ),
    r.stderr,
  );
  const quiet = await hcp(["init", "--from-manifest", fixture("manifests/taskr.json"), "--bin", process.execPath, "--out", join(dir, "q"), "--quiet"], { env });
  assert.doesNotMatch(quiet.stderr, /next:/);
  const api = await hcp(["init", "--from-openapi", fixture("openapi/notes.json"), "--out", join(dir, "api")], { env });
  assert.equal(api.code, 0, api.stderr);
  assert.match(api.stderr, /^ {2}hcp credentials set \S+ \S+ --scheme {3}# store the credential/m);
});

test("the hcp credentials set command an error shows is quoted for the shell when the family needs it", async () => {
  const root = probePack(
    "quoted",
    { token: { description: "Prints its token.", cli: ["probe", "run", "env:TOK_TOKEN"] } },
    { binding: { hub: "local-credential", family: "my tok; rm -rf ~" } },
    { default: "read", credentials: ["TOK_TOKEN"] },
  );
  const env = isolatedEnv();
  await trustPack(root, env);
  const r = await hcp(["run", root, "token"], { env });
  assert.equal(r.code, 3);
  assert.ok(r.stderr.includes("store it with hcp credentials set 'my tok; rm -rf ~' TOK_TOKEN (it asks"), r.stderr);
});

test("hcp describe lists the fields of an object argument too, in text and in --json", async () => {
  const pack = await notesApiPack();
  const env = isolatedEnv();
  const text = await hcp(["describe", pack, "create-note"], { env });
  assert.ok(
    text.stdout.endsWith(
      [
        "  arguments:",
        "    body (object, required): The request body (application/json).",
        "      text (string, required): What the note says",
        "      tags (array of object, optional)",
        "        name (string, required)",
        "",
      ].join("\n"),
    ),
    text.stdout,
  );
  const json = await hcp(["describe", pack, "create-note", "--json"], { env });
  const body = (JSON.parse(json.stdout) as { verbs: { arguments: { name: string; fields?: unknown }[] }[] }).verbs[0]!.arguments[0]!;
  assert.deepEqual(body.fields, [
    { name: "text", type: "string", required: true, description: "What the note says" },
    { name: "tags", type: "array of object", required: false, fields: [{ name: "name", type: "string", required: true }] },
  ]);
});

test("hcp run's operands, mistaken, are named in its own terms: no pack, no verb (the verbs it may use), an argument without --arg; nothing runs", async () => {
  const env = isolatedEnv();
  const ran = witness();
  const root = probePack(
    "operands",
    { "item.get": { description: "Gets.", cli: ["probe", "run", `pid:${ran.path}`], args: { type: "object", properties: { name: { type: "string" } } } }, secret: { description: "Denied.", cli: ["probe", "secret"] } },
    {},
    { default: "read", verbs: { secret: "deny" } },
  );
  const none = await hcp(["run"], { env });
  assert.deepEqual([none.code, none.stderr], [1, "Error: a PACK folder is required: hcp run PACK VERB [--arg NAME=VALUE]… (hcp list PACK names its verbs)\n"]);
  const noVerb = await hcp(["run", root], { env });
  assert.deepEqual(
    [noVerb.code, noVerb.stderr],
    [1, `Error: a VERB (or -- SUBCOMMAND… for a pass-through) is required (verbs: item.get; hcp describe ${root} shows their arguments)\n`],
  );
  const unnamed = await hcp(["run", root, "item.get", "name=alpha"], { env });
  assert.deepEqual(
    [unnamed.code, unnamed.stderr],
    [1, 'Error: unexpected "name=alpha" after the verb: give a verb\'s arguments with --arg (--arg name=alpha), or all of them as one JSON object with --args\n'],
  );
  const json = await hcp(["run", root, "item.get", "--json", "name:=1"], { env });
  assert.equal(json.code, 1);
  assert.equal(JSON.parse(json.stderr).code, "usage");
  assert.match(JSON.parse(json.stderr).error, /with --arg \(--arg name:=1\)/);
  const bare = await hcp(["run", root, "item.get", "alpha"], { env });
  assert.equal(bare.code, 1);
  assert.equal(bare.stderr, `Error: unexpected "alpha" after the verb: a verb's arguments are given by name, --arg NAME=VALUE (hcp describe ${root} item.get lists them); a pass-through subcommand goes after --, without a verb\n`);
  assert.equal(ran.ran(), false, "no mistaken command line ran the program");
  // Run as the message says, the verb runs.
  const right = await hcp(["run", root, "item.get", "--arg", "name=alpha"], { env });
  assert.equal(right.code, 0, right.stderr);
  assert.equal(ran.ran(), true);
});

test("hcp init --from-exe NAME not on PATH says a bare name is looked up on PATH and gives the ./NAME to use; run as written, it works", async () => {
  const env = isolatedEnv();
  const out = join(tempDir(), "pack");
  const cwd = fixture("exe");
  const bare = await hcp(["init", "--from-exe", "prints-manifest.mjs", "--out", out], { env, cwd });
  assert.equal(bare.code, 1);
  assert.equal(
    bare.stderr,
    "Error: run prints-manifest.mjs: not found (a name without a / is looked up on PATH; for a program in this folder give its path: ./prints-manifest.mjs)\n",
  );
  assert.equal(existsSync(out), false);
  const written = await hcp(["init", "--from-exe", "./prints-manifest.mjs", "--out", out], { env, cwd });
  assert.equal(written.code, 0, written.stderr);
  assert.equal(existsSync(join(out, "surface.json")), true);
});

test("a mistyped pack path given to list, exec, serve or mcp-config is not found (exit 5), as for run; not a pack with validation errors", async () => {
  const env = isolatedEnv();
  const typo = join(tempDir(), "ledgr");
  for (const args of [["list", typo], ["exec", typo], ["serve", "--mcp", typo], ["mcp-config", typo], ["list", PROBE_PACK, typo]]) {
    const r = await hcp(args, { env, stdin: "" });
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [5, "", `Error: no pack at ${typo}: it does not exist (a pack is a folder with a surface.json; a folder of packs holds such folders)\n`],
      args.join(" "),
    );
  }
});
