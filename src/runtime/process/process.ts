// Runs one program in its own process group: no shell, bounded output, and at the end of the run (timeout,
// cancel, or its exit with others left behind) its group and every descendant killed (reaper.ts), by the watchdog
// if the runtime is killed first (watchdog.ts).

import { spawn, type ChildProcess } from "node:child_process";
import { statSync } from "node:fs";
import { monotonicMs } from "../clock.js";
import { RuntimeError } from "../errors.js";
import { Reaper } from "./reaper.js";
import { RunCgroup } from "./run-cgroup.js";
import { RUN_MARK_VARIABLE, newRunMark } from "./run-mark.js";
import { guardCgroup, markSpawn, spawnFailed, startWatchdog } from "./watchdog.js";

/** How long a program has between SIGTERM and SIGKILL to its group, by default. */
export const KILL_GRACE_MS = 2000;

export interface ProcessRequest {
  /** The program: a path (absolute, or relative to cwd) or a bare name resolved on env.PATH. */
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** The complete child environment: nothing else is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** Written to the child's stdin, which is then closed; without it stdin is /dev/null. */
  readonly stdin?: string | Uint8Array;
  /** Without `stdin`: a pipe that stays open and is never written, so a read blocks until the run ends. */
  readonly holdStdin?: boolean;
  readonly timeoutMs: number;
  /** Bytes kept per stream; the rest is counted and dropped. */
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL to the group; KILL_GRACE_MS by default. */
  readonly killGraceMs?: number;
  /** Called as output arrives: the part of the chunk that is kept (empty past the cap) and the stream's bytes so far. */
  readonly onOutput?: (stream: "stdout" | "stderr", kept: Buffer, totalBytes: number) => void;
  /** Turns stdout's bytes into text when none were cut off; UTF-8 (a bad sequence as one U+FFFD) by default. */
  readonly decodeStdout?: (bytes: Buffer) => string;
  /** The process starts no run after this one (a one-shot `hcp run`): the watchdog ends once nothing of it is left. */
  readonly lastRun?: boolean;
  /**
   * The child's environment is `env` alone, without the run's mark (run-mark.ts): rungrad score gives its target only
   * the spec's environment. What such a run leaves is then found by what /proc shows of its place alone.
   */
  readonly unmarked?: boolean;
}

export interface ProcessResult {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  cancelled: boolean;
  duration_ms: number;
  stdout: string;
  stderr: string;
  stdout_bytes: number;
  stderr_bytes: number;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  /**
   * The run's pipes were still open when hcp stopped waiting for them (PIPE_GIVE_UP_MS after the kill): a process hcp
   * could neither find nor kill holds them, and may still run (SECURITY.md, Limits). Not a field of the §6.5 result.
   */
  output_held: boolean;
}

/** How long to wait for the pipes after SIGKILL before giving up on a holder that could not be killed. */
const PIPE_GIVE_UP_MS = 1000;

const EMPTY = Buffer.alloc(0);

/** The child's fds that are pipes of the run: stdout and stderr, and stdin when it is one. */
const ALL_PIPES = [0, 1, 2];
const OUTPUT_PIPES = [1, 2];

/** How long the pipes may stay open after the program exits before their holders are looked for. */
const HOLDERS_AFTER_EXIT_MS = 100;

/** Keeps up to `cap` bytes of a stream and counts the rest. */
class Capture {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  total = 0;
  constructor(private readonly cap: number) {}
  /** Returns the part kept (empty once the cap is reached). */
  push(chunk: Buffer): Buffer {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room <= 0) return EMPTY;
    // Copy a partial chunk so the rest of Node's read buffer is not retained.
    const part = chunk.length <= room ? chunk : Buffer.from(chunk.subarray(0, room));
    this.chunks.push(part);
    this.kept += part.length;
    return part;
  }
  get truncated(): boolean {
    return this.total > this.kept;
  }
  /** The kept bytes as text; a character the cap cut in two is dropped whole (§6.4), never half-decoded. */
  text(decode?: (bytes: Buffer) => string): string {
    const kept = Buffer.concat(this.chunks, this.kept);
    if (this.truncated) return kept.subarray(0, wholeCharacters(kept)).toString("utf8");
    return decode ? decode(kept) : kept.toString("utf8");
  }
}

