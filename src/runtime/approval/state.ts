// The per-user state directory of approvals (§7): where it is, and files in it that only their owner
// can read, written atomically, created exclusively, and never followed through a symbolic link.

import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, fsyncSync, linkSync, openSync, readSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { systemReason } from "../../errno.js";
import { makeDirsSync } from "../../files.js";
import { RuntimeError, type RuntimeErrorCode } from "../errors.js";
import { AGENT_FOLDERS, agentFolderHolding } from "../agent-folders.js";
import { homeOf, xdgBase } from "../places.js";

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_STATE_HOME/hcp`, else `~/.local/state/hcp` (HOME from the runtime's environment). */
export function stateDirOf(env: Env): string {
  const xdg = xdgBase(env, "XDG_STATE_HOME");
  return xdg !== undefined ? join(xdg, "hcp") : join(homeOf(env, "state_unavailable", "XDG_STATE_HOME"), ".local", "state", "hcp");
}

/**
 * The state directory of a run or server whose agent works in `agentFolders` (agent-folders.ts); refused when it lies in
 * one of them: the agent could write trust records and approvals there, signed with the key it can read there too.
 */
export function stateDirFor(env: Env, agentFolders: readonly string[]): string {
  const dir = stateDirOf(env);
  const folder = agentFolderHolding(dir, agentFolders);
  if (folder !== undefined) {
    throw new RuntimeError(
      "state_insecure",
      `the hcp state directory ${dir} lies in ${JSON.stringify(folder)}, a folder the agent works in (${AGENT_FOLDERS}), where it could write trust records and approvals of its own, signed with the key it can read there; set XDG_STATE_HOME to a folder the agent cannot write`,
    );
  }
  return dir;
}

/** Biggest state file read (a pending plan with a long argv). */
export const MAX_STATE_FILE = 4 << 20;

/** This process's user id; -1 where there is none (Windows). */
export const uid = () => process.getuid?.() ?? -1;

/** Creates the directory (0700, parents too) and refuses one that others could write to or that is not ours. */
export async function ensurePrivateDir(path: string): Promise<void> {
  ensurePrivateDirSync(path);
}

/**
 * ensurePrivateDir without waiting: for the key read inside a plan's getter (see secret-digest.ts). One level at
 * a time (makeDirsSync): Node's recursive mkdir never returns for a missing directory under /proc.
 */
export function ensurePrivateDirSync(path: string): void {
  try {
    makeDirsSync(path, 0o700);
  } catch (err) {
    throw new RuntimeError("state_unavailable", `cannot create the hcp state directory ${path}: ${systemReason(err)}`);
  }
  const st = statSync(path);
  if (!st.isDirectory()) throw new RuntimeError("state_unavailable", `${path} is not a directory`);
  if ((st.mode & 0o022) !== 0 || (uid() >= 0 && st.uid !== uid())) {
    throw new RuntimeError(
      "state_insecure",
      `the hcp state directory ${path} can be written by others (mode ${octal(st.mode)}, owner ${st.uid}); it must be yours and writable by you only (chmod 700 ${path})`,
    );
  }
}

export const octal = (mode: number) => "0" + (mode & 0o777).toString(8).padStart(3, "0");

/**
 * The content of a state file that only its owner can read and write, or undefined when it does not
 * exist. A link, a non-regular file, another owner or a wider mode throws `code` naming the problem.
 */
export function readPrivate(path: string, what: string, code: RuntimeErrorCode): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const errno = (err as NodeJS.ErrnoException).code;
    if (errno === "ENOENT") return undefined;
    if (errno === "ELOOP") throw new RuntimeError(code, `${what} ${path} is a symbolic link; it must be a regular file`);
    throw new RuntimeError(code, `cannot read ${what} ${path}: ${systemReason(err)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new RuntimeError(code, `${what} ${path} is not a regular file`);
    if ((st.mode & 0o077) !== 0) {
      throw new RuntimeError(code, `${what} ${path} has mode ${octal(st.mode)}; it must be readable by its owner only (chmod 600 ${path})`);
    }
    if (uid() >= 0 && st.uid !== uid()) throw new RuntimeError(code, `${what} ${path} belongs to user ${st.uid}, not to you`);
    if (st.size > MAX_STATE_FILE) throw new RuntimeError(code, `${what} ${path} is larger than ${MAX_STATE_FILE} bytes`);
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < st.size) {
      const got = readSync(fd, buf, n, st.size - n, null);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Writes `tmp`, a fresh 0600 file (exclusive), flushed to disk. */
function writeTemp(tmp: string, data: string | Uint8Array): void {
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const buf = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let n = 0;
    while (n < buf.length) n += writeSync(fd, buf, n, buf.length - n);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `path` atomically (0600): readers see the old file or the whole new one. With `exclusive`,
 * an existing file is kept and false is returned; of two writers, exactly one wins. A write that fails (a full disk)
 * throws state_unavailable saying why, and leaves nothing behind.
 */
export function writePrivate(path: string, data: string | Uint8Array, exclusive = false): boolean {
  const tmp = join(dirname(path), `.${randomBytes(8).toString("hex")}.tmp`);
  try {
    writeTemp(tmp, data);
    if (!exclusive) {
      renameSync(tmp, path);
      return true;
    }
    // link(2) fails with EEXIST when the name is taken: an atomic create-if-absent of a complete file.
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if (exclusive && (err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new RuntimeError("state_unavailable", `cannot write ${path} in hcp's state directory: ${systemReason(err)}`);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // renamed away already, or never made
    }
  }
}

/** Removes a state file; one already gone is fine. */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone, or not ours to remove: pruning is best effort
  }
}
