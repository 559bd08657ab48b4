// The flags several hcp commands share, and the serve options they give: writes, planes, approvals, the audit log.

import { statSync } from "node:fs";
import { resolve } from "node:path";
import { isatty } from "node:tty";
import type { Context, FlagSpec } from "../../framework/index.js";
import { commandApprover, terminalApprover, terminalAsker, type PersonApprover } from "../../runtime/approval/approvers.js";
import { agentFoldersOf } from "../../runtime/agent-folders.js";
import { stateDirFor } from "../../runtime/approval/state.js";
import type { Gate } from "../../runtime/approval/gate.js";
import { AuditLog } from "../../runtime/audit.js";
import { RuntimeError } from "../../runtime/errors.js";
import type { TrustAsker } from "../../runtime/trust/trust.js";
import { TransportError } from "../../transports/errors.js";
import type { ServeOptions } from "../../transports/packs.js";
import type { ToolSelection } from "../../transports/tools.js";
import { optionalString } from "../flags.js";

export const ALLOW_WRITE: FlagSpec = { name: "allow-write", usage: "Let write verbs run (without it they are refused; a confirm-gated one still needs a person's approval of its plan)", type: "bool" };
export const CONTROL_PLANE: FlagSpec = { name: "control-plane", usage: "Also serve or run control-plane packs (surface.json plane: control), which are refused without it", type: "bool" };
export const STRICT: FlagSpec = { name: "strict", usage: "Refuse to start when a pack in a folder of packs does not load (default: leave it out and name it on stderr)", type: "bool" };
export const AUDIT: FlagSpec = { name: "audit", usage: "The audit log: a FILE, or none (default: $HCP_AUDIT, else $XDG_STATE_HOME/hcp/audit.jsonl)", type: "string" };
export const CWD: FlagSpec = {
  name: "cwd",
  usage: "The folder the verbs of a pack whose policy.json sets no cwd run in (default: the folder hcp was started in, which an MCP client chooses for the servers it starts)",
  type: "string",
};
/** MCP only: elicitation trusts the client's answer as the person's, and an agent that writes its own MCP messages is that client. */
export const NO_ELICITATION: FlagSpec = {
  name: "no-elicitation",
  usage: "Never ask the MCP client to approve a plan (a client the agent drives could accept its own plans): a person approves with hcp approve, or --approver. Implied on a terminal and under HCP_NO_PROMPT",
  type: "bool",
};
const APPROVER: FlagSpec = { name: "approver", usage: "A PROGRAM you listed in ~/.config/hcp/approvers that approves plans (no shell): the plan as JSON on its stdin, exit 0 approves", type: "string" };
const APPROVER_TIMEOUT: FlagSpec = { name: "approver-timeout", usage: "Seconds the --approver program may take (past it, nothing is approved)", type: "int", default: 120 };
export const APPROVER_FLAGS: FlagSpec[] = [APPROVER, { name: "approver-arg", usage: "An argument for the --approver program; repeatable", type: "stringArray" }, APPROVER_TIMEOUT];
/**
 * hcp run's: no --approver-arg. Its command line is the agent's, and an argument can send a listed approver's
 * question elsewhere (another channel, a webhook, an answers file of the agent's): the person fixes the arguments in
 * a script they list (RUN_APPROVER_ARG_HINT).
 */
export const RUN_APPROVER_FLAGS: FlagSpec[] = [APPROVER, APPROVER_TIMEOUT];
export const RUN_APPROVER_ARG_HINT =
  "hcp run takes no --approver-arg: its command line is the agent's, which could send your approver's question elsewhere; list in ~/.config/hcp/approvers a script that runs the approver with your arguments";

/** --tools, --exclude and --read-only: which MCP tools a server offers. */
export const TOOL_SELECTION: FlagSpec[] = [
  { name: "tools", usage: "Serve only the tools whose names match one of these globs (* any characters, ? one); repeatable", type: "stringArray" },
  { name: "exclude", usage: "Do not serve the tools whose names match one of these globs; repeatable", type: "stringArray" },
  { name: "read-only", usage: "Serve read verbs only", type: "bool" },
];

/** What an MCP server serves and how: the flags of hcp serve, which hcp mcp-config carries into the server it prints. */
export const SERVED_FLAGS: FlagSpec[] = [ALLOW_WRITE, CONTROL_PLANE, STRICT, CWD, ...TOOL_SELECTION, ...APPROVER_FLAGS, NO_ELICITATION, AUDIT];

const has = (ctx: Context, name: string) => ctx.node.flags.some((f) => f.name === name);

