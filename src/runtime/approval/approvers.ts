// The ways a transport can ask a person to approve a plan (§7): a program the operator names
// (`--approver`), the terminal (/dev/tty), and — supplied by the MCP transport — elicitation.

import { closeSync, openSync } from "node:fs";
import { isAbsolute } from "node:path";
import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";
import { ReadStream, WriteStream } from "node:tty";
import type { AnyPlan } from "../plan.js";
import { isFolder, runProcess } from "../process/process.js";
import { withSearchedPath } from "../search-path.js";
import { escapeForPerson, visibleJSON } from "./show.js";
import { trustedApprover } from "./trusted.js";

/** How a person answered: approve, refuse, or dismiss without an answer. */
export type Answer = "accept" | "decline" | "cancel";

/** The approval paths of the audit log's `by`; `approve` and `plan` need no asking. */
export type ApprovalPath = "elicitation" | "approve" | "prompt" | "approver" | "plan";

/** What a person is asked to approve. */
export interface ApprovalRequest {
  plan_id: string;
  expires_at: string;
  /** `verb "x" of pack "p"`. */
  subject: string;
  /** The plan as shown (secrets masked). */
  plan: AnyPlan;
  /** The plan for people, control and bidi characters escaped. */
  text: string;
}

/** One way of asking a person. It rejects only when it could not ask at all. */
export interface PersonApprover {
  readonly by: "elicitation" | "prompt" | "approver";
  ask(request: ApprovalRequest, signal?: AbortSignal): Promise<Answer>;
  /** Why it could not be asked now, if so (an `--approver` not listed, or one the agent could rewrite): for the operator, at a server's start. */
  problem?(): string | undefined;
}

/** `y` or `yes` (any case) approves; anything else, or the end of input, does not. */
export async function askYesNo(input: Readable, output: Writable, text: string, question: string): Promise<boolean> {
  output.write(text.endsWith("\n") ? text : text + "\n");
  const rl = createInterface({ input, output, terminal: false });
  try {
    const answer = await Promise.race([rl.question(question), new Promise<string>((resolve) => rl.once("close", () => resolve("")))]);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/**
 * The terminal prompt of `hcp run`: asks on /dev/tty, the controlling terminal, whatever stdin and
 * stdout are. Undefined when there is no terminal to ask on, so nothing ever blocks without one.
 */
export function terminalApprover(): PersonApprover | undefined {
  const ask = terminalAsker();
  if (ask === undefined) return undefined;
  return {
    by: "prompt",
    async ask(request) {
      return (await ask(`About to run ${request.text}\n`, `Run ${escapeForPerson(request.subject)}? [y/N] `)) ? "accept" : "decline";
    },
  };
}

/**
 * Asks y/N on /dev/tty, the controlling terminal, whatever stdin and stdout are (askYesNo). Undefined when
 * there is no terminal to ask on, so nothing ever blocks without one.
 */
export function terminalAsker(): ((text: string, question: string) => Promise<boolean>) | undefined {
  let probe: number;
  try {
    probe = openSync("/dev/tty", "r+");
  } catch {
    return undefined;
  }
  closeSync(probe);
  return async (text, question) => {
    const fd = openSync("/dev/tty", "r+");
    const input = new ReadStream(fd);
    const output = new WriteStream(fd);
    try {
      return await askYesNo(input, output, text, question);
    } finally {
      input.destroy();
      output.destroy();
    }
  };
}

export interface CommandApproverOptions {
  /** The program: a path, or a name looked up on PATH. Never a shell. Only one listed in the person's approvers file is run (trusted.ts). */
  program: string;
  args?: readonly string[];
  /** How long the program may take; past it, the plan is not approved. */
  timeoutMs: number;
  /** The approver's environment: the runtime's own (PATH without the agent's folders: search-path.ts). */
  env: Readonly<Record<string, string | undefined>>;
  /** The folders the agent works in now (agentFoldersOf: an MCP client names more as it runs), where the approver must not lie and never looks programs up. */
  agentFolders: () => readonly string[];
}

/**
 * Where an approver runs: the person's home folder, else `/`; never the caller's working folder, which is the agent's:
 * a program that reads a `.env` or a configuration file there (as dotenv does) would take the agent's word for the
 * person's.
 */
function approverFolder(env: Readonly<Record<string, string | undefined>>): string {
  const home = env["HOME"];
  return home !== undefined && isAbsolute(home) && isFolder(home) ? home : "/";
}

/**
 * `--approver PROGRAM [--approver-arg ARG]…`: runs the program without a shell, in the person's home folder, the
 * request as JSON on its stdin (`{plan_id, expires_at, subject, plan, text}`), HCP_PLAN_ID in its environment; exit 0
 * approves, any other end declines, a timeout cancels. Its process group is killed at the timeout.
 * A program the person did not list in their approvers file is never run: asking it throws.
 */
export function commandApprover(opts: CommandApproverOptions): PersonApprover {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
  const { agentFolders } = opts;
  return {
    by: "approver",
    problem() {
      try {
        trustedApprover(opts.program, opts.env, agentFolders());
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
    async ask(request, signal) {
      const folders = agentFolders();
      const r = await runProcess({
        file: trustedApprover(opts.program, opts.env, folders),
        args: opts.args ?? [],
        // Its own lookups (`#!/usr/bin/env python3`) never search the agent's folders: search-path.ts.
        env: withSearchedPath({ ...env, HCP_PLAN_ID: request.plan_id }, folders),
        cwd: approverFolder(env),
        stdin: visibleJSON(request) + "\n",
        timeoutMs: opts.timeoutMs,
        maxOutputBytes: 65536,
        signal,
      });
      if (r.timed_out) return "cancel";
      return r.exit_code === 0 ? "accept" : "decline";
    },
  };
}
