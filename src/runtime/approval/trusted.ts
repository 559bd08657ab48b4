// Which `--approver` programs may approve (§7): only those the person lists in their own file,
// `$XDG_CONFIG_HOME/hcp/approvers` (else `~/.config/hcp/approvers`). Over `hcp run` the agent writes
// the command line, so a flag alone cannot say who approves: `--approver true` would be the agent
// approving its own plan. The list is a file only its owner can write, which no transport can touch.

import type { Stats } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { FileReadError, readRegularFile } from "../../read-regular.js";
import { RuntimeError } from "../errors.js";
import { xdgBase } from "../places.js";
import { resolveProgram } from "../resolve.js";
import { uid } from "./state.js";

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_CONFIG_HOME/hcp/approvers` when XDG_CONFIG_HOME is absolute, else `~/.config/hcp/approvers`. */
export function approversFileOf(env: Env): string {
  const base = xdgBase(env, "XDG_CONFIG_HOME") ?? join(env["HOME"] || homedir(), ".config");
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
 * The absolute path of an `--approver` program the person trusts; throws `approver_failed` naming the
 * file to edit otherwise. A bare name is looked up on PATH, a relative path against the working directory;
 * the result must be a listed path exactly (links are not followed: a multi-call program such as busybox
 * behaves after the name it is started by, so only the listed name is ever started).
 */
export function trustedApprover(program: string, env: Env, cwd = process.cwd()): string {
  const file = approversFileOf(env);
  let resolved: string;
  try {
    resolved = resolveProgram(program, cwd, env["PATH"], cwd);
  } catch {
    resolved = program;
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
  if (entries.includes(resolve(resolved))) return resolve(resolved);
  throw new RuntimeError("approver_failed", `--approver ${JSON.stringify(program)} is not a program you listed in ${file}; add its absolute path there, one per line`);
}
