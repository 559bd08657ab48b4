// Ends a run's processes (§6.4): SIGTERM to the child's group and to every descendant that left it, then
// SIGKILL `grace` later, whatever the pipes do. The runtime stays alive until then, and no longer than needed.

import { performance } from "node:perf_hooks";
import { DescendantWatch } from "./descendants.js";

/** How often to look whether anything of the run is still alive, between SIGTERM and SIGKILL. */
const CHECK_MS = 50;

/** Whether any process of the group led by pid is left. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (err) {
    // EPERM: a member we may not signal is still a member.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Sends a signal to the whole group led by pid. Never throws: a group already gone (ESRCH) is the goal. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left to kill. Anything else cannot be helped from here, and must not crash the runtime.
  }
}

export class Reaper {
  /** Made before the child is spawned, so that no descendant is missed. */
  private readonly watch = new DescendantWatch();
  private pid: number | undefined;
  private deadline: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private killed = false;
  private over = false;

  /** `afterKill` runs once SIGKILL has been sent. */
  constructor(
    private readonly grace: number,
    private readonly afterKill: () => void,
  ) {}

  /** The child started: its group, its descendants and the holders of its pipes are now this reaper's. */
  started(pid: number): void {
    this.pid = pid;
    this.watch.root(pid);
  }

  /** The child could not start: nothing to reap. */
  abandon(): void {
    this.watch.stop();
  }

  /**
   * Ends the run: SIGTERM now to the group and every descendant known (`holders`: also every process
   * holding the child's pipes), SIGKILL at the deadline set by the first call. May be called again.
   */
  end(holders: boolean): void {
    if (this.pid === undefined || this.killed) return;
    this.watch.refresh();
    if (holders) this.watch.adoptPipeHolders();
    killGroup(this.pid, "SIGTERM");
    this.watch.signal("SIGTERM");
    this.deadline ??= performance.now() + this.grace;
    if (this.timer === undefined) this.check();
  }

  private readonly check = (): void => {
    this.timer = undefined;
    const pid = this.pid!;
    if (!groupAlive(pid) && !this.watch.anyAlive()) {
      if (this.over) this.watch.stop();
      return;
    }
    const left = this.deadline! - performance.now();
    if (left > 0) {
      // Referenced: the runtime must not exit before the SIGKILL it owes.
      this.timer = setTimeout(this.check, Math.min(CHECK_MS, left));
      return;
    }
    this.killed = true;
    killGroup(pid, "SIGKILL");
    this.watch.signal("SIGKILL");
    this.watch.stop();
    this.afterKill();
  };

  /** The run is over (its pipes closed): stop watching the tree once nothing is left to kill. */
  finished(): void {
    this.over = true;
    if (this.timer === undefined) this.watch.stop();
  }
}
