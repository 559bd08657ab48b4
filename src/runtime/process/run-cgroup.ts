// A cgroup for each run, where hcp can make one (§6.4): a cgroup v2 inside hcp's own, which root can make, and a user
// where their cgroup is delegated to them (systemd's user services, and the scopes of the apps they start). The run's
// child is born in it: hcp steps into the run's cgroup for the instant of the spawn (a forked process starts in its
// parent's cgroup) and back out, so every process of the run is in it from its first instruction, whatever it does
// then (a session of its own, a double fork, another environment, clone(CLONE_PARENT)), and `cgroup.kill` ends them all
// at once, what they fork meanwhile too. A process of the run can leave it only by moving itself out, as hcp's user may;
// the /proc watch (descendants.ts) and the run's mark still look for it then. Where no cgroup can be had, those alone.

import { randomInt } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmdirSync, writeFileSync } from "node:fs";
import { withoutStack } from "./without-stack.js";

/**
 * A run's cgroup is named `hcp-<hcp's pid>-<n>-p<its pid namespace>` (the pid and the namespace caught; an earlier
 * hcp's, or one that cannot read its namespace, has no `-p…`): no other is ever killed. `n` is random: a run's process
 * could otherwise make the names of the next runs' cgroups first (hcp's pid is its parent's, and its own cgroup's name
 * tells `n`), and leave them born without one. A pid names a process of one pid namespace only: an hcp in a container
 * sharing the cgroup tree sees no process under another's pid, and must not take its runs for an hcp's left behind.
 */
const RUN_CGROUP = /(?:^|\/)hcp-(\d+)-\d+(?:-p(\d+))?$/;

/** The inode of hcp's pid namespace (`/proc/self/ns/pid` is `pid:[4026531836]`), whose pids it sees; undefined when unknown. */
let pidNamespace: string | undefined | null = null;
function ownPidNamespace(): string | undefined {
  pidNamespace ??= withoutStack(() => {
    try {
      return /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
    } catch {
      return undefined;
    }
  });
  return pidNamespace;
}

/** The most cgroups a run's cgroup is walked for (those its processes made inside it); cgroup.kill reaches them all. */
const MOST_INNER_CGROUPS = 1000;

/** How long the removal of a run's cgroup waits for its killed processes to be gone: a process in uninterruptible sleep may never be. */
const REMOVE_TRIES = 100;
const REMOVE_EVERY_MS = 10;

/** Mountinfo's octal escapes (`\040` for a space) undone. */
function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** The cgroup v2 hierarchies mounted writable, from /proc/self/mountinfo: each mount's root in the hierarchy, and where. */
export function writableCgroup2Mounts(mountinfo: string): { root: string; point: string }[] {
  const mounts: { root: string; point: string }[] = [];
  for (const line of mountinfo.split("\n")) {
    // ID PARENT MAJOR:MINOR ROOT MOUNT-POINT OPTIONS [OPTIONAL…] - TYPE SOURCE SUPER-OPTIONS
    const fields = line.split(" ");
    const dash = fields.indexOf("-", 6);
    if (dash < 0 || fields[dash + 1] !== "cgroup2" || fields[5]!.split(",").includes("ro")) continue;
    mounts.push({ root: unescapeMount(fields[3]!), point: unescapeMount(fields[4]!) });
  }
  return mounts;
}

/**
 * The folder of the process's own cgroup v2, from /proc/self/cgroup's `0::PATH` line and /proc/self/mountinfo, or
 * undefined: no cgroup v2, a hierarchy mounted read-only, or a mount that does not show the process's cgroup.
 */
export function cgroupFolder(cgroup: string, mountinfo: string): string | undefined {
  const own = cgroup.split("\n").find((line) => line.startsWith("0::"))?.slice(3);
  // A cgroup removed under the process reads `PATH (deleted)`.
  if (own === undefined || !own.startsWith("/") || own.endsWith(" (deleted)")) return undefined;
  for (const { root, point } of writableCgroup2Mounts(mountinfo)) {
    const inside = root === "/" ? own : own === root ? "/" : own.startsWith(`${root}/`) ? own.slice(root.length) : undefined;
    if (inside !== undefined) return inside === "/" ? point : `${point === "/" ? "" : point}${inside}`;
  }
  return undefined;
}

