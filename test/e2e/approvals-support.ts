// Shared by the approval tests: a pack whose program appends a line to a witness file each time it
// really runs, an isolated state directory and audit log, and a real pseudo-terminal for a person.

import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { resolveProgram } from "../../src/runtime/resolve.js";
import { shellWord } from "../../src/shell-word.js";
import { fixture, run, type Run } from "./helpers.js";
import { HCP, hcp, mcpClient, tempDir, type McpOptions } from "../transports/support.js";

export const WITNESS_BIN = fixture("bin/witness.mjs");
export const APPROVER_BIN = fixture("bin/approver.mjs");
const PTY = fixture("bin/terminal.py");

const AMOUNT = { type: "object", properties: { amount: { type: "string" } }, required: ["amount"], additionalProperties: false };

/** The verbs of the bank pack: every kind of gate. */
const SURFACE = (id: string, agentEnv?: Record<string, string>, binding?: object) => ({
  id,
  name: "Bank",
  kind: "wrap",
  binding: binding ?? { mode: "local", hub: "none" },
  wrap: { bin: WITNESS_BIN, ...(agentEnv ? { agent_env: agentEnv } : {}) },
  verbs: {
    pay: { description: "Pay an amount (a person must approve).", cli: ["witness", "pay", "{{amount}}"], args: AMOUNT, policy: "write" },
    note: { description: "Write a note (the plan_id is restated).", cli: ["witness", "note", "{{amount}}"], args: AMOUNT, policy: "write" },
    peek: { description: "Read the vault (a person must approve).", cli: ["witness", "peek"], policy: "read" },
    touch: { description: "An ungated write.", cli: ["witness", "touch"], args: { type: "object" }, policy: "write" },
    look: { description: "A plain read.", cli: ["witness", "look"], policy: "read" },
  },
});

const POLICY = (id: string, ttl?: number) => ({
  surface_id: id,
  default: "deny",
  verbs: {
    pay: { policy: "write", confirm: true },
    note: { policy: "write", confirm: "plan" },
    peek: { policy: "read", confirm: true },
    touch: "write",
    look: "read",
  },
  env: ["WITNESS", "BANK_TARGET", "HCP_AUDIT"],
  ...(ttl !== undefined ? { limits: { approval_ttl_s: ttl } } : {}),
});

/** One real run, as the witness saw it. */
export interface Witnessed {
  argv: string[];
  stdin: string;
  target: string | null;
  /** Lines in the audit log when the program started. */
  audit_lines: number | null;
}

export interface BankOptions {
  id?: string;
  /** Seconds a plan_id lives. */
  ttl?: number;
  /** false: no policy.json; a string: policy.json as written. */
  policy?: false | string;
  agentEnv?: Record<string, string>;
  binding?: object;
  /** Extra environment variables of every hcp started. */
  env?: Record<string, string>;
  /** The --approver programs the person lists (XDG_CONFIG_HOME/hcp/approvers); APPROVER_BIN and `false` by default. */
  approvers?: string[];
}

export interface Bank {
  root: string;
  dir: string;
  witness: string;
  state: string;
  audit: string;
  env: NodeJS.ProcessEnv;
  /** The lines the witness wrote: one per real run. */
  runs(): Witnessed[];
  hcp(args: string[], more?: Parameters<typeof hcp>[1]): Promise<Run>;
  /** `hcp ARGS…` on a new pseudo-terminal (in folder `cwd`); PROMPT answered with ANSWER (no answer when PROMPT is ""). */
  onTerminal(args: string[], prompt: string, answer: string, seconds?: number, cwd?: string): Promise<Run>;
  /** `hcp approve ID` typed at a terminal (in folder `cwd`), answered `y` (or `answer`). */
  approve(id: string, answer?: string, cwd?: string): Promise<Run>;
  mcp(opts?: McpOptions): ReturnType<typeof mcpClient>;
}

/** Writes a pack root (surface.json, and policy.json unless `policy: false`). */
export function writeBank(root: string, opts: BankOptions = {}): void {
  const id = opts.id ?? "bank";
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "surface.json"), JSON.stringify(SURFACE(id, opts.agentEnv, opts.binding), null, 2));
  if (opts.policy !== false) writeFileSync(join(root, "policy.json"), opts.policy ?? JSON.stringify(POLICY(id, opts.ttl), null, 2));
  writeFileSync(join(root, "HARNESS.md"), `---\nname: ${id}\ndescription: A bank for approval tests.\n---\n\nBank.\n`);
}

