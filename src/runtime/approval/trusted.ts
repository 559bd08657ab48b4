// Which `--approver` programs may approve (§7): only those the person lists in their own file,
// `$XDG_CONFIG_HOME/hcp/approvers` (else `~/.config/hcp/approvers`). Over `hcp run` the agent writes
// the command line, so a flag alone cannot say who approves: `--approver true` would be the agent
// approving its own plan. The list is a file only its owner can write, which no transport can touch, and a listed
// program is run only where the agent could not have rewritten it to say yes (outside the folders it works in, and
// writable by no one else), and never when it is a shell or an interpreter, which would run the plan as code.

import { realpathSync, statSync, type Stats } from "node:fs";
import { basename, isAbsolute, join, resolve } from "node:path";
import { FileReadError, readRegularFile } from "../../read-regular.js";
import { RuntimeError } from "../errors.js";
import { homeOf, xdgBase } from "../places.js";
import { resolveProgram } from "../resolve.js";
import { AGENT_FOLDERS, agentFolderHolding } from "../agent-folders.js";
import { uid } from "./state.js";

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_CONFIG_HOME/hcp/approvers` when XDG_CONFIG_HOME is absolute, else `~/.config/hcp/approvers`. */
export function approversFileOf(env: Env): string {
  const base = xdgBase(env, "XDG_CONFIG_HOME") ?? join(homeOf(env, "approver_failed", "XDG_CONFIG_HOME"), ".config");
  return join(base, "hcp", "approvers");
}

const MAX_LIST_BYTES = 64 << 10;

/** The file must be yours and writable by you only: another user must not be able to add a program. */
function ownedByYou(path: string): (st: Stats) => void {
  return (st) => {
    if (uid() >= 0 && st.uid !== uid()) throw new FileReadError("not_yours", `it belongs to user ${st.uid}, not to you`);
    if ((st.mode & 0o022) !== 0) throw new FileReadError("too_open", `others can write it (chmod 600 ${path})`);
  };
}

/**
 * Shells and interpreters that run what they read on stdin as code (a bare name, a versioned one: python3.11), and
 * `env`, which runs another. An approver reads the plan on stdin, and the plan holds the agent's arguments:
 * `$(…)` in a value runs under sh, `#{…}` under ruby.
 */
const RUNS_STDIN =
  /^(?:(?:a|ba|da|k|mk|pdk|ya|z|c|tc)?sh|ksh93|fish|busybox|toybox|env|(?:python|pypy|perl|ruby|php|lua|tclsh|wish|julia)[0-9.]*|node|nodejs|deno|bun|luajit|irb|jshell|Rscript|R|awk|gawk|mawk|nawk|osascript|pwsh|expect|guile|racket|sbcl|ocaml|ghci|runghc)$/;

/**
 * Refuses a listed approver that someone but the person could make say yes: one lying (by its path or, through links,
 * its file) in a folder the agent works in, where the agent writes files; one another user owns or can write; a shell
 * or an interpreter, which would run the agent's arguments in the plan it reads as code.
 */
function checkListedApprover(program: string, listed: string, agentFolders: readonly string[]): void {
  let file = listed;
  try {
    file = realpathSync(listed);
  } catch {
    return; // not there: starting it fails, and says so
  }
  const named = `--approver ${JSON.stringify(program)}${file === listed ? "" : ` (the file ${JSON.stringify(file)})`}`;
  if ([listed, file].some((p) => RUNS_STDIN.test(basename(p)))) {
    throw new RuntimeError(
      "approver_failed",
      `${named} is a shell or an interpreter: it would run the plan it reads on its stdin, the agent's arguments in it, as code; list the script that asks a person instead (its first line naming its interpreter)`,
    );
  }
  const folder = agentFolderHolding(listed, agentFolders);
  if (folder !== undefined) {
    throw new RuntimeError(
      "approver_failed",
      `${named} lies in ${JSON.stringify(folder)}, a folder the agent works in (${AGENT_FOLDERS}), where it could rewrite the approver to say yes; keep your approvers in a folder the agent cannot write`,
    );
  }
  const st = statSync(file);
  if (uid() >= 0 && st.uid !== uid() && st.uid !== 0) throw new RuntimeError("approver_failed", `${named} belongs to user ${st.uid}, who could make it say yes; use an approver that is yours`);
  if ((st.mode & 0o022) !== 0) throw new RuntimeError("approver_failed", `${named} can be written by others, who could make it say yes (chmod go-w ${file})`);
}

/**
 * The absolute path of an `--approver` program the person trusts; throws `approver_failed` naming the
 * file to edit otherwise. A bare name is looked up on PATH, a relative path against the working directory;
 * the result must be a listed path exactly (links are not followed: a multi-call program such as busybox
 * behaves after the name it is started by, so only the listed name is ever started), and its file one that only
 * the person can change, outside `agentFolders`.
 */
export function trustedApprover(program: string, env: Env, agentFolders: readonly string[]): string {
  const cwd = process.cwd();
  const file = approversFileOf(env);
  let resolved: string;
  try {
    resolved = resolveProgram(program, cwd, env["PATH"], cwd);
  } catch {
    resolved = program;
  }
  // A list the agent could write would let it name a program of its own (`true`).
  const listIn = agentFolderHolding(file, agentFolders);
  if (listIn !== undefined) {
    throw new RuntimeError(
      "approver_failed",
      `--approver ${JSON.stringify(program)} cannot be checked: your approvers file ${file} lies in ${JSON.stringify(listIn)}, a folder the agent works in (${AGENT_FOLDERS}), where it could list a program of its own; set XDG_CONFIG_HOME to a folder the agent cannot write`,
    );
  }
  let text: string;
  try {
    text = readRegularFile(file, MAX_LIST_BYTES, ownedByYou(file)).toString("utf8");
  } catch (err) {
    const why = err instanceof FileReadError ? err.reason : String(err);
    const listed = (err as FileReadError).code === "ENOENT" ? "there is no such file" : `it cannot be used: ${why}`;
    throw new RuntimeError("approver_failed", `--approver ${JSON.stringify(program)} is not a program you listed in ${file} (${listed}); add its absolute path there, one per line`);
  }
  const entries = text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && isAbsolute(l))
    .map((l) => resolve(l));
  const listed = resolve(resolved);
  if (entries.includes(listed)) {
    checkListedApprover(program, listed, agentFolders);
    return listed;
  }
  throw new RuntimeError("approver_failed", `--approver ${JSON.stringify(program)} is not a program you listed in ${file}; add its absolute path there, one per line`);
}
