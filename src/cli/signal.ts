// SIGINT and SIGTERM as an abort signal for long commands, which then kill their running children, and the exit code they mean.

import { constants } from "node:os";

type StopSignal = "SIGINT" | "SIGTERM";

/** Runs `work` with a signal that aborts on SIGINT/SIGTERM (its reason is the signal's name); the handlers are gone once it settles. */
export async function untilSignal<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const onInt = () => stop.abort("SIGINT");
  const onTerm = () => stop.abort("SIGTERM");
  process.once("SIGINT", onInt).once("SIGTERM", onTerm);
  try {
    return await work(stop.signal);
  } finally {
    process.off("SIGINT", onInt).off("SIGTERM", onTerm);
  }
}

/** The shell's code for a run a signal stopped: 128 + its number (SIGINT 130, SIGTERM 143); null when none did. */
export function stopExitCode(signal: AbortSignal): number | null {
  if (!signal.aborted) return null;
  const name: StopSignal = signal.reason === "SIGTERM" ? "SIGTERM" : "SIGINT";
  return 128 + constants.signals[name];
}