/** hcp's own cgroup, where runs' cgroups are made: undefined until looked up, null where none can be had. */
let runsHome: string | null | undefined;
/** Whether the kernel has cgroup.kill, once a cgroup showed it. */
let killable = false;

function ownHome(): string | null {
  if (process.platform !== "linux") return null;
  try {
    const folder = cgroupFolder(readFileSync("/proc/self/cgroup", "latin1"), readFileSync("/proc/self/mountinfo", "latin1"));
    // Told to the watchdog on a line of text: printable ASCII only, as systemd's names are.
    return folder !== undefined && /^[\x20-\x7e]+$/.test(folder) ? folder : null;
  } catch {
    return null;
  }
}

/** Runs `act`; returns the code of the error it threw (made without a stack trace: a failure is an expected answer). */
function errorCode(act: () => unknown): string | undefined {
  return withoutStack(() => {
    try {
      act();
      return undefined;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code ?? "unknown";
    }
  });
}

/** Moves hcp (all its threads) into the cgroup at `folder`. */
function moveSelf(folder: string): boolean {
  return errorCode(() => writeFileSync(`${folder}/cgroup.procs`, String(process.pid))) === undefined;
}

export class RunCgroup {
  /** The members already sent SIGTERM: each is sent it once. */
  private readonly termed = new Set<number>();
  /**
   * The run's processes are born in it and hcp is not. Not so when hcp could not step in (the cgroup was removed at
   * once), or not back out (its later children would be born in it too): the run then has no cgroup.
   */
  private ours = true;
  private removing = false;

  private constructor(
    readonly path: string,
    private readonly home: string,
  ) {}

  /**
   * A new cgroup for a run, or undefined where none can be had. A failure to make one, or to step into one, ends the
   * tries for the process: what denies it once (permissions, a controller's rules) denies it again.
   */
  static make(): RunCgroup | undefined {
    if (runsHome === undefined) {
      runsHome = ownHome();
      if (runsHome !== null) endLeftCgroups(runsHome);
    }
    if (runsHome === null) return undefined;
    let tries = 0;
    for (; tries < 3; tries++) {
      const ns = ownPidNamespace();
      const path = `${runsHome}/hcp-${process.pid}-${randomInt(2 ** 47)}${ns === undefined ? "" : `-p${ns}`}`;
      const failure = errorCode(() => mkdirSync(path));
      // Taken (by an earlier hcp with this pid, killed with its watchdog, as unlikely as it is): another name.
      if (failure === "EEXIST") continue;
      if (failure !== undefined) break;
      // cgroup.kill came with Linux 5.14: without it the run's processes could not all be ended at once. Looked at once.
      if ((killable ||= existsSync(`${path}/cgroup.kill`))) return new RunCgroup(path, runsHome);
      errorCode(() => rmdirSync(path));
      break;
    }
    // Three names taken: this run goes without. Anything else refuses the process's later runs too.
    if (tries < 3) runsHome = null;
    return undefined;
  }

  /** Calls `spawnChild` with hcp in the run's cgroup, so that the child is born in it. */
  spawnInside<T>(spawnChild: () => T): T {
    if (!moveSelf(this.path)) {
      runsHome = null;
      this.ours = false;
      errorCode(() => rmdirSync(this.path));
      return spawnChild();
    }
    try {
      return spawnChild();
    } finally {
      if (!moveSelf(this.home)) {
        runsHome = null;
        this.ours = false;
      }
    }
  }

