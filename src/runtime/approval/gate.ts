// The approval gate (§7): whether a confirm-gated plan may run, and by whose approval. `confirm:
// "plan"` needs a restated, unused, unexpired plan_id of the exact plan; `confirm: "person"` needs a
// person — recorded with `hcp approve`, or asked now through the transport's approvers. Every id
// runs at most once.

import { isObject } from "../../pack/issues.js";
import { RuntimeError } from "../errors.js";
import { AuditLog, type AuditTransport } from "../audit.js";
import { planDigest, subjectOf, type AnyPlan } from "../plan.js";
import type { Answer, ApprovalPath, ApprovalRequest, PersonApprover } from "./approvers.js";
import { parsePlanId, PLAN_ID_FORM, type PlanIdParts } from "./plan-id.js";
import { planText, stdinLines } from "./show.js";
import { stateDirOf } from "./state.js";
import { ApprovalError, ApprovalStore, type PendingPlan } from "./store.js";

/** Where approvals live, where decisions are logged, and how a person can be asked. */
export interface Gate {
  /** The state directory: key, issued plans, approvals, used ids. */
  readonly stateDir: string;
  /** Null: no audit log (`--audit none`). */
  readonly audit: AuditLog | null;
  /** Tried in order when a person must approve. */
  readonly approvers: readonly PersonApprover[];
  /** An MCP session: the plans a person declined in it. */
  readonly session?: ApprovalSession;
}

/** The gate of a runtime environment: its state directory and audit log (HCP_AUDIT), nobody to ask. */
export function defaultGate(env: Readonly<Record<string, string | undefined>>): Gate {
  return { stateDir: stateDirOf(env), audit: AuditLog.of(undefined, env), approvers: [] };
}

/** The plans a person declined (or dismissed) in one session: they cannot run in it again. */
export class ApprovalSession {
  private readonly declined = new Set<string>();
  decline(plan: AnyPlan): void {
    this.declined.add(planDigest(plan));
  }
  hasDeclined(plan: AnyPlan): boolean {
    return this.declined.has(planDigest(plan));
  }
}

export const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export interface GateInput {
  /** The exact plan (what runs) and the plan as shown (secrets masked). */
  plan: AnyPlan;
  shown: AnyPlan;
  ttlSeconds: number;
  /** The start of stdin (masked), recorded with a pending plan for `hcp approve`, and the bytes after it. */
  stdinPreview?: string;
  stdinMoreBytes?: number;
}

/** A plan_id issued by a dry run; confirm-gated plans are recorded for `hcp approve` and its listing. */
export async function issuePlan(gate: Gate, input: GateInput, nowMs = Date.now()): Promise<{ plan_id: string; expires_at: string }> {
  const store = await ApprovalStore.open(gate.stateDir);
  const pending = input.plan.policy.confirm === false ? undefined : { shown: input.shown, stdinPreview: input.stdinPreview, stdinMoreBytes: input.stdinMoreBytes };
  const parts = store.issue(input.plan, input.ttlSeconds, nowMs, pending);
  return { plan_id: parts.id, expires_at: isoOf(parts.expiry) };
}

/** How the caller restates a plan_id, in its own transport's terms; every transport's when the caller is not known. */
function restated(id: string, transport: AuditTransport | undefined): string {
  const field = `"confirm": "${id}"`;
  switch (transport) {
    case "cli":
      return `hcp run: --confirm ${id}`;
    case "json_exec":
      return `hcp exec: ${field} in the request`;
    case "mcp":
      return `MCP: ${field} in the tool's arguments`;
    default:
      return `hcp run: --confirm ${id}; exec and MCP: ${field}`;
  }
}

/** Who was asked. */
const asker: Record<PersonApprover["by"], string> = {
  elicitation: "the MCP client",
  prompt: "the person at the terminal",
  approver: "the --approver program",
};

/** Who said no: a client may decline without asking its person, by its own settings (Codex under approval policy `never`). */
const decliner: Record<PersonApprover["by"], string> = { ...asker, elicitation: "the MCP client (its person, or the client by its own settings)" };

/**
 * Lets a confirm-gated plan run, returning the id it runs under and who approved it; otherwise throws
 * an ApprovalError saying exactly why and what a person can do. The id is consumed before returning.
 */