/** A bank pack in a fresh folder with its own witness, state directory and audit log. */
export function bank(opts: BankOptions = {}): Bank {
  const dir = tempDir("hcp-approvals-");
  const root = join(dir, "pack");
  writeBank(root, opts);
  const witness = join(dir, "witness.log");
  const state = join(dir, "state");
  const audit = join(dir, "audit.jsonl");
  const config = trustApprovers(dir, opts.approvers ?? [APPROVER_BIN, "false"]);
  // Nothing of the real user's: home, configuration, credentials, state and audit log are the bank's own.
  const home = { HOME: dir, XDG_CONFIG_HOME: config, HCP_CREDENTIALS: join(dir, "credentials.json") };
  const env: NodeJS.ProcessEnv = { ...process.env, ...home, XDG_STATE_HOME: state, HCP_AUDIT: audit, WITNESS: witness, BANK_TARGET: "sandbox", ...opts.env };
  const self: Bank = {
    root,
    dir,
    witness,
    state,
    audit,
    env,
    runs: () =>
      existsSync(witness)
        ? readFileSync(witness, "utf8")
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l) as Witnessed)
        : [],
    hcp: (args, more) => hcp(args, { env, ...more }),
    onTerminal: (args, prompt, answer, seconds = 30, cwd) =>
      run("python3", [PTY, String(seconds), prompt, answer, "--", process.execPath, HCP, ...args], { env, cwd, timeoutMs: (seconds + 10) * 1000 }),
    approve: (id, answer = "y", cwd) => self.onTerminal(["approve", id], "[y/N]", answer, 30, cwd),
    mcp: (o = {}) => mcpClient([root], { env, ...o }),
  };
  return self;
}

/**
 * A config home (XDG_CONFIG_HOME) under `dir` whose hcp/approvers file (0600) lists these programs, bare
 * names resolved on PATH as hcp resolves them: the only --approver programs hcp then runs.
 */
export function trustApprovers(dir: string, programs: readonly string[]): string {
  const config = join(dir, "config");
  mkdirSync(join(config, "hcp"), { recursive: true });
  const lines = programs.map((p) => resolveProgram(p, dir, process.env["PATH"]));
  writeFileSync(join(config, "hcp", "approvers"), `# --approver programs a person trusts\n${lines.join("\n")}\n`, { mode: 0o600 });
  return config;
}

/**
 * A script in `dir` running the test approver (APPROVER_BIN) with its arguments fixed, for a person to list (`hcp run`
 * takes no --approver-arg: its command line is the agent's). It appends the request to `record`, waits `waitMs`, and
 * exits with `code`.
 */
export function approverScript(dir: string, record: string, code: number, waitMs = 0): string {
  const script = join(dir, `approver-${code}-${waitMs}-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(script, `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(APPROVER_BIN)} ${shellWord(record)} ${code} ${waitMs}\n`, { mode: 0o755 });
  return script;
}

/** An approverScript the person lists in the bank's approvers file. */
export function listedApprover(b: Bank, record: string, code: number, waitMs = 0): string {
  const script = approverScript(b.dir, record, code, waitMs);
  appendFileSync(join(b.env["XDG_CONFIG_HOME"]!, "hcp", "approvers"), `${script}\n`);
  return script;
}

/** The plan_id of a dry run's JSON output. */
export function planIdOf(r: Run): string {
  const parsed = JSON.parse(r.stdout) as { plan_id?: string; result?: { plan_id?: string } };
  const id = parsed.plan_id ?? parsed.result?.plan_id;
  if (id === undefined) throw new Error(`no plan_id in ${r.stdout} ${r.stderr}`);
  return id;
}

/** A 0600 credential file for family "bank" holding one secret variable. */
export function bankCredentials(dir: string, secret: string): string {
  const file = join(dir, "credentials.json");
  writeFileSync(file, JSON.stringify({ bank: { env: { BANK_TOKEN: secret } } }));
  chmodSync(file, 0o600);
  return file;
}

/** The error of `hcp … --json`: `{code, error, exit_code}` on stderr. */
export function jsonError(r: Run): { code: string; error: string } {
  return JSON.parse(r.stderr) as { code: string; error: string };
}

/** A tool result's structuredContent, as the tests read it. */
const structured = (r: object) => (r as { structuredContent?: unknown }).structuredContent;
/** The error of a refused tool call (its structuredContent). */
export const toolErrorOf = (r: object) => (structured(r) as { error: { code: string; message: string } }).error;
/** The plan_id a tool call's dry run or refusal carries. */
export const toolPlanIdOf = (r: object) => (structured(r) as { plan_id: string }).plan_id;

/** A person in the MCP client: answers each elicitation with the next action (then declines), remembering what it was shown. */
export function person(actions: ("accept" | "decline" | "cancel")[]) {
  const asked: string[] = [];
  return {
    asked,
    elicit: (message: string): ElicitResult => {
      asked.push(message);
      const action = actions.shift() ?? "decline";
      return action === "accept" ? { action, content: { approve: true } } : { action };
    },
  };
}