  /**
   * Sends SIGTERM to each member not sent it yet, those of the cgroups its processes made inside it too (a program that
   * puts itself in a cgroup of its own to use a controller); returns whether any is left.
   */
  terminate(): boolean {
    if (!this.ours) return false;
    const members = cgroupsWithin(this.path).flatMap(membersOf);
    for (const pid of members) {
      if (this.termed.has(pid)) continue;
      this.termed.add(pid);
      errorCode(() => process.kill(pid, "SIGTERM"));
    }
    return members.length > 0;
  }

  /** SIGKILL to every member at once, and to what they fork meanwhile (the kernel's cgroup.kill). */
  kill(): void {
    if (this.ours) errorCode(() => writeFileSync(`${this.path}/cgroup.kill`, "1"));
  }

  /**
   * Removes the cgroup once its last member is gone (killed processes take a moment to exit), then calls `removed`,
   * once. One never emptied (a process in uninterruptible sleep) is left after about a second.
   */
  remove(removed: () => void): void {
    if (this.removing) return;
    this.removing = true;
    if (!this.ours) {
      removed();
      return;
    }
    removeWhenEmpty(this.path, removed);
  }
}

/**
 * The cgroup at `path` and those inside it, the innermost last (at most MOST_INNER_CGROUPS of them): a run's processes
 * may make cgroups inside the run's, which its `cgroup.procs` does not list and which keep it from being removed.
 */
function cgroupsWithin(path: string): string[] {
  const found = [path];
  for (let i = 0; i < found.length && found.length < MOST_INNER_CGROUPS; i++) {
    try {
      for (const entry of readdirSync(found[i]!, { withFileTypes: true })) if (entry.isDirectory()) found.push(`${found[i]}/${entry.name}`);
    } catch {
      // Removed meanwhile.
    }
  }
  return found;
}

/** The processes in the cgroup at `path` itself; none when it is gone. */
function membersOf(path: string): number[] {
  try {
    return readFileSync(`${path}/cgroup.procs`, "latin1").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * Removes the cgroup at `path`, and the cgroups made inside it, innermost first, once their last member is gone, or
 * gives up after about a second; then calls `done`.
 */
function removeWhenEmpty(path: string, done: () => void): void {
  let tries = 0;
  const attempt = (): void => {
    const busy = cgroupsWithin(path)
      .toReversed()
      .some((cgroup) => errorCode(() => rmdirSync(cgroup)) === "EBUSY");
    if (busy && ++tries < REMOVE_TRIES) setTimeout(attempt, REMOVE_EVERY_MS);
    else done();
  };
  attempt();
}

/**
 * The runs' cgroups an hcp no longer running left in `home` (killed together with its watchdog, which would have
 * ended them): what is still in them is killed, and they are removed. One whose hcp's pid runs (hcp, or a process
 * given its pid since) is left.
 */
function endLeftCgroups(home: string): void {
  let names: string[];
  try {
    names = readdirSync(home);
  } catch {
    return;
  }
  const ours = ownPidNamespace();
  for (const name of names) {
    const [, owner, ns] = RUN_CGROUP.exec(name) ?? [];
    // Only an hcp of this pid namespace is told gone by its pid (an earlier hcp's name says none: it is left).
    if (owner === undefined || ours === undefined || ns !== ours || Number(owner) === process.pid) continue;
    if (errorCode(() => process.kill(Number(owner), 0)) === "ESRCH") void killCgroups([`${home}/${name}`]);
  }
}

/**
 * The watchdog's part, once hcp is gone: every process in the runs' cgroups killed at once (SIGKILL, what they fork
 * meanwhile too), and the cgroups removed. Only a run's cgroup (RUN_CGROUP) is touched.
 */
export function killCgroups(paths: Iterable<string>): Promise<void> {
  const runs = [...paths].filter((path) => RUN_CGROUP.test(path));
  for (const path of runs) errorCode(() => writeFileSync(`${path}/cgroup.kill`, "1"));
  return Promise.all(runs.map((path) => new Promise<void>((done) => removeWhenEmpty(path, done)))).then(() => {});
}
