// Runs the target for the probes: an isolated config home, a fixed environment, no shell, a 15 s group-killing timeout.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ValidManifest } from "../manifest/types.js";
import { RuntimeError } from "../runtime/errors.js";
import { runProcess } from "../runtime/process/process.js";
import type { ManifestSummary } from "./summary.js";
import { resolveTargetPath, type Target } from "./target.js";

/** One run of the target. `exit` is -1 when it timed out, died of a signal, or could not start. */
export interface Invocation {
  stdout: string;
  stderr: string;
  exit: number;
  /** Why there is no exit code ("" when the program exited, or was killed by a signal it did not ask for). */
  err: string;
  timedOut: boolean;
}

export interface ExecOptions {
  /** An extra variable (the secret probe's credential). */
  secretEnv?: string;
  secretValue?: string;
  /** Stdin as a pipe held open, so a read blocks (and times out) instead of seeing EOF. */
  holdStdin?: boolean;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/** Go's os.TempDir on Unix: $TMPDIR, else /tmp (the OS value elsewhere). */
function osTempDir(): string {
  if (process.platform === "win32") return tmpdir();
  return process.env["TMPDIR"] || "/tmp";
}

/** The run was stopped (SIGINT/SIGTERM) before every probe ran: there is no score. */
export class ScoreCancelledError extends Error {
  override name = "ScoreCancelledError";
  constructor() {
    super("scoring was interrupted");
  }
}

/** A target resolved and ready to probe, with the manifest discovery state the probes read. */
export class Runner {
  /** The validated manifest, when discovery reported `present`. */
  manifest: ValidManifest | null = null;
  /** The discovery result; null until discovery ran. */
  summary: ManifestSummary | null = null;
  /** Set whenever a probe reads the present manifest; the scorer resets it per rule. */
  consulted = false;

  private constructor(
    readonly target: Target & { path: string },
    readonly confHome: string,
    readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /**
   * Resolves the target (TargetError on failure) and makes the temporary config home; call close() after.
   * Once `signal` aborts, the running child's group is killed and every exec throws ScoreCancelledError.
   */
  static async open(target: Target, timeoutMs = DEFAULT_TIMEOUT_MS, signal?: AbortSignal): Promise<Runner> {
    const path = resolveTargetPath(target.path);
    const confHome = await mkdtemp(join(osTempDir(), "rungrad-conformance-"));
    return new Runner({ ...target, path }, confHome, timeoutMs, signal);
  }

  async close(): Promise<void> {
    await rm(this.confHome, { recursive: true, force: true });
  }

  /** The environment every invocation gets, and nothing else. */
  private env(opts: ExecOptions): Record<string, string> {
    const temp = osTempDir();
    const env: Record<string, string> = {
      PATH: process.env["PATH"] ?? "",
      HOME: this.confHome,
      XDG_CONFIG_HOME: this.confHome,
      TMPDIR: temp,
      TEMP: temp,
      TMP: temp,
    };
    if (process.platform === "win32") {
      Object.assign(env, {
        APPDATA: this.confHome,
        LOCALAPPDATA: this.confHome,
        SystemRoot: process.env["SystemRoot"] ?? "",
        SYSTEMROOT: process.env["SYSTEMROOT"] ?? "",
      });
    }
    if (opts.secretEnv) env[opts.secretEnv] = opts.secretValue ?? "";
    return env;
  }

  /** Runs the target with args; never throws for the program's own failures. */
  async exec(args: readonly string[], opts: ExecOptions = {}): Promise<Invocation> {
    if (this.signal?.aborted) throw new ScoreCancelledError();
    try {
      const r = await runProcess({
        file: this.target.path,
        args,
        env: this.env(opts),
        holdStdin: opts.holdStdin ?? false,
        timeoutMs: this.timeoutMs,
        maxOutputBytes: MAX_OUTPUT_BYTES,
        signal: this.signal,
        // The spec's environment alone (rungrad-spec/1).
        unmarked: true,
      });
      if (r.cancelled) throw new ScoreCancelledError();
      if (r.timed_out) return { stdout: r.stdout, stderr: r.stderr, exit: -1, err: "target timed out", timedOut: true };
      return { stdout: r.stdout, stderr: r.stderr, exit: r.exit_code ?? -1, err: "", timedOut: false };
    } catch (err) {
      if (err instanceof RuntimeError) return { stdout: "", stderr: "", exit: -1, err: err.message, timedOut: false };
      throw err;
    }
  }
}