export async function authorize(
  gate: Gate,
  input: GateInput & { given?: string; signal?: AbortSignal; transport?: AuditTransport },
  now = () => Date.now(),
): Promise<{ plan_id: string; by: ApprovalPath }> {
  const { plan, shown, given } = input;
  const what = subjectOf(plan);
  if (gate.session?.hasDeclined(plan)) {
    throw new ApprovalError("confirmation_declined", `${what} was declined in this session; this plan cannot run in this session, whatever plan_id comes with it`, given ?? null);
  }
  const store = await ApprovalStore.open(gate.stateDir);
  let parts: PlanIdParts;
  if (given !== undefined && given !== "") {
    parts = store.verify(given, plan, shown, now());
    store.checkUnused(parts);
    if (plan.policy.confirm === "plan") {
      store.consume(parts, now());
      return { plan_id: parts.id, by: "plan" };
    }
    if (store.approved(parts)) {
      store.consume(parts, now());
      return { plan_id: parts.id, by: "approve" };
    }
  } else if (plan.policy.confirm === "plan") {
    throw new ApprovalError("confirmation_required", `${what} needs confirmation: dry-run it to get its plan_id, then run it again with that plan_id (${restated("ID", input.transport)})`);
  } else {
    parts = store.issue(plan, input.ttlSeconds, now(), { shown, stdinPreview: input.stdinPreview, stdinMoreBytes: input.stdinMoreBytes });
  }
  const expires_at = isoOf(parts.expiry);
  // The person asked sees the start of stdin too, and how much of it is not shown.
  const text = [planText(shown, { plan_id: parts.id, expires_at }), ...stdinLines(input.stdinPreview, input.stdinMoreBytes)].join("\n");
  const request: ApprovalRequest = { plan_id: parts.id, expires_at, subject: what, plan: shown, text };
  for (const approver of gate.approvers) {
    let answer: Answer;
    try {
      answer = await approver.ask(request, input.signal);
    } catch (err) {
      if (input.signal?.aborted) throw new RuntimeError("cancelled", `${what} was cancelled while waiting for approval; nothing was run`);
      const why = failureOf(err);
      throw new ApprovalError("approver_failed", `asking ${asker[approver.by]} failed (${why}); a person can approve this plan in a terminal with: hcp approve ${parts.id}`, parts.id);
    }
    if (input.signal?.aborted) throw new RuntimeError("cancelled", `${what} was cancelled while waiting for approval; nothing was run`);
    // The agent can have the same plan asked about several times at once: a decline of any of them, given
    // while this one waited, stands for the session, whatever is answered here.
    if (gate.session?.hasDeclined(plan)) {
      throw new ApprovalError("confirmation_declined", `${what} was declined in this session while this call waited; this plan cannot run in this session, whatever plan_id comes with it`, parts.id, approver.by);
    }
    if (answer === "accept") {
      store.consume(parts, now());
      return { plan_id: parts.id, by: approver.by };
    }
    gate.session?.decline(plan);
    // Declined (not dismissed): its id is spent, so that no one approves it later from hcp approve --list.
    if (answer === "decline") store.decline(parts, now());
    const kept = gate.session === undefined ? "" : "; this plan cannot run in this session";
    throw new ApprovalError("confirmation_declined", `${what} was not approved: ${answer === "decline" ? "declined" : "dismissed"} by ${decliner[approver.by]}; nothing was run${kept}`, parts.id, approver.by);
  }
  throw new ApprovalError(
    "approval_required",
    `${what} needs a person's approval. A person can approve this exact plan in a terminal with: hcp approve ${parts.id} ; then retry with the same plan_id (${restated(parts.id, input.transport)}) before ${expires_at}`,
    parts.id,
  );
}

/** The pending plan `hcp approve` reviews: issued by a dry run, needing a person, not expired, used or approved. */
export async function pendingForApproval(stateDir: string, id: string, nowMs = Date.now()): Promise<PendingPlan> {
  const parts = parsePlanId(id);
  if (parts === undefined) throw new ApprovalError("plan_id_malformed", `${JSON.stringify(id.slice(0, 80))} is not a plan_id (expected ${PLAN_ID_FORM})`);
  const store = await ApprovalStore.open(stateDir);
  const pending = store.pendingOf(parts);
  if (pending === undefined) {
    throw new ApprovalError("plan_id_unknown", `no plan waits for approval under plan_id ${id}: it was not issued by a dry run of hcp for this user (see hcp approve --list)`, id);
  }
  if (parts.expiry * 1000 <= nowMs) throw new ApprovalError("plan_id_expired", `plan_id ${id} expired at ${isoOf(parts.expiry)}; the agent must dry-run again`, id);
  store.checkUnused(parts);
  if (pending.plan.policy.confirm !== "person") throw new ApprovalError("plan_id_unknown", `plan_id ${id} is for ${pending.subject}, which needs no person's approval`, id);
  if (store.approved(parts)) throw new ApprovalError("plan_id_used", `plan_id ${id} is approved already; it runs once when the agent retries with it`, id);
  return pending;
}

/** Records a person's approval of a pending plan (single use, expiring with the id). */
export async function recordApproval(stateDir: string, id: string, nowMs = Date.now()): Promise<void> {
  const parts = parsePlanId(id);
  if (parts === undefined) throw new ApprovalError("plan_id_malformed", `${JSON.stringify(id.slice(0, 80))} is not a plan_id`);
  const store = await ApprovalStore.open(stateDir);
  if (!store.approve(parts, nowMs)) throw new ApprovalError("plan_id_used", `plan_id ${id} is approved already`, id);
}

/** Pending plans waiting for a person, soonest expiry first. A listing is a read: it creates nothing. */
export async function listPendingPlans(stateDir: string, nowMs = Date.now()): Promise<PendingPlan[]> {
  return (await ApprovalStore.openExisting(stateDir))?.listPending(nowMs) ?? [];
}

/**
 * Why asking failed, in one line: an error's first line, or, where its message ends in a list of validation issues as
 * JSON (the MCP SDK's, for an answer of the wrong shape: `Invalid elicitation result: [` and the list on the lines
 * after), what comes before it and the first issue's path and message.
 */
function failureOf(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const at = text.search(/\[\s*\n/);
  if (at >= 0) {
    try {
      const issues: unknown = JSON.parse(text.slice(at));
      const first: unknown = Array.isArray(issues) ? issues[0] : undefined;
      if (isObject(first) && typeof first["message"] === "string") {
        const path = Array.isArray(first["path"]) ? first["path"].join(".") : "";
        return `${text.slice(0, at)}${path === "" ? "" : `${path}: `}${first["message"]}`.split("\n")[0]!.slice(0, 300);
      }
    } catch {
      // not JSON: its first line
    }
  }
  return text.split("\n")[0]!;
}
