#!/usr/bin/env node
// The `hcp` program, built on our own framework: HCP/1.1 harness packs — validate, meta, init, skill, list, and the run / exec / serve transports.

import { NO_COLOR_FLAG } from "./colour.js";
import { App, OutputMode, type CommandSpec, type Context, type Handler } from "../framework/index.js";
import { FROM_EXE } from "./flags.js";
import { mapped, maskedMessage } from "./hcp/errors.js";
import { ALLOW_WRITE, APPROVER_FLAGS, AUDIT, CONTROL_PLANE, CWD, RUN_APPROVER_ARG_HINT, RUN_APPROVER_FLAGS, SERVED_FLAGS, STRICT } from "./hcp/flags.js";
import { PACKAGE_VERSION } from "./version.js";
import { PERSON_APPROVES, WRITES, passesEnv } from "../pack/person-gate.js";
import { PLACE_VARIABLES } from "../runtime/places.js";
import { shellWord } from "../shell-word.js";

const HUMAN_JSON = [OutputMode.Human, OutputMode.JSON];

/** A handler loaded on first use (packs, ajv and the MCP SDK stay out of start-up), its failures mapped once. */
function lazy<M>(load: () => Promise<M>, pick: (m: M) => (ctx: Context) => Promise<void>): Handler {
  return mapped(async (ctx) => pick(await load())(ctx));
}

const runCommand: CommandSpec = {
  use: "run <pack> [verb] [-- subcommand...]",
  short: "Run one verb of a pack (or -- SUBCOMMAND… for its pass-through) and exit with the child's exit code",
  long: [
    "Run one verb of a pack (or -- SUBCOMMAND… for its pass-through) and exit with the child's exit code.",
    "",
    "A verb's arguments are given by name, --arg NAME=VALUE (hcp run PACK VERB --help lists them).",
    "At a terminal, hcp run asks before it runs a plan a person must approve, or a pack no person has trusted.",
    "--no-prompt, or HCP_NO_PROMPT in its environment (set, not empty or 0), asks nothing: an operator sets it where",
    "an agent's commands run on a terminal the agent types into, so that the agent cannot answer for the person.",
    "HCP_AGENT_FOLDERS (absolute folders, separated by :) names the folders the agent writes in besides the one hcp run",
    "runs in, which the agent chooses: programs on PATH, approvers and hcp's own files there are never used.",
  ].join("\n"),
  examples: [
    "hcp run ./rgref item.list",
    "hcp run ./rgref item.get --arg name=alpha --json",
    "hcp run ./rgref item.delete --arg name=alpha --allow-write --dry-run",
    "hcp run ./rgref item.delete --args '{\"name\": \"alpha\"}' --allow-write --confirm PLAN_ID",
    "hcp run ./rgref item.delete --arg name=alpha --allow-write --approver ~/bin/approve-in-ops",
  ],
  related: ["hcp trust", "hcp describe", "hcp list", "hcp exec", "hcp serve"],
  outputModes: HUMAN_JSON,
  mutates: true,
  globals: ["no-prompt"],
  args: "any", // counted by run.ts, whose errors say what goes where (a PACK, one VERB, --arg for its arguments)
  flags: [
    { name: "arg", usage: "An argument: NAME=VALUE (a string) or NAME:=JSON (any JSON value); repeatable", type: "stringArray" },
    { name: "args", usage: "The arguments as one JSON object (--arg entries win)", type: "string" },
    { name: "confirm", usage: "Run a confirm-gated verb under the plan_id of its dry run (approved by a person, or restated)", type: "string" },
    ALLOW_WRITE,
    CONTROL_PLANE,
    ...RUN_APPROVER_FLAGS,
    AUDIT,
  ],
  extensions: PERSON_APPROVES, // a pack made from hcp gates it behind a person (pack/person-gate.ts)
  // The likeliest mistake: a verb's argument given as a flag of its own (`--name alpha`), as the CLI would take it.
  unknownFlagHint: (flag) => (flag === "--approver-arg" ? RUN_APPROVER_ARG_HINT : `a verb's arguments are given as --arg NAME=VALUE: --arg ${flag.slice(2)}=…`),
  // `hcp run PACK VERB --help`: the verb's arguments, as hcp describe shows them (the run bundle leaves packs.js out;
  // hcp.cjs starts the whole of hcp for a help request).
  operandHelp: mapped(async (operands) => (await import("./hcp/packs.js")).runVerbHelp(operands)),
  run: lazy(() => import("./hcp/run.js"), (m) => m.runHandler),
};

