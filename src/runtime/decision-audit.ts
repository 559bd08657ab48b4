// The audit line of each decision about a plan (§7.1): dry run, approval, refusal, the run's end.

import type { Gate } from "./approval/gate.js";
import { ApprovalError } from "./approval/store.js";
import type { AuditDecision, AuditEntry } from "./audit.js";
import type { PlanOptions } from "./call.js";
import { RuntimeError } from "./errors.js";
import type { Prepared } from "./prepare.js";

/** What a decision's line says beyond the plan: the decision, who made it, and how a run ended. */
type DecisionFields = Pick<AuditEntry, "decision" | "plan_id" | "by"> & Partial<AuditEntry>;

/** Writes one audit line for a plan (§7.1 field order); entries about plain reads are not written. */
export async function audit(gate: Gate, opts: PlanOptions, prepared: Prepared, fields: DecisionFields): Promise<void> {
  const { plan } = prepared;
  if (gate.audit === null || (plan.policy.policy !== "write" && plan.policy.confirm === false)) return;
  // Only the argv (or method and URL) is logged, as shown: masked, so no plan (nor secret digest) is made for it.
  const argv = prepared.logged;
  const entry: AuditEntry = {
    time: new Date().toISOString(),
    transport: opts.transport ?? "cli",
    ...(opts.clientAddress === undefined ? {} : { client_address: opts.clientAddress }),
    pack: plan.pack,
    verb: plan.verb,
    plan_id: fields.plan_id,
    argv,
    decision: fields.decision,
    by: fields.by,
    exit_code: fields.exit_code ?? null,
    duration_ms: fields.duration_ms ?? null,
  };
  if (fields.reason !== undefined) entry.reason = fields.reason;
  await gate.audit.append(entry);
}

/** Logs a refusal without hiding it: a log that cannot be written then is named on stderr. */
export async function auditRefusal(gate: Gate, opts: PlanOptions, prepared: Prepared, err: unknown): Promise<void> {
  const code = err instanceof RuntimeError ? err.code : "internal";
  const decision: AuditDecision = code === "confirmation_declined" ? "declined" : "refused";
  const plan_id = err instanceof ApprovalError ? err.plan_id : null;
  const by = err instanceof ApprovalError ? err.by : null;
  await auditOrWarn(gate, opts, prepared, { decision, plan_id, by, reason: code });
}

/** Writes an audit line that must not hide what it records: a log that cannot be written is named on stderr. */
export async function auditOrWarn(gate: Gate, opts: PlanOptions, prepared: Prepared, fields: DecisionFields): Promise<void> {
  try {
    await audit(gate, opts, prepared, fields);
  } catch (err) {
    process.stderr.write(`Warning: ${(err as Error).message}\n`);
  }
}
