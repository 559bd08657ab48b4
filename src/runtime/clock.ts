// Monotonic milliseconds for durations and deadlines. `performance.now()` would do the same, but its first use loads
// node:perf_hooks and its timing modules (about 1.5 ms of a one-shot `hcp run`: docs/performance.md); hrtime is
// part of `process`.

/** Milliseconds from an arbitrary origin, never going back: only differences mean anything. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