const execCommand: CommandSpec = {
  use: "exec <packs...>",
  short: "Serve newline-delimited JSON requests {id, pack, verb, args, dry_run?, confirm?, stdin?} on stdin, one response line each",
  examples: ['echo \'{"id": 1, "pack": "ledger", "verb": "balance", "args": {}}\' | hcp exec ./ledger'],
  related: ["hcp run", "hcp serve"],
  outputModes: [OutputMode.JSON],
  args: { min: 1 },
  flags: [{ name: "concurrency", usage: "Requests running at once (1 to 1024)", type: "int", default: 8 }, ALLOW_WRITE, CONTROL_PLANE, STRICT, CWD, ...APPROVER_FLAGS, AUDIT],
  extensions: PERSON_APPROVES, // a pack made from hcp gates it behind a person (pack/person-gate.ts)
  run: lazy(() => import("./hcp/serve.js"), (m) => m.execHandler),
};

const serveCommand: CommandSpec = {
  use: "serve <packs...>",
  short: "Serve packs to agents: --mcp runs an MCP server on stdio, or over Streamable HTTP with --http",
  examples: [
    "hcp serve --mcp ./packs",
    "hcp serve --mcp ./ledger --allow-write",
    "hcp serve --mcp ./packs --read-only --exclude 'taskr_update*'",
    "hcp serve --mcp ./packs --http 0",
    "hcp serve --mcp ./packs --http 0.0.0.0:8080 --token-file /etc/hcp/token --allow-host mcp.internal",
    "hcp serve --mcp ./packs --http 8080 --stateful --allow-write",
  ],
  related: ["hcp exec", "hcp list", "hcp mcp-config"],
  outputModes: ["mcp"],
  args: { min: 1 },
  flags: [
    { name: "mcp", usage: "The MCP server (on stdio unless --http is given)", type: "bool" },
    { name: "http", usage: "Serve MCP over Streamable HTTP at /mcp on [HOST:]PORT (host 127.0.0.1 unless given; port 0 picks a free one)", type: "string" },
    { name: "token-file", usage: "With --http: a file only you can read (mode 600) holding the bearer token every request must carry (required off loopback)", type: "string" },
    { name: "stateful", usage: "With --http: keep sessions (needed to ask the person in the client to approve a plan); stateless otherwise", type: "bool" },
    { name: "max-sessions", usage: "With --stateful: sessions open at once (1 to 100000); an initialize past it gets 503", type: "int", default: 100 },
    { name: "idle-timeout", usage: "With --stateful: end a session after this many seconds with no request and no open stream (1 to 86400)", type: "int", default: 1800 },
    { name: "max-requests", usage: "With --http: requests answered at once (1 to 100000); past it a request gets 503 with Retry-After", type: "int", default: 256 },
    { name: "allow-host", usage: "With --http: also accept NAME (or NAME:PORT) in the Host and Origin headers, e.g. the name clients use to reach a 0.0.0.0 bind; repeatable", type: "stringArray" },
    ...SERVED_FLAGS,
  ],
  extensions: PERSON_APPROVES, // a pack made from hcp gates it behind a person (pack/person-gate.ts)
  run: lazy(() => import("./hcp/serve.js"), (m) => m.serveHandler),
};

