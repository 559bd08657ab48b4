// The watchdog that outlives hcp, from hcp's side: a small program of its own (watchdog-program.ts), started before
// the first run's child or by an MCP server once it is ready for calls (a command that runs nothing never starts it),
// one per hcp process, in a session and group of its own with an empty environment and no shell. It is told on a pipe
// each run's child as it starts and each run as it ends. If hcp is gone without ending its runs (SIGKILL, the OOM killer, a crash), the kernel closes the pipe, and
// the watchdog kills what is still registered.

import type { ChildProcess, SpawnOptions } from "node:child_process";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import type { Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { helperExited, helperStarted } from "./descendants.js";
import { RuntimeError } from "../errors.js";
import { identify, type RunIdentity } from "./watchdog-sweep.js";
import { markLine, readyMarks } from "./watchdog-unregistered.js";

let watchdog: ChildProcess | undefined;
/** The runs registered and not ended, each with its child's identity: told again to a watchdog started after one died. */
const guarded = new Map<number, string>();
/** The runs' cgroups (run-cgroup.ts) not removed yet: told again to a watchdog started after one died. */
const cgroups = new Set<string>();
/** `-PID` lines not written yet: the ends of a burst of runs go in one write. */
let ended = "";
/** Whether hcp's exit is watched (once per process). */
let exitWatched = false;
/** Whether the watchdog waits as /bin/sh until hcp is gone (a one-shot run): decided by its first start. */
let waits: boolean | undefined;

/**
 * The watchdog of a one-shot run waits as this script of /bin/sh, given node and the program's arguments, until hcp is
 * gone, and only then becomes the program (exec: the same process). Before, it has nothing to do but hold what hcp
 * writes, which for one run the pipe holds: node's start-up (about 40 ms of CPU) would only compete with hcp for the
 * CPU. It reads its fd 3, the lifeline (startWatchdog), whose end releases it; the program then finds it ended.
 * Fixed text, nothing of a run's in it.
 */
const WAIT_FOR_HCP = 'read -r _ <&3; exec "$0" "$@"';

function refusal(why: string): RuntimeError {
  return new RuntimeError("spawn_failed", `cannot start hcp's watchdog, which ends the runs if hcp is killed (${why}): nothing was run`);
}

function send(text: string): void {
  watchdog?.stdin?.write(text);
}

function flushEnded(): void {
  if (ended === "") return;
  send(ended);
  ended = "";
}

/**
 * Starts the watchdog unless it runs. Throws RuntimeError `spawn_failed` when it cannot be started: a run is then
 * refused rather than run without the promise that none of its processes outlives hcp. `oneRun`: the process starts
 * one run only (a one-shot `hcp run`), whose watchdog waits as /bin/sh until hcp is gone (WAIT_FOR_HCP).
 */
export function startWatchdog(oneRun = false): void {
  if (watchdog !== undefined) return;
  // Where there is no /bin/sh (a container with node alone), node waits.
  waits ??= oneRun && existsSync("/bin/sh");
  // Beside this module: dist/src/runtime/ as compiled, dist/bin/ in the programs' bundles (where import.meta.dirname is
  // the bundle's __dirname: no URL is made at a one-shot run's start). Node before 20.11 has no import.meta.dirname.
  const program = join(import.meta.dirname ?? dirname(fileURLToPath(import.meta.url)), "watchdog-program.js");
  // A missing program would be found by node in the watchdog, and reported on a stderr nobody reads.
  if (!existsSync(program)) throw refusal(`${program} is missing`);
  let child: ChildProcess;
  try {
    // Detached: its own session and group, so that a signal to hcp's group (a terminal's, a supervisor's) leaves it.
    // Each run still going as an argument, `+PID ID`: a watchdog started again knows them as it exists. Told on the
    // pipe instead, they were lost if hcp was killed in the instant between the spawn and the write, which a run's
    // program can wait for (it sees the new watchdog in /proc). hcp's pid last: hcp's children are told by it
    // (watchdog-unregistered.ts), and whoever reads `ps` which hcp it guards.
    // Its fd 3 is the lifeline: a pipe hcp holds and never writes, whose end (the kernel closes it at hcp's exit or
    // death) tells the watchdog at once that hcp is gone, and when.
    const args = [program, ...[...guarded].map(([run, id]) => `+${run} ${id}`), ...[...cgroups].map((path) => `&${path}`), String(process.pid)];
    const options: SpawnOptions = { detached: true, env: {}, cwd: "/", windowsHide: true, stdio: ["pipe", "ignore", "ignore", "pipe"] };
    child = waits ? spawn("/bin/sh", ["-c", WAIT_FOR_HCP, process.execPath, ...args], options) : spawn(process.execPath, args, options);
  } catch (err) {
    throw refusal((err as Error).message);
  }
  child.on("error", () => {
    /* a failed spawn leaves no pid (below); a watchdog gone is found by its exit */
  });
  if (child.pid === undefined) throw refusal(`${waits ? "/bin/sh" : process.execPath} could not be spawned`);
  // A child of hcp's that is no run's: never taken for one that a run's child made with clone(CLONE_PARENT).
  const pid = child.pid;
  helperStarted(pid);
  // Never keeps hcp alive, and a write after it died (EPIPE) is no error of hcp's.
  child.unref();
  // Its stdin and its lifeline, ends of hcp's.
  for (const end of [child.stdin, child.stdio[3]] as Socket[]) {
    end.unref();
    end.on("error", () => {});
  }
  // Gone while hcp runs (killed: a run's program can find it): another is started at once, given the runs still
  // going, or by the next run if none is. One that cannot be started leaves the runs going unguarded.
  child.on("exit", () => {
    helperExited(pid);
    if (watchdog !== child) return;
    watchdog = undefined;
    if (guarded.size === 0) return;
    try {
      startWatchdog();
    } catch {
      // the next run is refused
    }
  });
  if (!exitWatched) {
    process.on("exit", atExit);
    exitWatched = true;
  }
  watchdog = child;
  ended = "";
  // Runs' spawn marks follow: a server that starts its watchdog ahead of its first call (warmUp) loads their hash now.
  readyMarks();
}

/**
 * hcp exits normally. With no run left the watchdog has nothing to do: it is ended at once, sparing what is left of
 * its start-up (or, waiting in /bin/sh, before hcp's end starts node). Otherwise it is told the last ends, and kills
 * the rest.
 */
function atExit(): void {
  if (guarded.size === 0 && cgroups.size === 0) watchdog?.kill("SIGKILL");
  else flushEnded();
}

/**
 * A run's child is about to be spawned with `args` after its program: the watchdog is told where the pid cursor and
 * the clock stand, a digest of the arguments, and the run's mark, so that it can find the child should hcp be killed
 * before guardRun tells it (watchdog-unregistered.ts). The child's program may run, and kill hcp, before the spawn
 * returns. Without /proc there is nothing to find it by, and nothing is told.
 */
export function markSpawn(args: readonly string[], runMark?: string): void {
  const line = markLine(args, runMark);
  if (line === undefined) return;
  // Written at once, with the ends waiting: it must be in the pipe before the fork.
  send(ended + line);
  ended = "";
}

/**
 * A run's cgroup (run-cgroup.ts), made for a child about to be spawned in it: should hcp die, the watchdog kills what is
 * in it. Written at once: it must be in the pipe before the fork.
 */
export function guardCgroup(path: string): void {
  cgroups.add(path);
  send(`${ended}&${path}\n`);
  ended = "";
}

/** A run's cgroup is removed: nothing is left in it to kill. */
export function releaseCgroup(path: string): void {
  if (!cgroups.delete(path)) return;
  if (ended === "") setImmediate(flushEnded);
  ended += `~${path}\n`;
}

/** The spawn marked has failed: there is no child to find. */
export function spawnFailed(): void {
  send("?\n");
}

/**
 * A run's child has just started (spawned detached: its group and session have its pid), or a process of a run made a
 * session (setsid: its id is that process's pid; reaper.ts guards it as a run of its own). It is identified here, not
 * reaped yet, so its pid is surely its own; the watchdog reads its pipe only now and then. Returns what it was found
 * to be (RunIdentity): its start time while it runs, `gone` once it has exited.
 */
export function guardRun(pid: number, runMark?: string): RunIdentity {
  const identity = identify(pid);
  // What the watchdog is told the child is: its start time, or why there is none (RunIdentity); then the run's mark, by
  // which it finds what /proc no longer ties to the run (run-mark.ts). A session a run made has none of its own.
  const id = `${typeof identity === "object" ? identity.start : identity}${runMark === undefined ? "" : ` ${runMark}`}`;
  guarded.set(pid, id);
  // Written at once, with the ends waiting: the child may already be running, and may kill hcp.
  const line = `${ended}+${pid} ${id}\n`;
  ended = "";
  send(line);
  return identity;
}

/**
 * The run has ended: nothing of it is left to kill. `last`: the runtime starts no run after it (a one-shot `hcp run`),
 * so with no run left the watchdog is ended now rather than at exit: where it is node (no /bin/sh to wait in), its
 * start-up would take CPU from hcp while the result is written and hcp exits (11 ms at load 11 to 13:
 * docs/performance.md).
 */
export function releaseRun(pid: number, last = false): void {
  if (!guarded.delete(pid)) return;
  if (last && guarded.size === 0 && cgroups.size === 0) {
    const ending = watchdog;
    // Its exit is then not a watchdog lost: none is started again (a run started after all would start one).
    watchdog = undefined;
    ending?.kill("SIGKILL");
    return;
  }
  if (ended === "") setImmediate(flushEnded);
  ended += `-${pid}\n`;
}
