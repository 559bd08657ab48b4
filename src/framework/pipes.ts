// A closed stdout (EPIPE: the reader went away, as in `tool | head`) ends a program quietly with exit 141, the code a
// shell shows for a program killed by SIGPIPE, instead of an uncaught 'error' event and a stack trace. Any other
// failure to write it (a file on a full disk, an I/O error) is told on stderr and ends the program with exit 2: the
// person who redirected the output would otherwise find it cut short without a word.

import { systemReason } from "../errno.js";
import { ExitCode } from "./errors.js";

/** 128 + SIGPIPE. */
export const EXIT_CLOSED_OUTPUT = 141;

let closed: AbortController | undefined;

/** Whether a write failed as the reader went away. */
const readerGone = (err: unknown) => ["EPIPE", "ECONNRESET"].includes((err as NodeJS.ErrnoException | undefined)?.code ?? "");

/** The exit code of a program whose stdout failed with `reason` (stdoutClosed's abort reason). */
export function failedOutputExitCode(reason: unknown): number {
  return readerGone(reason) ? EXIT_CLOSED_OUTPUT : ExitCode.API;
}

/**
 * Aborts once a write to stdout fails (the reader went away, or the output cannot be written); installed once per
 * process. A write to stderr that fails is ignored: there is nowhere left to report it. Long-running commands follow
 * the signal to stop their work.
 */
export function stdoutClosed(): AbortSignal {
  if (closed === undefined) {
    const controller = new AbortController();
    closed = controller;
    process.stdout.on("error", (err: NodeJS.ErrnoException) => {
      if (controller.signal.aborted) return;
      if (!readerGone(err)) process.stderr.write(`Error: cannot write to standard output: ${systemReason(err)}\n`);
      // Also set here: the error is reported a tick after the failed write, possibly after main set the code.
      process.exitCode = failedOutputExitCode(err);
      controller.abort(err);
    });
    process.stderr.on("error", () => {});
  }
  return closed.signal;
}