const mcpConfigCommand: CommandSpec = {
  use: "mcp-config [packs...]",
  short: "Print the MCP client configuration that serves these packs (Claude Desktop and Claude Code, VS Code, Cursor, Codex), or reaches an hcp serve --http at --url, ready to paste",
  examples: [
    "hcp mcp-config ./packs --client claude",
    "hcp mcp-config --url https://mcp.example.com/mcp --token-env HCP_TOKEN --client cursor",
    "hcp mcp-config ./packs/taskr --client vscode --allow-write --exclude 'taskr_update'",
    "hcp mcp-config ./packs --client codex --allow-write --approver /usr/local/bin/approve-in-chat --approver-arg '#ops' --audit /var/log/hcp/audit.jsonl",
  ],
  related: ["hcp serve"],
  outputModes: HUMAN_JSON,
  globals: ["quiet"],
  flags: [
    { name: "client", usage: "The client: claude, vscode, cursor, codex or json", type: "string", default: "json" },
    { name: "name", usage: "The server's name in the client's configuration (default: hcp-<pack id>, or hcp)", type: "string" },
    { name: "url", usage: "Instead of packs: the URL of a server started with hcp serve --mcp --http, which the client reaches (the other flags are that server's)", type: "string" },
    { name: "token-env", usage: "With --url: the environment variable the client reads the server's bearer token from (the token itself is never written)", type: "string" },
    ...SERVED_FLAGS,
  ],
  run: lazy(() => import("./hcp/mcp-config.js"), (m) => m.mcpConfigHandler),
};

const approveCommand: CommandSpec = {
  use: "approve [plan_id]",
  short: "Approve a plan an agent is waiting on, as a person at a terminal (shows the plan, asks y/N); --list shows the pending ones",
  examples: ["hcp approve --list", "hcp approve hcp1.1767225600.AbCdEfGhIjKlMnOpQrStUv.WxYz0123456789abcdefgh"],
  related: ["hcp run", "hcp audit"],
  outputModes: HUMAN_JSON,
  globals: ["no-prompt"],
  args: { max: 1 },
  flags: [{ name: "list", usage: "List the plans waiting for a person's approval", type: "bool" }, AUDIT],
  run: lazy(() => import("./hcp/approve.js"), (m) => m.approveHandler),
};

const trustCommand: CommandSpec = {
  use: "trust [pack]",
  short: "Trust a pack, as a person at a terminal (shows what it runs and the credentials it reads, asks y/N): hcp run runs only trusted packs",
  examples: ["hcp trust ./packs/ledger", "hcp trust --list", "hcp trust --revoke ./packs/ledger"],
  related: ["hcp run", "hcp credentials"],
  outputModes: HUMAN_JSON,
  globals: ["no-prompt"],
  args: { max: 1 },
  flags: [
    { name: "list", usage: "List the trusted packs and whether each still matches what was trusted", type: "bool" },
    { name: "revoke", usage: "Take the trust of this pack away (no terminal needed)", type: "bool" },
  ],
  extensions: WRITES, // --revoke takes a person's trust away: a pack made from hcp makes it a write (pack/person-gate.ts)
  run: lazy(() => import("./hcp/trust.js"), (m) => m.trustHandler),
};

const auditCommand: CommandSpec = {
  use: "audit",
  short: "Show the audit log: every decision about a write or a confirm-gated verb",
  examples: ["hcp audit", "hcp audit --since 1h", "hcp audit --since 2026-12-01 --json"],
  related: ["hcp approve", "hcp run"],
  outputModes: HUMAN_JSON,
  args: "none",
  flags: [
    { name: "since", usage: "Only entries since D: a duration back from now (90s, 15m, 2h, 7d) or a date/time (2026-12-01, 2026-12-01T09:00:00Z)", type: "string" },
    AUDIT,
  ],
  run: lazy(() => import("./hcp/audit.js"), (m) => m.auditHandler),
};

const listCommand: CommandSpec = {
  use: "list <packs...>",
  short: "List packs, their verbs and effective policies",
  examples: ["hcp list ./packs", "hcp list ./ledger --allow-write --json"],
  related: ["hcp run", "hcp validate"],
  outputModes: HUMAN_JSON,
  args: { min: 1 },
  flags: [{ name: "allow-write", usage: "Show write verbs as runnable", type: "bool" }, STRICT],
  run: lazy(() => import("./hcp/packs.js"), (m) => m.listHandler),
};

