// Text forms shared by the transports: a plan for people, and the one-line summary of a result.

import type { DryRun, ExecResult } from "../runtime/execute.js";
import { isHttpResult, type HttpResult } from "../runtime/openapi/result.js";
import { isRequestPlan, subjectOf } from "../runtime/plan.js";

/** What a plan runs: `verb "x" of pack "p"`, or the pack's pass-through. */
export function planSubject(d: DryRun): string {
  return subjectOf(d.plan);
}

/** What the plan runs: its argv, or the request's method, URL, header parameters and body. */
function planAction(d: DryRun): string[] {
  const plan = d.plan;
  if (!isRequestPlan(plan)) return [`  argv:    ${JSON.stringify(plan.argv)}`];
  const lines = [`  request: ${plan.method} ${plan.url}`];
  if (plan.headers !== undefined) lines.push(`  headers: ${JSON.stringify(plan.headers)}`);
  if (plan.body !== undefined) lines.push(`  body:    ${JSON.stringify(plan.body)}`);
  return lines;
}

/** The plan's argv (or request), policy and plan_id, one indented line each. */
export function planDetails(d: DryRun): string[] {
  const p = d.plan.policy;
  return [
    ...planAction(d),
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

/** True when a result is a failure for an agent: the child failed, was killed or timed out; the request got no 2xx. */
export function failed(r: ExecResult | HttpResult): boolean {
  if (isHttpResult(r)) return !r.ok;
  return r.timed_out || r.signal !== null || r.exit_code !== 0;
}

/** How a request ended, in a few words: `GET https://… answered 404`. */
export function httpOutcome(r: HttpResult): string {
  const what = `${r.request.method} ${r.request.url}`;
  if (r.timed_out) return `${what} timed out${r.status === null ? " before any answer" : ` while reading the ${r.status} answer`}`;
  return `${what} answered ${r.status}`;
}

/** What an agent reads of a request's result: the body as is, after the outcome when it was not a 2xx. */
export function httpText(r: HttpResult): string {
  const cut = r.body_truncated ? `\n[body truncated after ${Buffer.byteLength(r.body)} bytes]` : "";
  return r.ok ? r.body + cut : `${httpOutcome(r)}\n${r.body}${cut}`;
}
