// SIGINT, SIGTERM, SIGHUP, SIGQUIT and a closed stdout (EPIPE) as an abort signal for long commands, which then kill
// their running children and answer what is in flight, and the exit code a signal means (a closed stdout sets its own,
// 141). SIGHUP (the terminal closed, the parent's session ended) and SIGQUIT (Ctrl-\ at the terminal) too: left to
// Node's default, each ends the process at once, and children in their own process groups would live on. So does an
// error hcp did not foresee (a bug) thrown outside any request's handling: left to Node, it ends the process with a
// stack trace and the calls in flight unanswered; here it stops the command as a signal does, and exits 2.

import { constants } from "node:os";
import { ExitCode } from "../framework/errors.js";
import { stdoutClosed } from "../framework/pipes.js";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/** The abort reason of an error hcp did not foresee. */
const FAULT = "fault";
/** How long a command stopped by a fault has to end its runs (the kill grace is 2 s) before the process exits anyway. */
const FAULT_EXIT_MS = 10_000;

/**
 * Runs `work` with a signal that aborts on SIGINT/SIGTERM/SIGHUP/SIGQUIT (its reason is the signal's name), a closed
 * stdout, or an exception or rejection nothing caught (its reason FAULT); the handlers are gone once it settles.
 */
export async function untilSignal<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const handlers = STOP_SIGNALS.map((name) => [name, () => stop.abort(name)] as const);
  let faulted = false;
  const onFault = (err: unknown) => {
    if (faulted) return;
    faulted = true;
    process.stderr.write(`${faultLine(err)}\n`);
    stop.abort(FAULT);
    // The state a bug left may keep the process alive: the runs have had their grace by then (the watchdog ends them
    // if they have not).
    setTimeout(() => process.exit(ExitCode.API), FAULT_EXIT_MS).unref();
  };
  // Not once: a second signal while the children are being killed must not end the process before they are gone.
  for (const [name, onSignal] of handlers) process.on(name, onSignal);
  process.on("uncaughtException", onFault).on("unhandledRejection", onFault);
  try {
    return await work(AbortSignal.any([stop.signal, stdoutClosed()]));
  } finally {
    for (const [name, onSignal] of handlers) process.off(name, onSignal);
    process.off("uncaughtException", onFault).off("unhandledRejection", onFault);
  }
}

/**
 * The operator's line for a fault: the error's kind and where in hcp's code it was thrown, never its text, which may
 * quote an argument, a program's output or a credential.
 */
function faultLine(err: unknown): string {
  const kind = err instanceof Error && /^\w{1,40}$/.test(err.name) ? err.name : "a value that is not an Error";
  const at = err instanceof Error ? /\(([^()\s]+:\d+:\d+)\)/.exec(err.stack ?? "")?.[1] : undefined;
  return `Error: internal error in hcp (${kind}${at === undefined ? "" : ` at ${at}`}; its text is not shown, as it may hold a secret): stopping as on SIGTERM, the calls in flight cancelled and answered, their programs killed`;
}

/**
 * The shell's code for a run a signal stopped: 128 + its number (SIGHUP 129, SIGINT 130, SIGQUIT 131, SIGTERM 143);
 * 2 for one a fault stopped (a runtime failure); null when neither did.
 */
export function stopExitCode(signal: AbortSignal): number | null {
  if (!signal.aborted) return null;
  if (signal.reason === FAULT) return ExitCode.API;
  return STOP_SIGNALS.includes(signal.reason as StopSignal) ? 128 + constants.signals[signal.reason as StopSignal] : null;
}