const validateCommand: CommandSpec = {
  use: "validate <paths...>",
  short: "Validate packs: one line per issue and a summary; exit 1 when any pack has an error",
  examples: ["hcp validate ./ledger", "hcp validate ./packs --json"],
  related: ["hcp meta", "hcp init"],
  outputModes: HUMAN_JSON,
  args: { min: 1 },
  flags: [NO_COLOR_FLAG],
  run: lazy(() => import("./hcp/packs.js"), (m) => m.validateHandler),
};

const describeCommand: CommandSpec = {
  use: "describe <pack> [verb]",
  short: "Show each verb's arguments (name, type, required, description, choices, default), policy, approval and argv template",
  examples: ["hcp describe ./packs/taskr", "hcp describe ./packs/taskr task.list --json"],
  related: ["hcp list", "hcp run"],
  outputModes: HUMAN_JSON,
  args: { range: [1, 2] },
  run: lazy(() => import("./hcp/packs.js"), (m) => m.describeHandler),
};

const metaCommand: CommandSpec = {
  use: "meta <pack>",
  short: "Print a pack's derived HarnessPackMeta as StableJSON",
  examples: ["hcp meta ./ledger"],
  related: ["hcp validate"],
  outputModes: [OutputMode.JSON],
  args: { exact: 1 },
  run: lazy(() => import("./hcp/packs.js"), (m) => m.metaHandler),
};

const skillCommand: CommandSpec = {
  use: "skill <pack>",
  short: "Print a pack's HARNESS.md",
  examples: ["hcp skill ./ledger"],
  related: ["hcp meta"],
  outputModes: HUMAN_JSON,
  args: { exact: 1 },
  run: lazy(() => import("./hcp/packs.js"), (m) => m.skillHandler),
};

const initCommand: CommandSpec = {
  use: "init",
  short: "Write a pack from a rungrad manifest, a CLI built with cobra, or an OpenAPI document (surface.json, policy.json, HARNESS.md)",
  examples: [
    "hcp init --from-exe ./mytool --out ./packs/mytool",
    "hcp init --from-cobra kubectl --out ./packs/kubectl",
    "mytool __rungrad_manifest | hcp init --from-manifest - --out ./packs/mytool --dry-run",
    "hcp init --from-openapi ./openapi.yaml --out ./packs/myapi --id myapi",
    "hcp init --from-cobra kubectl --out ./packs/kubectl --force --keep-policy",
  ],
  related: ["hcp validate", "hcp trust", "rungrad agentmeta"],
  outputModes: HUMAN_JSON,
  mutates: true,
  globals: ["quiet"],
  args: "none",
  unknownOperandHint: (operand) => `the pack folder is given with --out: --out ${shellWord(operand)}`,
  flags: [
    { name: "from-manifest", usage: "Manifest file, or - for standard input", type: "string" },
    FROM_EXE,
    {
      name: "from-cobra",
      usage: "A CLI built with cobra (kubectl, docker, gh, helm…), read from its shell completion and each command's --help: one verb per command, writes approved by a person",
      type: "string",
    },
    { name: "from-openapi", usage: "An OpenAPI 3.0 or 3.1 document (JSON or YAML): a file, or an https (or loopback http) URL", type: "string" },
    { name: "bin", usage: "wrap.bin of the pack: an absolute path, a path relative to the pack folder, or a name looked up on PATH when a verb runs (default: the --from-exe or --from-cobra program, else the tool name)", type: "string" },
    { name: "credential-env", usage: "The variable holding the CLI's credential, when its commands require auth (default: <TOOL>_TOKEN); with --from-cobra, every verb gets it from the credential file (restic's RESTIC_PASSWORD)", type: "string" },
    { name: "out", usage: "The pack folder to write", type: "string", required: true },
    { name: "id", usage: "The pack id, the start of each MCP tool name (default: the tool name, or the document's title, in id form)", type: "string" },
    {
      name: "auth",
      usage: "For a document that declares no security: the scheme its API takes (bearer, basic, header:NAME or query:NAME, an API key there), added to the pack's copy so that its verbs send a stored credential",
      type: "string",
    },
    { name: "force", usage: "Write into a non-empty folder, replacing the pack files", type: "bool" },
    {
      name: "keep-policy",
      usage: "With --force, over a pack made before: keep its policy.json as it is (your edits), and write HARNESS.md to say what it does",
      type: "bool",
    },
  ],
  extensions: PERSON_APPROVES, // a pack made from hcp gates it behind a person (pack/person-gate.ts)
  run: lazy(() => import("./hcp/init.js"), (m) => m.initHandler),
};

