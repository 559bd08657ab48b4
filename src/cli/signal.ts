// SIGINT, SIGTERM, SIGHUP, SIGQUIT and a closed stdout (EPIPE) as an abort signal for long commands, which then kill
// their running children and answer what is in flight, and the exit code a signal means (a closed stdout sets its own,
// 141). SIGHUP (the terminal closed, the parent's session ended) and SIGQUIT (Ctrl-\ at the terminal) too: left to
// Node's default, each ends the process at once, and children in their own process groups would live on.

import { constants } from "node:os";
import { stdoutClosed } from "../framework/pipes.js";

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * Runs `work` with a signal that aborts on SIGINT/SIGTERM/SIGHUP/SIGQUIT (its reason is the signal's name) or a closed
 * stdout; the handlers are gone once it settles.
 */
export async function untilSignal<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const handlers = STOP_SIGNALS.map((name) => [name, () => stop.abort(name)] as const);
  // Not once: a second signal while the children are being killed must not end the process before they are gone.
  for (const [name, onSignal] of handlers) process.on(name, onSignal);
  try {
    return await work(AbortSignal.any([stop.signal, stdoutClosed()]));
  } finally {
    for (const [name, onSignal] of handlers) process.off(name, onSignal);
  }
}

/** The shell's code for a run a signal stopped: 128 + its number (SIGHUP 129, SIGINT 130, SIGQUIT 131, SIGTERM 143); null when none did. */
export function stopExitCode(signal: AbortSignal): number | null {
  if (!signal.aborted || !STOP_SIGNALS.includes(signal.reason as StopSignal)) return null;
  return 128 + constants.signals[signal.reason as StopSignal];
}