/** --allow-write, --control-plane, --strict, --cwd, --approver and --audit, where the command defines them. */
export function serveOptions(ctx: Context, ask: { prompt?: boolean } = {}): ServeOptions {
  const cwd = has(ctx, CWD.name) ? cwdOf(ctx) : undefined;
  return {
    allowWrite: has(ctx, ALLOW_WRITE.name) && ctx.bool(ALLOW_WRITE.name),
    controlPlane: has(ctx, CONTROL_PLANE.name) && ctx.bool(CONTROL_PLANE.name),
    strict: has(ctx, STRICT.name) && ctx.bool(STRICT.name),
    gate: has(ctx, AUDIT.name) ? gateOf(ctx, ask.prompt === true, cwd) : undefined,
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/** --cwd as an absolute path, checked now: a folder that is not there would fail every call, not the start. */
function cwdOf(ctx: Context): string | undefined {
  const given = optionalString(ctx, CWD.name);
  if (given === undefined) return undefined;
  if (given === "") throw new TransportError("usage", "--cwd needs a FOLDER");
  const path = resolve(given);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory() !== true) throw new TransportError("usage", `--cwd ${JSON.stringify(given)}: ${path} is not a folder`);
  return path;
}

/** The tool selection of a command that defines TOOL_SELECTION. */
export function toolSelection(ctx: Context): ToolSelection {
  return { tools: ctx.strings("tools"), exclude: ctx.strings("exclude"), readOnly: ctx.bool("read-only") };
}

/**
 * Where approvals live and who can be asked: the --approver program when given; else, for `hcp run`
 * with `prompt`, the terminal, unless --no-prompt or there is no terminal (nothing then blocks).
 */
function gateOf(ctx: Context, prompt: boolean, cwd: string | undefined): Gate {
  const env = process.env;
  const agentFolders = agentFoldersOf(cwd);
  const stateDir = stateDirFor(env, agentFolders);
  const approvers: PersonApprover[] = [];
  const program = has(ctx, "approver") ? optionalString(ctx, "approver") : undefined;
  if (program !== undefined) {
    if (program === "") throw new TransportError("usage", "--approver needs a PROGRAM (a path, or a name on PATH)");
    const seconds = ctx.int("approver-timeout");
    if (seconds < 1 || seconds > 86_400) throw new TransportError("usage", `--approver-timeout must be from 1 to 86400 seconds, got ${seconds}`);
    const args = has(ctx, "approver-arg") ? ctx.strings("approver-arg") : [];
    approvers.push(commandApprover({ program, args, timeoutMs: seconds * 1000, env, agentFolders: () => agentFoldersOf(cwd) }));
  } else if (prompt && mayPrompt(ctx)) {
    const terminal = terminalApprover();
    if (terminal !== undefined) approvers.push(terminal);
  }
  return { stateDir, audit: auditOf(ctx), approvers };
}

/**
 * Whether `hcp run` may ask at the terminal: not under --no-prompt nor HCP_NO_PROMPT, and only with a terminal on one of
 * its streams. HCP_NO_PROMPT is the operator's: an agent whose commands run on a terminal it types into (a harness's
 * pseudo-terminal) would answer the prompts itself, and an agent allowed only `hcp run …` cannot unset it.
 */
function mayPrompt(ctx: Context): boolean {
  if (ctx.globals.noPrompt || operatorForbidsPrompts()) return false;
  // isatty, not process.stdin.isTTY: making process.stdin costs a run that never reads it ~1.5 ms.
  return isatty(0) || isatty(1) || isatty(2);
}

/** The operator's HCP_NO_PROMPT: set, and neither empty nor 0. */
export function operatorForbidsPrompts(): boolean {
  const forbidden = process.env["HCP_NO_PROMPT"];
  return forbidden !== undefined && forbidden !== "" && forbidden !== "0";
}

/** Why a command line may be the agent's, as every refusal under HCP_NO_PROMPT says it. */
const AGENT_RUNS_HERE = "HCP_NO_PROMPT is set here, as an operator sets it where an agent's commands run";

/**
 * The person's own commands refuse under HCP_NO_PROMPT, which says that the agent's commands run here: `hcp approve`,
 * `hcp trust`, `hcp credentials set`, `delete` and `get --reveal`, `hcp init --from-exe`, `--from-cobra` and
 * `--from-openapi URL`, `hcp serve --http` off loopback. `cannot` ends "so that an agent cannot …".
 */
export function refuseWhereAgentRuns(command: string, cannot: string): void {
  if (!operatorForbidsPrompts()) return;
  throw new RuntimeError(
    "not_a_terminal",
    `${command} must be run by a person at a terminal of their own: ${AGENT_RUNS_HERE}, so that an agent cannot ${cannot}; run it in a terminal where HCP_NO_PROMPT is not set`,
  );
}

/**
 * `hcp approve` and `hcp trust` take a person's answer at the terminal: only at one on both stdin and stdout, and not
 * where the agent's commands run (refuseWhereAgentRuns: a terminal it types into, it may be). `cannot` ends "so that
 * an agent cannot …".
 */
export function requirePersonAtTerminal(ctx: Context, command: string, cannot: string): void {
  if (ctx.globals.noPrompt) throw new TransportError("usage", `${command} asks a person y/N at the terminal, and --no-prompt forbids asking: leave --no-prompt out`);
  refuseWhereAgentRuns(command, cannot);
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new RuntimeError("not_a_terminal", `${command} must be run by a person at a terminal: its stdin and stdout must both be a terminal, so that an agent cannot ${cannot}`);
  }
}

/**
 * `hcp run`'s offer to trust a pack that must be trusted and is not: the pack shown and y/N asked on /dev/tty,
 * as its approval prompt (undefined under --no-prompt or without a terminal: such a pack is then refused).
 */
export function trustPrompt(ctx: Context): TrustAsker | undefined {
  const ask = mayPrompt(ctx) ? terminalAsker() : undefined;
  return ask === undefined ? undefined : (text) => ask(`${text}\n`, "Trust this pack? [y/N] ");
}

/**
 * The audit log of --audit (or HCP_AUDIT, or the default); null for `none`. Where the agent's commands run
 * (HCP_NO_PROMPT), the command line may be the agent's, and the log the operator's: --audit is refused there, so that an
 * agent cannot turn off or send elsewhere the record of what it ran.
 */
export function auditOf(ctx: Context): AuditLog | null {
  const chosen = optionalString(ctx, AUDIT.name);
  if (chosen !== undefined && operatorForbidsPrompts()) {
    throw new TransportError(
      "usage",
      `--audit ${JSON.stringify(chosen)}: ${AGENT_RUNS_HERE}, and there the audit log is the operator's to choose (HCP_AUDIT), so that an agent cannot turn it off or send it elsewhere; leave --audit out`,
    );
  }
  return AuditLog.of(chosen, process.env);
}