const WHERE_FLAGS = [
  { name: "scheme", usage: "A security scheme's value for an openapi pack (the file's \"openapi\" section), not a variable (\"env\")", type: "bool" as const },
  { name: "keyring", usage: "The system keyring (service hcp:FAMILY) instead of the credential file", type: "bool" as const },
];

const credentialsCommand: CommandSpec = {
  use: "credentials",
  short: "Manage stored credentials: the credential file (hub local-credential) or the system keyring (hub keyring)",
  related: ["hcp run", "hcp init"],
  commands: [
    {
      use: "set <family> <name>",
      short: "Store a credential; the value is read from the terminal (not shown) or standard input, never from arguments",
      examples: ["hcp credentials set notes bearerAuth --scheme", "printf '%s' \"$TOKEN\" | hcp credentials set mytool MYTOOL_TOKEN --keyring"],
      outputModes: HUMAN_JSON,
      mutates: true,
      globals: ["no-prompt"],
      args: "any", // FAMILY NAME, counted by credentials.ts: a value given as an argument is refused without being echoed
      flags: WHERE_FLAGS,
      extensions: PERSON_APPROVES,
      run: lazy(() => import("./hcp/credentials.js"), (m) => m.setHandler),
    },
    {
      use: "get <family> <name>",
      short: "Show whether a credential is stored: masked (***) unless --reveal; exit 5 when there is none",
      examples: ["hcp credentials get notes bearerAuth --scheme"],
      outputModes: HUMAN_JSON,
      args: "any", // FAMILY NAME, counted by credentials.ts: a value given as an argument is refused without being echoed
      flags: [...WHERE_FLAGS, { name: "reveal", usage: "Print the value itself", type: "bool" }],
      extensions: PERSON_APPROVES,
      run: lazy(() => import("./hcp/credentials.js"), (m) => m.getHandler),
    },
    {
      use: "delete <family> <name>",
      short: "Delete a stored credential; exit 5 when there is none",
      examples: ["hcp credentials delete notes bearerAuth --scheme"],
      outputModes: HUMAN_JSON,
      mutates: true,
      args: "any", // FAMILY NAME, counted by credentials.ts: a value given as an argument is refused without being echoed
      flags: WHERE_FLAGS,
      extensions: PERSON_APPROVES,
      run: lazy(() => import("./hcp/credentials.js"), (m) => m.deleteHandler),
    },
  ],
};

export function newHcpApp(): App {
  return new App({
    name: "hcp",
    unknownSubcommand: "error",
    bareGroup: "usage",
    scopedGlobals: true,
    short: "HCP/1.1 harness packs: validate them, derive their metadata, generate them, and serve their verbs",
    version: PACKAGE_VERSION,
    // A pack made from hcp passes the places hcp reads to the hcp its verbs run (pack/person-gate.ts): approve --list,
    // audit and trust --list through it read the state, audit log and trust of the person serving it.
    extensions: passesEnv(PLACE_VARIABLES),
    maskError: maskedMessage,
  }).addCommand(approveCommand, auditCommand, credentialsCommand, describeCommand, execCommand, initCommand, listCommand, mcpConfigCommand, metaCommand, runCommand, serveCommand, skillCommand, trustCommand, validateCommand);
}

void newHcpApp().main();
