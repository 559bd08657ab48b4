// Text forms shared by the transports: a plan for people, and the one-line summary of a result.

import type { DryRun, ExecResult } from "../runtime/execute.js";
import { subjectOf } from "../runtime/plan.js";

/** What a plan runs: `verb "x" of pack "p"`, or the pack's pass-through. */
export function planSubject(d: DryRun): string {
  return subjectOf(d.plan);
}

/** The plan's argv, policy and plan_id, one indented line each. */
export function planDetails(d: DryRun): string[] {
  const p = d.plan.policy;
  return [
    `  argv:    ${JSON.stringify(d.plan.argv)}`,
    `  policy:  ${p.policy}${p.confirm ? ", needs confirmation" : ""}; timeout ${p.timeout_ms} ms; output up to ${p.max_output_bytes} bytes per stream`,
    `  plan_id: ${d.plan_id}`,
  ];
}

/** A dry run for people: what would run, under which policy, and how to confirm it. */
export function renderPlan(d: DryRun): string {
  const { plan, plan_id } = d;
  const p = plan.policy;
  const lines = [`DRY RUN: would run ${planSubject(d)}`, ...planDetails(d)];
  if (p.confirm) lines.push(`  confirm by running it again with this plan_id (--confirm ${plan_id})`);
  lines.push("  nothing was run");
  return lines.join("\n") + "\n";
}

/** How a finished child ended, in a few words. */
export function outcome(r: ExecResult): string {
  if (r.timed_out) return `timed out (killed with ${r.signal ?? "SIGKILL"})`;
  if (r.signal !== null) return `killed by ${r.signal}`;
  return `exited with code ${r.exit_code}`;
}

/** True when a result is a failure for an agent: the child failed, was killed or timed out. */
export function failed(r: ExecResult): boolean {
  return r.timed_out || r.signal !== null || r.exit_code !== 0;
}
