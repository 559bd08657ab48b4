// What hcp's watchdog (watchdog-program.ts) kills once hcp is gone: each run still registered, its process group and
// session, every process carrying a registered run's mark (run-mark.ts), and every process /proc shows descending from
// them (a child of one of them, or a member of a session one of them made). A run's child is known by its start time,
// so a pid given to another process since is never signalled. Where there is no /proc, only the runs' groups are killed.

import { readdirSync } from "node:fs";
import { readStat, type ProcStat } from "./proc-stat.js";
import { runMarksOf } from "./run-mark.js";

export type { ProcStat };

/**
 * A run's child as the watchdog found it when hcp registered it: its start time while it runs; `gone` when it had
 * already exited (its group and session may live on, and their id, its pid, is given to no other process while they
 * have a member); `foreign` when that pid was another process's, one not leading a session of its own as every run's
 * child does (spawned detached); `unknown` without /proc.
 */
export type RunIdentity = { readonly start: string } | "gone" | "foreign" | "unknown";

/** What the process with a registered pid is, read when hcp registers it (just after spawning it). */
export function identify(pid: number): RunIdentity {
  const s = readStat(pid);
  if (s === undefined) return "unknown";
  if (s === "gone" || s.zombie) return "gone";
  return s.session === pid ? { start: s.start } : "foreign";
}

/**
 * Whether the run's group and session (their id is its child's pid) are still the run's, given what /proc shows now
 * at that pid: its child itself (same start), or no process, the id then held only by what is left of the run. A
 * process of another start there means the id was free and given out again: the run's group and session are gone.
 */
export function stillTheRuns(identity: RunIdentity, now: ProcStat | "gone" | undefined): boolean {
  if (identity === "foreign") return false;
  // Without /proc (as hcp's own reaper there) the group is signalled unchecked.
  if (now === undefined || now === "gone") return true;
  // Not read at registration (/proc could not tell then): a run's child leads a session of its own.
  if (identity === "unknown") return now.session === now.pid;
  return identity !== "gone" && now.start === identity.start;
}

/**
 * The processes of a snapshot of /proc that are the runs': members of `sessions` (the runs' own, and those their
 * processes made), those `marked` (carrying a run's mark: run-mark.ts) and children of those taken, to a fixed point.
 * Each session a taken process leads is added to `sessions`, which is kept from one snapshot to the next: its id stays
 * its own while it has a member. Zombies are taken (the sessions they lead still count) and left to the caller to skip.
 */
export function runProcesses(procs: readonly ProcStat[], sessions: Set<number>, self: number, marked: (p: ProcStat) => boolean = () => false): ProcStat[] {
  const taken = new Map<number, ProcStat>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of procs) {
      if (p.pid === self || taken.has(p.pid)) continue;
      if (!sessions.has(p.session) && !taken.has(p.ppid) && !marked(p)) continue;
      taken.set(p.pid, p);
      if (p.session === p.pid) sessions.add(p.pid);
      grew = true;
    }
  }
  return [...taken.values()];
}

/** Every process /proc lists; undefined when it cannot be listed. */
export function snapshot(): ProcStat[] | undefined {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const procs: ProcStat[] = [];
  for (const name of names) {
    const pid = Number(name); // "self", "sys", … are NaN
    if (!Number.isInteger(pid)) continue;
    const s = readStat(pid);
    if (s !== undefined && s !== "gone") procs.push(s);
  }
  return procs;
}

/** Whether a process carries one of `marks`, its environment read once per process (pid and start) in a sweep. */
function carriesOneOf(marks: ReadonlySet<string>): (p: ProcStat) => boolean {
  if (marks.size === 0) return () => false;
  const read = new Map<string, boolean>();
  return (p) => {
    const key = `${p.pid} ${p.start}`;
    let carries = read.get(key);
    if (carries === undefined) {
      carries = runMarksOf(p.pid)?.some((mark) => marks.has(mark)) === true;
      read.set(key, carries);
    }
    return carries;
  };
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone meanwhile, or not ours to signal
  }
}

/** Readings of /proc at most: while stopping what is found (a fork under way is found by the next), then while killing. */
const ROUNDS = 20;
const ROUND_MS = 25;

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, ROUND_MS));

/**
 * Kills every run registered (pid of its child → identity) that is still the run's, and all that is left of it. Each
 * process found is stopped first (SIGSTOP, which none can catch: a stopped process starts no other) and /proc read
 * again until nothing new is found, so that what one started meanwhile is found while its parent lives, its tie to the
 * run kept; only then is everything found killed. Killed at once instead, a process forking every few ms leaves
 * behind the children it started between a reading and its death, each in a session of its own.
 */
export async function sweep(runs: ReadonlyMap<number, RunIdentity>, marks: ReadonlySet<string> = new Set()): Promise<void> {
  const groups = [...runs].filter(([pid, identity]) => stillTheRuns(identity, readStat(pid))).map(([pid]) => pid);
  // A run whose group is gone may have left processes that carry its mark.
  if (groups.length === 0 && marks.size === 0) return;
  const sessions = new Set(groups);
  const marked = carriesOneOf(marks);
  // Each group in one call, none of its members able to fork meanwhile; without /proc, only the groups.
  for (const pid of groups) signal(-pid, "SIGSTOP");
  const stopped = new Set<number>();
  for (let round = 0; round < ROUNDS; round++) {
    // Read before anything is killed: a process whose parent dies is given another, and its tie to the run is lost.
    const procs = snapshot();
    const found = procs === undefined ? [] : runProcesses(procs, sessions, process.pid, marked).filter((p) => !p.zombie && !stopped.has(p.pid));
    if (found.length === 0) break;
    for (const p of found) {
      signal(p.pid, "SIGSTOP");
      stopped.add(p.pid);
    }
    await pause();
  }
  for (const pid of groups) signal(-pid, "SIGKILL");
  for (const pid of stopped) signal(pid, "SIGKILL");
  // Whatever was still missed (a stop not yet taken effect when the last reading found nothing new) is killed as found.
  for (let round = 0; round < ROUNDS; round++) {
    const procs = snapshot();
    const alive = procs === undefined ? [] : runProcesses(procs, sessions, process.pid, marked).filter((p) => !p.zombie);
    if (alive.length === 0) return;
    for (const p of alive) signal(p.pid, "SIGKILL");
    await pause();
  }
}