/** The length of `buf` without a UTF-8 character cut off at its end. */
function wholeCharacters(buf: Buffer): number {
  let start = buf.length - 1;
  // Continuation bytes are 10xxxxxx; a character has at most three of them.
  while (start >= 0 && buf.length - start <= 3 && (buf[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return buf.length;
  const lead = buf[start]!;
  const size = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return buf.length - start < size ? start : buf.length;
}

/** Why a program could not start, by Node's error code, in words. */
const SPAWN_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: "no such file or not found on PATH",
  EACCES: "permission denied (is it executable?)",
  E2BIG: "argument list too long",
  EMFILE: "hcp has as many files open as its limit allows (ulimit -n)",
  ENFILE: "the system has as many files open as it may",
  EAGAIN: "no more processes may be started now (ulimit -u)",
};

function spawnError(file: string, err: NodeJS.ErrnoException, cwd: string | undefined): RuntimeError {
  // spawn says ENOENT for a missing working folder too: name the folder rather than the program.
  if (err.code === "ENOENT" && cwd !== undefined && !isFolder(cwd)) {
    return new RuntimeError("spawn_failed", `cannot start ${JSON.stringify(file)}: its working folder ${JSON.stringify(cwd)} is not a folder (policy.json cwd)`);
  }
  const reason = SPAWN_FAILURES[err.code ?? ""] ?? err.message;
  return new RuntimeError("spawn_failed", `cannot start ${JSON.stringify(file)}: ${reason}${err.code ? ` (${err.code})` : ""}`);
}

/** Whether `path` is a folder (a link to one too). */
export function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Runs a program to completion. Resolves with the result once the program has exited and its
 * pipes are closed (or given up on); rejects with RuntimeError `spawn_failed` when it cannot start.
 * Whatever the program leaves behind (in its group, or descendants that left it) is sent SIGTERM when
 * it exits, then SIGKILL after the grace, even once the result is in.
 */
export function runProcess(req: ProcessRequest): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    if (req.signal?.aborted) {
      reject(new RuntimeError("cancelled", `cancelled before ${JSON.stringify(req.file)} started`));
      return;
    }
    try {
      // Before the child exists (it may still be starting: the pipe holds what it is told meanwhile).
      startWatchdog(req.lastRun === true);
    } catch (err) {
      reject(err);
      return;
    }
    const started = monotonicMs();
    const grace = req.killGraceMs ?? KILL_GRACE_MS;
    const mark = req.unmarked === true ? undefined : newRunMark();
    // Where one can be had, the run's child is born in a cgroup of its own, which the watchdog knows before the fork.
    const cgroup = RunCgroup.make();
    if (cgroup !== undefined) guardCgroup(cgroup.path);
    const reaper = new Reaper(grace, () => setTimeout(finish, PIPE_GIVE_UP_MS, true).unref(), req.lastRun === true, mark, cgroup);
    // A stdin not given is /dev/null (libuv opens it for "ignore"): not a pipe of the run.
    const piped = req.stdin !== undefined || req.holdStdin === true;
    let child: ChildProcess;
    markSpawn(req.args, mark);
    try {
      // The run's mark last: no variable of the pack's or the caller's replaces it.
      const spawnChild = (): ChildProcess =>
        spawn(req.file, req.args, {
          cwd: req.cwd,
          env: mark === undefined ? req.env : { ...req.env, [RUN_MARK_VARIABLE]: mark },
          shell: false,
          detached: true,
          windowsHide: true,
          stdio: [piped ? "pipe" : "ignore", "pipe", "pipe"],
        });
      child = cgroup === undefined ? spawnChild() : cgroup.spawnInside(spawnChild);
    } catch (err) {
      // Synchronous failures: invalid arguments (e.g. NUL), E2BIG on some platforms.
      spawnFailed();
      reaper.abandon();
      reject(spawnError(req.file, err as NodeJS.ErrnoException, req.cwd));
      return;
    }
    // Known at once (exec done): its pipes read first (a program that exits at once takes them with it), then the
    // watchdog and the watch told: the program may already be running, and may kill the runtime; and no read of the tree
    // logs it first, so that a process whose parent is the runtime and that is not a run's child is a run's
    // (descendants.ts).
    if (child.pid === undefined) {
      // Not started (ENOENT, EACCES, out of file descriptors…): Node says why in an 'error' event to come, and makes
      // no pipes at all when it ran out of file descriptors (EMFILE, ENFILE).
      spawnFailed();
      reaper.abandon();
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
      child.once("error", (e: NodeJS.ErrnoException) => reject(spawnError(req.file, e, req.cwd)));
      return;
    }
    reaper.started(child.pid, piped ? ALL_PIPES : OUTPUT_PIPES);
    const out = new Capture(req.maxOutputBytes);
    const err = new Capture(req.maxOutputBytes);
    const onOutput = req.onOutput;
    child.stdout!.on("data", (chunk: Buffer) => {
      const kept = out.push(chunk);
      onOutput?.("stdout", kept, out.total);
    });
    child.stderr!.on("data", (chunk: Buffer) => {
      const kept = err.push(chunk);
      onOutput?.("stderr", kept, err.total);
    });

    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    let exited = false;
    let timedOut = false;
    let cancelled = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const cleanup = (): void => {
      for (const t of timers) clearTimeout(t);
      req.signal?.removeEventListener("abort", onAbort);
    };

    /** `held`: called because hcp stops waiting for the pipes, not because they closed. */
    function finish(held = false): void {
      if (settled) return;
      settled = true;
      cleanup();
      reaper.finished();
      child.stdout!.destroy();
      child.stderr!.destroy();
      child.stdin?.destroy();
      resolve({
        exit_code: exitCode,
        signal: exitSignal,
        timed_out: timedOut,
        cancelled,
        duration_ms: Math.round(monotonicMs() - started),
        stdout: out.text(req.decodeStdout),
        stderr: err.text(),
        stdout_bytes: out.total,
        stderr_bytes: err.total,
        stdout_truncated: out.truncated,
        stderr_truncated: err.truncated,
        output_held: held,
      });
    }

    function onAbort(): void {
      if (settled || exited) return;
      cancelled = true;
      reaper.end(true);
    }

    // Started, it has no 'error' to come but a failed `child.kill` (hcp signals by pid, reaper.ts): never unheard.
    child.on("error", () => {});
    child.on("spawn", () => {
      if (child.stdin) {
        child.stdin.on("error", () => {
          /* the child may exit without reading stdin (EPIPE): not an error of the run */
        });
        // A held stdin stays open (and unwritten) until finish() destroys it.
        if (req.stdin !== undefined) child.stdin.end(req.stdin);
      }
      timers.push(
        setTimeout(() => {
          if (exited) return;
          timedOut = true;
          reaper.end(true);
        }, req.timeoutMs),
      );
      if (req.signal?.aborted) onAbort();
      else req.signal?.addEventListener("abort", onAbort, { once: true });
    });
    child.on("exit", (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // Whatever the program left behind in its group or its tree does not outlive it; a process still
      // holding its pipes a moment later has left both, and is found by the pipes it holds.
      reaper.exited();
      // Node emits "close" right after "exit" when the pipes are already closed (the usual case): the timers
      // are set only for a run still open a tick later.
      process.nextTick(() => {
        if (settled) return;
        timers.push(setTimeout(() => reaper.end(true), HOLDERS_AFTER_EXIT_MS));
        // A holder that could be neither found nor killed never keeps the run waiting.
        timers.push(setTimeout(finish, grace + PIPE_GIVE_UP_MS, true));
      });
    });
    child.on("close", () => finish());
  });
}
