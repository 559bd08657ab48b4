// The control arguments of a call (`confirm`, `dry_run`) where they are not taken are refused, here where every
// transport's call of a verb passes (MCP, exec, hcp run): one rule for every transport.
//
// `confirm`: the caller who sends a plan_id believes it runs the plan that id names, checked. On a verb with no gate,
// or on a pass-through (hcp run), which never takes one, nothing would check it: running anyway would run whatever the
// arguments say now, without the check the caller asked for. So it is refused, saying to call again without it.
//
// `dry_run`: a plan is what a write or a confirmation is decided on (§7); a verb that only reads and needs no
// confirmation has none to show or approve, and its plan_id could confirm nothing. MCP's tools take `dry_run` only
// where it means something (§8: write and gated verbs); exec and hcp run refuse it on the others as MCP does.
//
// MCP's schema for such a tool has neither argument.

import { effectivePolicy, passThroughPolicy } from "../pack/policy.js";
import type { LoadedPack } from "../pack/types.js";
import { RuntimeError } from "./errors.js";
import { subjectOf, type AnyPlan } from "./plan.js";

/** Throws invalid_args when `confirm` is given for a verb whose policy asks for no confirmation. */
export function refuseUnneededConfirm(pack: LoadedPack, verb: string, confirm: unknown): void {
  if (confirm === undefined || pack.surface === null) return;
  const policy = effectivePolicy(pack, verb);
  // An unknown or denied verb is refused by the runtime, for that reason.
  if (policy.policy === "deny" || policy.confirm !== false) return;
  throw unneededConfirm(`verb ${JSON.stringify(verb)} of pack ${JSON.stringify(pack.surface.id)}`);
}

/** Throws invalid_args when `confirm` is given for the pass-through of a pack that allows one (its policy has no confirm). */
export function refuseConfirmOnPassThrough(pack: LoadedPack, confirm: unknown): void {
  if (confirm === undefined || pack.surface?.pass_through === undefined) return;
  // A denied pass-through is refused by the runtime, for that reason.
  if (passThroughPolicy(pack).policy === "deny") return;
  throw unneededConfirm(`pass-through of pack ${JSON.stringify(pack.surface.id)}`);
}

const unneededConfirm = (subject: string) =>
  new RuntimeError("invalid_args", `${subject} needs no confirmation, so a confirm (plan_id) is not taken: call it again without confirm; nothing was run`);

/**
 * Throws invalid_args for the plan of a dry run of a verb that only reads and needs no confirmation. Asked once the
 * plan is made: what refuses any call first (an unknown verb, its arguments, a pack nobody trusted) refuses it first.
 */
export function refuseUnneededDryRun(plan: AnyPlan): void {
  // Pass-through keeps its dry run: the one view of the argv hcp run would run.
  if (plan.verb === null || plan.policy.policy !== "read" || plan.policy.confirm !== false) return;
  throw new RuntimeError(
    "invalid_args",
    `${subjectOf(plan)} only reads and needs no confirmation, so it has no dry run (a dry run is for verbs that write or need a confirmation): call it again without dry_run (hcp run: --dry-run) to run it; nothing was run`,
  );
}
