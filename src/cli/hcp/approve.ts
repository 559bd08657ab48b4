// `hcp approve`: a person at a terminal approves one pending plan (shown exactly as it will run, then
// y/N), or lists the plans waiting (`--list`). It refuses without a terminal on stdin and stdout.

import type { Context } from "../../framework/index.js";
import { askYesNo } from "../../runtime/approval/approvers.js";
import { listPendingPlans, pendingForApproval, recordApproval } from "../../runtime/approval/gate.js";
import { escapeForPerson, planText, stdinLines } from "../../runtime/approval/show.js";
import { stateDirOf } from "../../runtime/approval/state.js";
import type { PendingPlan } from "../../runtime/approval/store.js";
import { isRequestPlan, subjectOf } from "../../runtime/plan.js";
import { TransportError } from "../../transports/errors.js";
import { auditOf, requirePersonAtTerminal } from "./flags.js";

function pendingText(plans: readonly PendingPlan[]): string {
  if (plans.length === 0) return "No plan is waiting for approval.\n";
  const blocks = plans.map((p) => `${planText(p.plan, { plan_id: p.plan_id, expires_at: p.expires_at })}\n  approve: hcp approve ${p.plan_id}`);
  return blocks.join("\n\n") + "\n";
}

/** The plan as the person reviews it: every field, then the start of its stdin (escaped) when it has one. */
function reviewText(p: PendingPlan): string {
  const lines = [planText(p.plan, { plan_id: p.plan_id, expires_at: p.expires_at })];
  lines.push(...stdinLines(p.stdin_preview, p.stdin_more_bytes));
  return lines.join("\n") + "\n";
}

export async function approveHandler(ctx: Context): Promise<void> {
  const stateDir = stateDirOf(process.env);
  if (ctx.bool("list")) {
    if (ctx.args.length > 0) throw new TransportError("usage", "give either a plan_id or --list, not both");
    const pending = await listPendingPlans(stateDir);
    // Plan values the agent chose, reviewed by a person: escaped in JSON as in text.
    await ctx.writeOutput({ model: { pending }, human: () => pendingText(pending), visible: true });
    return;
  }
  const id = ctx.args[0];
  if (id === undefined) throw new TransportError("usage", "give the plan_id to approve (see hcp approve --list)");
  requirePersonAtTerminal(ctx, "hcp approve", "approve its own plans");
  const pending = await pendingForApproval(stateDir, id);
  const audit = auditOf(ctx);
  const entry = { transport: "approve" as const, pack: pending.plan.pack, verb: pending.plan.verb, plan_id: pending.plan_id, argv: isRequestPlan(pending.plan) ? [pending.plan.method, pending.plan.url] : pending.plan.argv, by: "approve", exit_code: null, duration_ms: null };
  // The question names what is approved: it is what a person reads last, under a plan that may be long.
  const yes = await askYesNo(process.stdin, process.stdout, `About to approve ${reviewText(pending)}`, `Approve ${escapeForPerson(subjectOf(pending.plan))}? [y/N] `);
  if (!yes) {
    await audit?.append({ time: new Date().toISOString(), decision: "declined", ...entry });
    await ctx.writeResult({ plan_id: pending.plan_id, approved: false }, () => "Not approved: nothing was recorded.\n");
    return;
  }
  // Logged first: an approval the audit log cannot hold is not given (fail closed).
  await audit?.append({ time: new Date().toISOString(), decision: "approved", ...entry });
  await recordApproval(stateDir, pending.plan_id);
  await ctx.writeResult(
    { plan_id: pending.plan_id, approved: true, expires_at: pending.expires_at },
    () => `Approved. The agent can now run this plan once with plan_id ${pending.plan_id}, until ${pending.expires_at}.\n`,
  );
}
