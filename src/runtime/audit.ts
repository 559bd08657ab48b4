// The audit log (§7.1): one JSON line per decision about a write or a confirm-gated verb, appended
// (O_APPEND, mode 0600) and flushed to disk before the child starts and after it ends. A log that
// cannot be written refuses the run: the caller learns why, and nothing runs unrecorded.

import { closeSync, constants, fstatSync, fsyncSync, openSync, readSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { RuntimeError } from "./errors.js";
import { FileReadError, readRegularFile } from "../read-regular.js";
import { ensurePrivateDir, octal, stateDirOf } from "./approval/state.js";
import { noFollowReason, systemReason } from "../errno.js";
import { monotonicMs } from "./clock.js";

export type AuditDecision = "refused" | "dry_run" | "approved" | "declined" | "ran" | "failed";
/** The transport that made the decision; `approve` is `hcp approve`. */
export type AuditTransport = "cli" | "json_exec" | "mcp" | "approve";

export interface AuditEntry {
  time: string;
  transport: AuditTransport;
  /** Over HTTP: the client's address, `IP:port` (a reverse proxy's, behind one); absent elsewhere. */
  client_address?: string;
  pack: string;
  verb: string | null;
  plan_id: string | null;
  /** Secrets masked. */
  argv: string[];
  decision: AuditDecision;
  /** The approval path (elicitation, approve, prompt, approver, plan); null when none was needed. */
  by: string | null;
  exit_code: number | null;
  duration_ms: number | null;
  /** The error code of a refusal. */
  reason?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where the log goes: `--audit FILE|none`, else `HCP_AUDIT`, else `<state dir>/audit.jsonl`.
 * Null when turned off (`none`).
 */
export function auditPathOf(flag: string | undefined, env: Env): string | null {
  const chosen = flag ?? env["HCP_AUDIT"];
  if (chosen === "none") return null;
  if (chosen !== undefined && chosen !== "") return chosen;
  return join(stateDirOf(env), "audit.jsonl");
}

export class AuditLog {
  /** `inStateDir`: the default log, whose folder is made (0700) on first use; any other folder must exist. */
  constructor(
    readonly path: string,
    private readonly inStateDir = false,
  ) {}

  /** The log of `--audit`/`HCP_AUDIT`/the default; null when turned off. */
  static of(flag: string | undefined, env: Env): AuditLog | null {
    const path = auditPathOf(flag, env);
    return path === null ? null : new AuditLog(path, path === join(stateDirOf(env), "audit.jsonl"));
  }

  /** Appends one line and flushes it to disk; throws audit_unavailable saying why it could not. */
  async append(entry: AuditEntry): Promise<void> {
    const fail = (why: string) =>
      new RuntimeError("audit_unavailable", `cannot write the audit log ${this.path}: ${why}; writes are refused until it can be written (or choose another with --audit FILE / HCP_AUDIT)`);
    if (this.inStateDir) await ensurePrivateDir(dirname(this.path));
    let fd: number;
    try {
      fd = openSync(this.path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
    } catch (err) {
      throw fail(noFollowReason(err));
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw fail("it is not a regular file");
      if ((st.mode & 0o077) !== 0) throw fail(`it has mode ${octal(st.mode)}, and must be readable by its owner only (chmod 600 ${this.path})`);
      if (st.size > 0 && !(await isAuditLog(fd, st.size))) throw fail("it is not an hcp audit log (it does not start with an audit entry, or its last line is unfinished); choose another file");
      const line = Buffer.from(inertJSON({ ...entry, argv: loggedArgv(entry.argv) }) + "\n", "utf8");
      let n = 0;
      while (n < line.length) n += writeSync(fd, line, n, line.length - n);
      fsyncSync(fd);
    } catch (err) {
      if (err instanceof RuntimeError) throw err;
      throw fail(systemReason(err));
    } finally {
      closeSync(fd);
    }
  }
}

/** An argument's characters kept in an audit line, and the arguments kept (see loggedArgv). */
const ARG_KEPT = 1024;
const ARGS_KEPT = 64;

/**
 * The argv as logged: each argument up to ARG_KEPT characters, the first ARGS_KEPT arguments, each cut saying how many
 * bytes it leaves out. Dry runs and refusals are the agent's to make, and each is a line: whole, one 9 MiB argument
 * (or a 100,000-element array) per line would let the agent fill the disk through the log.
 */
function loggedArgv(argv: readonly string[]): string[] {
  const out = argv.slice(0, ARGS_KEPT).map((a) => {
    if (a.length <= ARG_KEPT) return a;
    // Never half a surrogate pair.
    const end = /[\uD800-\uDBFF]/.test(a[ARG_KEPT - 1]!) ? ARG_KEPT - 1 : ARG_KEPT;
    return `${a.slice(0, end)}…[${Buffer.byteLength(a.slice(end))} more bytes not logged]`;
  });
  const rest = argv.slice(ARGS_KEPT);
  if (rest.length > 0) out.push(`…[${rest.length} more arguments, ${rest.reduce((n, a) => n + Buffer.byteLength(a), 0)} bytes, not logged]`);
  return out;
}

/** What every audit line starts with: its `time` field first. */
const ENTRY_START = Buffer.from('{"time":"');

/** How long a last line being written by another hcp is waited for; one unfinished for longer was cut short. */
const UNFINISHED_WAIT_MS = 2000;
const UNFINISHED_POLL_MS = 2;

/**
 * Whether a non-empty file is an audit log that a line can be appended to: it starts as an entry does and ends
 * with a newline. `--audit FILE` is the caller's choice, and over `hcp run` the caller is the agent: no other
 * file of the user's (~/.ssh/config, ~/.netrc) is ever appended to, nor a line after one cut short (in a file a shell
 * reads, its open quote would put the agent's text of the next line outside quotes). Every hcp of the user appends to
 * one log, and the kernel shows a long line as it is being written (page by page): an unfinished last line is looked at
 * again until it ends (the other's append, whole, comes before ours), for up to UNFINISHED_WAIT_MS.
 */
async function isAuditLog(fd: number, size: number): Promise<boolean> {
  const head = Buffer.alloc(ENTRY_START.length);
  if (readSync(fd, head, 0, head.length, 0) !== head.length || !head.equals(ENTRY_START)) return false;
  const last = Buffer.alloc(1);
  for (const since = monotonicMs(); ; size = fstatSync(fd).size) {
    if (readSync(fd, last, 0, 1, size - 1) === 1 && last[0] === 0x0a) return true;
    if (monotonicMs() - since > UNFINISHED_WAIT_MS) return false;
    await new Promise((resolve) => setTimeout(resolve, UNFINISHED_POLL_MS));
  }
}

/**
 * An entry's JSON with `$` and backquote written as \u escapes (the same JSON value): a log created where a
 * shell reads files (~/.bash_aliases, ~/.bashrc.d/) is inert there — nothing in it is ever expanded or run.
 */
function inertJSON(entry: AuditEntry): string {
  return JSON.stringify(entry).replace(/[$`]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

/** The most of a log `hcp audit` reads: past it, a log is rotated, not shown whole (a string holds at most ~512 MiB). */
const AUDIT_READ_MAX_BYTES = 256 * 1024 * 1024;

/** The entries of a log, oldest first, and how many lines were not entries; a missing log has none. */
export function readAudit(path: string): { entries: AuditEntry[]; unreadable: number } {
  let text: string;
  try {
    // `--audit FILE` is anyone's choice of path (an agent's, through a pack made from hcp): a FIFO would block and
    // /dev/zero fill memory, so only a regular file of bounded size is read.
    text = readRegularFile(path, AUDIT_READ_MAX_BYTES).toString("utf8");
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    if (err.code === "ENOENT") return { entries: [], unreadable: 0 };
    throw new RuntimeError("audit_unavailable", `cannot read the audit log ${path}: ${err.reason}`);
  }
  const entries: AuditEntry[] = [];
  let unreadable = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const e = JSON.parse(line) as AuditEntry;
      if (typeof e === "object" && e !== null && typeof e.time === "string" && typeof e.decision === "string") entries.push(e);
      else unreadable++;
    } catch {
      unreadable++;
    }
  }
  return { entries, unreadable };
}
