// Ends a run's processes (§6.4): SIGTERM to the child's group and to every descendant that left it, then
// SIGKILL `grace` later, whatever the pipes do. The runtime stays alive until then, and no longer than needed.
// The watchdog is told of the run from its start until nothing of it is left, should the runtime die first.

import { monotonicMs } from "../clock.js";
import { DescendantWatch } from "./descendants.js";
import { procHas } from "./proc-stat.js";
import type { RunCgroup } from "./run-cgroup.js";
import { guardRun, releaseCgroup, releaseRun } from "./watchdog.js";
import { withoutStack } from "./without-stack.js";

/** How often to look whether anything of the run is still alive, between SIGTERM and SIGKILL. */
const CHECK_MS = 50;

/**
 * Sends a signal (0: none, only the question) to the whole group led by pid. Never throws: returns false when
 * no process of the group is left (ESRCH), the goal. Anything else (EPERM: a member we may not signal is still
 * a member) cannot be helped from here, and must not crash the runtime.
 */
function killGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  // The error is the usual answer (a run's group is gone when it ends): made without a stack trace, which
  // would cost more than the kill itself.
  return withoutStack(() => {
    try {
      process.kill(-pid, signal);
      return true;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code !== "ESRCH";
    }
  });
}

export class Reaper {
  /**
   * Made before the child is spawned, so that no descendant is missed. Each session the run's processes make is guarded
   * by the watchdog as a run of its own, as the watch first sees it: should the runtime die during the grace, the
   * watchdog finds a process in one whose parent has exited (a setsid escapee) by that session.
   */
  private readonly watch: DescendantWatch;
  private pid: number | undefined;
  private deadline: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private killed = false;
  private over = false;
  /**
   * No process of the child's group was left: a group never gets members again once empty (a process can only
   * join a group that exists), so the group is not signalled again; a later group with its id is another's.
   */
  private groupGone = false;
  /** The child has been reaped: its pid is held only by its group and session while they have members. */
  private reaped = false;

  /**
   * `afterKill` runs once SIGKILL has been sent. `lastRun`: the runtime starts no run after this one (releaseRun).
   * `mark`: the run's mark (run-mark.ts), in the child's environment: what the run's processes are found by when /proc
   * shows no other tie. `cgroup`: the run's own (run-cgroup.ts), where one could be had: every process of the run is in it.
   */
  constructor(
    private readonly grace: number,
    private readonly afterKill: () => void,
    private readonly lastRun = false,
    private readonly mark?: string,
    private readonly cgroup?: RunCgroup,
  ) {
    this.watch = new DescendantWatch((session) => guardRun(session), mark);
  }

  /**
   * The child started (detached: in a session and group of its own): its group, its descendants and the holders of
   * its pipes (`pipeFds`, its fds that are pipes of the run) are now this reaper's.
   */
  started(pid: number, pipeFds: readonly number[] = [0, 1, 2]): void {
    this.watch.spawned(pid, pipeFds);
    const identity = guardRun(pid, this.mark);
    this.pid = pid;
    this.watch.root(pid, typeof identity === "object" ? identity.start : undefined, identity === "gone");
  }

  /** The child has exited and been reaped: its group and descendants get SIGTERM now (see end). */
  exited(): void {
    this.reaped = true;
    this.watch.reaped();
    this.end(false);
  }

  /** The child could not start: nothing to reap, and its cgroup (empty) is removed. */
  abandon(): void {
    this.release();
  }

  /**
   * Ends the run: SIGTERM now to the group and every descendant known (`holders`: also every process
   * holding the child's pipes), and to the members of its cgroup at the check that follows; SIGKILL at the deadline set
   * by the first call. May be called again.
   */
  end(holders: boolean): void {
    if (this.pid === undefined || this.killed) return;
    this.watch.refresh();
    if (holders) this.watch.adoptPipeHolders();
    // Always asked of the kernel, never judged empty from the watch's reads: a member that took the id of a process the
    // last listing had is not new to the watch where the pid cursor does not follow (a frozen /proc/loadavg), and the
    // group kill is what still finds it (one failed kill costs next to nothing).
    this.signalGroup("SIGTERM");
    this.watch.signal("SIGTERM");
    this.deadline ??= monotonicMs() + this.grace;
    if (this.timer === undefined) this.check();
  }

  /** Signals the child's group while it has members; records when it has none left. */
  private signalGroup(signal: NodeJS.Signals | 0): void {
    if (this.groupGone) return;
    // Once the child is reaped, a process with its pid means the group is gone, its id given out again: another's group
    // may have it now (the program can stop hcp while it empties the group and the ids come round).
    if ((this.reaped && procHas(this.pid!)) || !killGroup(this.pid!, signal)) this.groupGone = true;
  }

  private readonly check = (): void => {
    this.timer = undefined;
    this.signalGroup(0);
    // The run's cgroup holds every process of the run (what the watch has not seen too): each is sent SIGTERM once.
    const inCgroup = this.cgroup?.terminate() ?? false;
    if (this.groupGone && !inCgroup && !this.watch.anyAlive()) {
      // Nothing left as far as the watch knows; a fresh read of the tree tells whether the run's last process started
      // one as it exited (a double fork's escapee, found by its mark), which is then ended as the others were.
      this.watch.refresh();
      if (!this.watch.anyAlive()) {
        if (this.over) this.release();
        return;
      }
      this.watch.signal("SIGTERM");
    }
    const left = this.deadline! - monotonicMs();
    if (left > 0) {
      // Referenced: the runtime must not exit before the SIGKILL it owes.
      this.timer = setTimeout(this.check, Math.min(CHECK_MS, left));
      return;
    }
    this.killed = true;
    // Stopped first: what the run's processes started since the tree was last read is found while its parents live.
    this.signalGroup("SIGSTOP");
    this.watch.freeze();
    this.signalGroup("SIGKILL");
    this.watch.signal("SIGKILL");
    this.cgroup?.kill();
    this.release();
    this.afterKill();
  };

  /** The run is over (its pipes closed): stop watching the tree once nothing is left to kill. */
  finished(): void {
    this.over = true;
    if (this.timer === undefined) this.release();
  }

  /**
   * Nothing of the run is left to kill: the tree is not watched any more, and once the run's cgroup is removed (what was
   * killed in it gone), the watchdog forgets the run.
   */
  private release(): void {
    this.watch.stop();
    const forget = (): void => {
      for (const session of this.watch.sessionsMade()) releaseRun(session);
      if (this.pid !== undefined) releaseRun(this.pid, this.lastRun);
    };
    const cgroup = this.cgroup;
    if (cgroup === undefined) forget();
    else
      cgroup.remove(() => {
        releaseCgroup(cgroup.path);
        forget();
      });
  }
}
