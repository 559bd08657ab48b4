// hcp's watchdog, a program of its own (watchdog.ts starts it beside hcp's first run, in a session of its own): it
// outlives hcp, and once hcp is gone without ending its runs (SIGKILL, the OOM killer, a crash) it kills them.
// Its arguments are the runs still going when it was started again (`+PID ID` each, as below), then hcp's pid.
// hcp writes on its stdin one line per event: `+PID ID` a run's child has started (its group and session have the id
// PID; ID is what the child is, read by hcp just after spawning it: its start time, `gone`, `foreign` or `unknown`, see
// RunIdentity; a line without one is looked up here), `-PID` that run has ended, `?CURSOR TICKS` a run's child is
// about to be spawned (a spawn mark: watchdog-unregistered.ts), cleared by the next `+PID` or a bare `?`. When stdin
// ends (hcp exited or died: the kernel closes its end), the runs still registered, and the run of a mark still open,
// are killed (watchdog-sweep.ts) and the watchdog exits; with none it exits at once.

import { findUnregisteredRun, parseMark, type SpawnMark } from "./watchdog-unregistered.js";
import { identify, sweep, type RunIdentity } from "./watchdog-sweep.js";

const runs = new Map<number, RunIdentity>();
let mark: SpawnMark | undefined;
let partial = "";

function identity(pid: number, id: string | undefined): RunIdentity {
  if (id === undefined) return identify(pid);
  if (id === "gone" || id === "foreign" || id === "unknown") return id;
  return /^\d+$/.test(id) ? { start: id } : identify(pid);
}

function take(line: string): void {
  if (line[0] === "?") {
    mark = parseMark(line);
    return;
  }
  const [head, id] = line.split(" ");
  const pid = Number(head!.slice(1));
  if (!Number.isInteger(pid) || pid <= 1) return;
  if (line[0] === "+") {
    runs.set(pid, identity(pid, id));
    mark = undefined;
  } else if (line[0] === "-") runs.delete(pid);
}

// A watchdog started again while runs go (the one before was killed) is given them as arguments, before hcp's pid.
for (const line of process.argv.slice(2, -1)) take(line);
const hcp = Number(process.argv.at(-1));

process.stdin.setEncoding("latin1");
process.stdin.on("data", (chunk: string) => {
  const lines = (partial + chunk).split("\n");
  partial = lines.pop()!;
  for (const line of lines) take(line);
});

// Nothing is needed from the lines before hcp is gone (each carries its child's identity), so the pipe is drained once
// a second rather than at each line: a call to hcp costs the watchdog nothing, and the kernel keeps what hcp writes
// meanwhile (a pipe holds 64 KiB: thousands of lines). hcp's end is seen at the next drain, at most a second late.
const DRAIN_MS = 1000;
process.stdin.pause();
setInterval(() => {
  process.stdin.resume();
  setImmediate(() => process.stdin.pause());
}, DRAIN_MS);

let ending = false;
function end(): void {
  if (ending) return;
  ending = true;
  void (async () => {
    if (mark !== undefined && Number.isInteger(hcp)) {
      const run = await findUnregisteredRun(mark, hcp);
      if (run !== undefined) runs.set(...run);
    }
    await sweep(runs);
  })().finally(() => process.exit(0));
}
process.stdin.on("end", end);
process.stdin.on("error", end);
