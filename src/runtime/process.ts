// Runs one program in its own process group: no shell, bounded output, the whole group killed on timeout or cancel.

import { spawn, type ChildProcess } from "node:child_process";
import { performance } from "node:perf_hooks";
import { RuntimeError } from "./errors.js";

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
  /** Time between SIGTERM and SIGKILL to the group; 2000 ms by default. */
  readonly killGraceMs?: number;
  /** Called as output arrives: the part of the chunk that is kept (empty past the cap) and the stream's bytes so far. */
  readonly onOutput?: (stream: "stdout" | "stderr", kept: Buffer, totalBytes: number) => void;
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
}

/** How long to wait for the pipes after SIGKILL before giving up on a holder outside the group. */
const PIPE_GIVE_UP_MS = 1000;

const EMPTY = Buffer.alloc(0);

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
  text(): string {
    const kept = Buffer.concat(this.chunks, this.kept);
    return (this.truncated ? kept.subarray(0, wholeCharacters(kept)) : kept).toString("utf8");
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

/** Sends a signal to the whole process group led by pid. Never throws: a group already gone (ESRCH) is the goal. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to kill. Anything else cannot be helped from here, and must not crash the runtime.
  }
}

function spawnError(file: string, err: NodeJS.ErrnoException): RuntimeError {
  const reason =
    err.code === "ENOENT"
      ? "no such file or not found on PATH"
      : err.code === "EACCES"
        ? "permission denied (is it executable?)"
        : err.code === "E2BIG"
          ? "argument list too long"
          : err.message;
  return new RuntimeError("spawn_failed", `cannot start ${JSON.stringify(file)}: ${reason}${err.code ? ` (${err.code})` : ""}`);
}

/**
 * Runs a program to completion. Resolves with the result once the program has exited and its
 * pipes are closed (or given up on); rejects with RuntimeError `spawn_failed` when it cannot start.
 * Leftover members of the group are sent SIGTERM when the program exits, then SIGKILL after the grace.
 */
export function runProcess(req: ProcessRequest): Promise<ProcessResult> {
  const grace = req.killGraceMs ?? 2000;
  return new Promise((resolve, reject) => {
    if (req.signal?.aborted) {
      reject(new RuntimeError("cancelled", `cancelled before ${JSON.stringify(req.file)} started`));
      return;
    }
    const started = performance.now();
    let child: ChildProcess;
    try {
      child = spawn(req.file, [...req.args], {
        cwd: req.cwd,
        env: { ...req.env },
        shell: false,
        detached: true,
        windowsHide: true,
        stdio: [req.stdin === undefined && !req.holdStdin ? "ignore" : "pipe", "pipe", "pipe"],
      });
    } catch (err) {
      // Synchronous failures: invalid arguments (e.g. NUL), E2BIG on some platforms.
      reject(spawnError(req.file, err as NodeJS.ErrnoException));
      return;
    }
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
    let killTimer: NodeJS.Timeout | undefined;

    const cleanup = (): void => {
      for (const t of timers) clearTimeout(t);
      if (killTimer) clearTimeout(killTimer);
      req.signal?.removeEventListener("abort", onAbort);
    };

    const finish = (): void => {
      if (settled) return;
      settled = true;
      cleanup();
      child.stdout!.destroy();
      child.stderr!.destroy();
      child.stdin?.destroy();
      resolve({
        exit_code: exitCode,
        signal: exitSignal,
        timed_out: timedOut,
        cancelled,
        duration_ms: Math.round(performance.now() - started),
        stdout: out.text(),
        stderr: err.text(),
        stdout_bytes: out.total,
        stderr_bytes: err.total,
        stdout_truncated: out.truncated,
        stderr_truncated: err.truncated,
      });
    };

    /** SIGTERM to the group now, SIGKILL after the grace, then stop waiting for the pipes. */
    const terminate = (): void => {
      if (killTimer || settled || child.pid === undefined) return;
      const pid = child.pid;
      killGroup(pid, "SIGTERM");
      killTimer = setTimeout(() => {
        killGroup(pid, "SIGKILL");
        timers.push(setTimeout(finish, PIPE_GIVE_UP_MS));
      }, grace);
    };

    function onAbort(): void {
      if (settled || exited) return;
      cancelled = true;
      terminate();
    }

    child.on("error", (e: NodeJS.ErrnoException) => {
      if (settled) return;
      if (child.pid === undefined) {
        settled = true;
        cleanup();
        reject(spawnError(req.file, e));
      }
    });
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
          terminate();
        }, req.timeoutMs),
      );
      if (req.signal?.aborted) onAbort();
      else req.signal?.addEventListener("abort", onAbort, { once: true });
    });
    child.on("exit", (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      // Whatever the program left behind in its group does not outlive it.
      terminate();
    });
    child.on("close", finish);
  });
}
