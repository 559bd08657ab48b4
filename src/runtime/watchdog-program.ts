// hcp's watchdog, a program of its own (watchdog.ts starts it beside hcp's first run, in a session of its own): it
// outlives hcp, and once hcp is gone without ending its runs (SIGKILL, the OOM killer, a crash) it kills them.
// hcp writes on its stdin one line per event: `+PID` a run's child has started (its group and session have the id
// PID), `-PID` that run has ended. When stdin ends (hcp exited or died: the kernel closes its end), the runs still
// registered are killed (watchdog-sweep.ts) and the watchdog exits; with none registered it exits at once.

import { identify, sweep, type RunIdentity } from "./watchdog-sweep.js";

const runs = new Map<number, RunIdentity>();
let partial = "";

process.stdin.setEncoding("latin1");
process.stdin.on("data", (chunk: string) => {
  const lines = (partial + chunk).split("\n");
  partial = lines.pop()!;
  for (const line of lines) {
    const pid = Number(line.slice(1));
    if (!Number.isInteger(pid) || pid <= 1) continue;
    // Looked up as it is told, just after hcp spawned it: the process with that pid now is the run's child.
    if (line[0] === "+") runs.set(pid, identify(pid));
    else if (line[0] === "-") runs.delete(pid);
  }
});

let ending = false;
function end(): void {
  if (ending) return;
  ending = true;
  void sweep(runs).finally(() => process.exit(0));
}
process.stdin.on("end", end);
process.stdin.on("error", end);
