// The young generation of a long-running server (`hcp serve`, `hcp exec`), bounded at 16 MiB. Under a steady
// stream of calls V8 doubles its two semi-spaces until they are 16 MiB each, 32 MiB resident for as long as calls
// keep coming. `--max-semi-space-size` is read only when a process starts; the growth factor is read at every
// collection that may grow the young generation, so after each collection it is set to 1 once the young
// generation has reached the bound (and back to V8's 2 below it, after V8 has shrunk it when idle). An operator's
// own `--max-semi-space-size` or `--semi-space-growth-factor` (in NODE_OPTIONS, or given to node) is left to rule alone.

import { PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { setV8Flag } from "../v8-flag.js";

/** Both semi-spaces together: 8 MiB each, half of V8's most on 64-bit. */
export const YOUNG_GENERATION_BOUND = 16 * 1024 * 1024;

/** V8's `--semi-space-growth-factor` by default. */
const V8_GROWTH_FACTOR = 2;

/** The young generation's size now (the new space's two semi-spaces). */
export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
}

/**
 * Whether node was started with its own `--max-semi-space-size` or `--semi-space-growth-factor` (V8 takes `-` and `_`
 * alike): the factor set here is V8's own at start otherwise, which the launcher reads code caches under (v8-flag.ts).
 */
export function sizedByOperator(execArgv: readonly string[], nodeOptions = ""): boolean {
  return /--(?:max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)\b/.test(`${execArgv.join(" ")} ${nodeOptions}`);
}

let observer: PerformanceObserver | undefined;

/** Keeps the young generation at most `bound` bytes from now on, in this process, unless the operator sized it. */
export function boundYoungGeneration(bound = YOUNG_GENERATION_BOUND): void {
  if (sizedByOperator(process.execArgv, process.env["NODE_OPTIONS"])) return;
  let factor = V8_GROWTH_FACTOR;
  const adjust = () => {
    const wanted = youngGenerationBytes() >= bound ? 1 : V8_GROWTH_FACTOR;
    if (wanted === factor) return;
    setV8Flag("semi-space-growth-factor", wanted, V8_GROWTH_FACTOR);
    factor = wanted;
  };
  observer?.disconnect();
  adjust();
  observer = new PerformanceObserver(adjust);
  observer.observe({ entryTypes: ["gc"] });
}
