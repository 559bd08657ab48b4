// A closed stdout (EPIPE: the reader went away, as in `tool | head`) ends a program quietly with exit 141, the code a
// shell shows for a program killed by SIGPIPE, instead of an uncaught 'error' event and a stack trace.

/** 128 + SIGPIPE. */
export const EXIT_CLOSED_OUTPUT = 141;

let closed: AbortController | undefined;

/**
 * Aborts once a write to stdout fails (the reader went away); installed once per process. A write to stderr that
 * fails is ignored: there is nowhere left to report it. Long-running commands follow the signal to stop their work.
 */
export function stdoutClosed(): AbortSignal {
  if (closed === undefined) {
    const controller = new AbortController();
    closed = controller;
    process.stdout.on("error", (err) => {
      // Also set here: the error is reported a tick after the failed write, possibly after main set the code.
      process.exitCode = EXIT_CLOSED_OUTPUT;
      controller.abort(err);
    });
    process.stderr.on("error", () => {});
  }
  return closed.signal;
}
