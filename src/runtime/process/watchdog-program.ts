// hcp's watchdog, a program of its own (watchdog.ts starts it beside hcp's first run, in a session of its own): it
// outlives hcp, and once hcp is gone without ending its runs (SIGKILL, the OOM killer, a crash) it kills them.
// Its arguments are the runs still going when it was started again (`+PID ID` each, as below), then hcp's pid.
// hcp writes on its stdin one line per event: `+PID ID [RUN]` a run's child has started (its group and session have the
// id PID; ID is what the child is, read by hcp just after spawning it: its start time, `gone`, `foreign` or `unknown`,
// see RunIdentity; a line without one is looked up here; RUN the run's mark, run-mark.ts), `-PID` that run has ended,
// `?CURSOR TICKS [BYTES SHA256] [RUN]` a run's child is about to be spawned (a spawn mark, with a digest of its
// arguments: watchdog-unregistered.ts), cleared by the next `+PID` or a bare `?`; `&PATH` a run's cgroup made (its child
// is born in it: run-cgroup.ts), `~PATH` that cgroup removed. When stdin ends (hcp exited or died: the kernel closes its
// end), what is in the cgroups is killed, then the runs still registered and the run of a mark still open
// (watchdog-sweep.ts), and the watchdog exits; with none it exits at once. Its fd 3, the lifeline, is a pipe hcp holds
// and never writes: its end tells at once that hcp is gone, and when.

import { fstatSync } from "node:fs";
import { Socket } from "node:net";
import { bootTicks } from "./boot-clock.js";
import { findUnregisteredRun, parseMark, type SpawnMark } from "./watchdog-unregistered.js";
import { killCgroups } from "./run-cgroup.js";
import { isRunMark } from "./run-mark.js";
import { identify, sweep, type RunIdentity } from "./watchdog-sweep.js";

// SIGUSR1 would start Node's inspector, where any local user could run code as the watchdog's user (launch.cjs).
process.on("SIGUSR1", () => {});

const runs = new Map<number, RunIdentity>();
/** The marks of the runs registered with one (run-mark.ts), by their child's pid. */
const runMarks = new Map<number, string>();
let mark: SpawnMark | undefined;
/** The runs' cgroups not removed yet. */
const cgroups = new Set<string>();
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
  if (line[0] === "&" || line[0] === "~") {
    if (line[0] === "&") cgroups.add(line.slice(1));
    else cgroups.delete(line.slice(1));
    return;
  }
  const [head, id, runMark] = line.split(" ");
  const pid = Number(head!.slice(1));
  if (!Number.isInteger(pid) || pid <= 1) return;
  if (line[0] === "+") {
    runs.set(pid, identity(pid, id));
    if (runMark !== undefined && isRunMark(runMark)) runMarks.set(pid, runMark);
    mark = undefined;
  } else if (line[0] === "-") {
    runs.delete(pid);
    runMarks.delete(pid);
  }
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
// meanwhile (a pipe holds 64 KiB: thousands of lines).
const DRAIN_MS = 1000;
process.stdin.pause();
const draining = setInterval(() => {
  process.stdin.resume();
  setImmediate(() => process.stdin.pause());
}, DRAIN_MS);

/** When hcp was found gone, in clock ticks since boot: nothing it spawned began later. */
let goneAt: number | undefined;

/** hcp's end, seen: the rest of the pipe is read now, and its end starts the sweep. */
function hcpGone(): void {
  if (goneAt !== undefined) return;
  goneAt = bootTicks() ?? Infinity;
  clearInterval(draining);
  process.stdin.resume();
}

// hcp's end is seen at once on fd 3, the lifeline, a pipe hcp holds and never writes (watchdog.ts): nothing arrives on
// it, so it costs nothing while hcp runs. Where fd 3 is not such a socket (not started by hcp), the end of stdin is
// seen at the next drain.
try {
  if (fstatSync(3).isSocket()) {
    const lifeline = new Socket({ fd: 3, readable: true, writable: false });
    lifeline.on("end", hcpGone).on("close", hcpGone).on("error", hcpGone).resume();
  }
} catch {
  // no fd 3
}

let ending = false;
function end(): void {
  if (ending) return;
  ending = true;
  void (async () => {
    await killCgroups(cgroups);
    if (mark !== undefined && Number.isInteger(hcp)) {
      const run = await findUnregisteredRun(mark, hcp, goneAt ?? bootTicks() ?? Infinity);
      if (run !== undefined) runs.set(...run);
    }
    // The mark of a spawn still open too: its child carries it from its first instant.
    await sweep(runs, new Set([...runMarks.values(), ...(mark?.run === undefined ? [] : [mark.run])]));
  })().finally(() => process.exit(0));
}
process.stdin.on("end", end);
process.stdin.on("error", end);
