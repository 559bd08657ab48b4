// SIGINT, SIGTERM and a closed stdout (EPIPE) as an abort signal for long commands, which then kill their running
// children and answer what is in flight, and the exit code a signal means (a closed stdout sets its own, 141).

import { constants } from "node:os";
import { stdoutClosed } from "../framework/pipes.js";

type StopSignal = "SIGINT" | "SIGTERM";

/**
 * Runs `work` with a signal that aborts on SIGINT/SIGTERM (its reason is the signal's name) or a closed stdout;
 * the handlers are gone once it settles.
 */
export async function untilSignal<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onInt = () => stop.abort("SIGINT");
  const onTerm = () => stop.abort("SIGTERM");
  // Not once: a second signal while the children are being killed must not end the process before they are gone.
  process.on("SIGINT", onInt).on("SIGTERM", onTerm);
  try {
    return await work(AbortSignal.any([stop.signal, stdoutClosed()]));
  } finally {
    process.off("SIGINT", onInt).off("SIGTERM", onTerm);
  }
}

/** The shell's code for a run a signal stopped: 128 + its number (SIGINT 130, SIGTERM 143); null when none did. */
export function stopExitCode(signal: AbortSignal): number | null {
  if (!signal.aborted || (signal.reason !== "SIGINT" && signal.reason !== "SIGTERM")) return null;
  return 128 + constants.signals[signal.reason as StopSignal];
}
