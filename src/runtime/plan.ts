// Plans and plan-bound confirmation (§7): a plan's id is the SHA-256 of its canonical JSON. Pure.

import { createHash } from "node:crypto";
import { compactJSON, dictionary } from "../json/stable.js";
import type { PolicyLevel } from "../pack/types.js";
import { RuntimeError } from "./errors.js";

/** The policy a plan runs under: the effective policy without its provenance. */
export interface PlanPolicy {
  policy: PolicyLevel;
  confirm: boolean;
  timeout_ms: number;
  max_output_bytes: number;
}

/** What would run: the pack, the verb (null for pass-through), the full argv (program first) and its policy. */
export interface Plan {
  pack: string;
  verb: string | null;
  argv: string[];
  policy: PlanPolicy;
}

/** What an openapi verb would send (§6.7): method, URL, header parameters and body; credentials are added only when it is sent. */
export interface RequestPlan {
  pack: string;
  verb: string;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  policy: PlanPolicy;
}

/** True for the plan of an HTTP request rather than of a program. */
export function isRequestPlan(plan: Plan | RequestPlan): plan is RequestPlan {
  return "method" in plan;
}

/** A copy whose objects are all dictionaries, so compactJSON writes their keys sorted. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    const out = dictionary<unknown>();
    for (const [k, v] of Object.entries(value)) out[k] = canonical(v);
    return out;
  }
  return value;
}

/** The canonical JSON of a plan: compact, keys sorted by UTF-8 bytes at every level. */
export function canonicalPlanJSON(plan: Plan | RequestPlan): string {
  return compactJSON(canonical(plan));
}

/** SHA-256 hex of the plan's canonical JSON. */
export function planId(plan: Plan | RequestPlan): string {
  return createHash("sha256").update(canonicalPlanJSON(plan), "utf8").digest("hex");
}

/** What a plan runs, for messages: `verb "x" of pack "p"`, or `pass-through of pack "p"`. */
export function subjectOf(plan: Pick<Plan, "pack" | "verb">): string {
  return `${plan.verb === null ? "pass-through" : `verb ${JSON.stringify(plan.verb)}`} of pack ${JSON.stringify(plan.pack)}`;
}

/** Passes when `given` is this plan's id; otherwise throws `confirmation_required` or `confirmation_mismatch`. */
export function checkConfirmation(plan: Plan | RequestPlan, given: string | undefined): void {
  const what = subjectOf(plan);
  if (given === undefined || given === "") {
    throw new RuntimeError(
      "confirmation_required",
      `${what} needs confirmation: dry-run it to see its plan and plan_id, then run it again confirming that plan_id`,
    );
  }
  if (given !== planId(plan)) {
    throw new RuntimeError(
      "confirmation_mismatch",
      // The given text is not quoted back: it is the caller's own, and may be anything, a secret included.
      `the confirmation given does not match the plan of ${what}: a confirmation only approves the exact plan it was issued for; dry-run again`,
    );
  }
}
