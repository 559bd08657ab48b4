// SIGINT and SIGTERM as an abort signal for the transports, which then kill their running children.

/** Runs `work` with a signal that aborts on SIGINT/SIGTERM; this process's handlers are gone once it settles. */
export async function untilSignal<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once("SIGINT", abort).once("SIGTERM", abort);
  try {
    return await work(stop.signal);
  } finally {
    process.off("SIGINT", abort).off("SIGTERM", abort);
  }
}
