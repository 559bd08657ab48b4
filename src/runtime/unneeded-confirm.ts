// `confirm` on a verb that needs no confirmation is refused, here where every transport's call of a verb passes (MCP,
// exec, hcp run), and so is one on a pass-through (hcp run), which never takes one.
//
// The caller who sends a plan_id believes it runs the plan that id names, checked. On a verb with no gate nothing
// would check it: running anyway would run whatever the arguments say now, without the check the caller asked for.
// So it is refused, saying to call again without it; MCP's schema for such a tool has no `confirm` either.

import { effectivePolicy, passThroughPolicy } from "../pack/policy.js";
import type { LoadedPack } from "../pack/types.js";
import { RuntimeError } from "./errors.js";

/** Throws invalid_args when `confirm` is given for a verb whose policy asks for no confirmation. */
export function refuseUnneededConfirm(pack: LoadedPack, verb: string, confirm: unknown): void {
  if (confirm === undefined || pack.surface === null) return;
  const policy = effectivePolicy(pack, verb);
  // An unknown or denied verb is refused by the runtime, for that reason.
  if (policy.policy === "deny" || policy.confirm !== false) return;
  throw unneeded(`verb ${JSON.stringify(verb)} of pack ${JSON.stringify(pack.surface.id)}`);
}

/** Throws invalid_args when `confirm` is given for the pass-through of a pack that allows one (its policy has no confirm). */
export function refuseConfirmOnPassThrough(pack: LoadedPack, confirm: unknown): void {
  if (confirm === undefined || pack.surface?.pass_through === undefined) return;
  // A denied pass-through is refused by the runtime, for that reason.
  if (passThroughPolicy(pack).policy === "deny") return;
  throw unneeded(`pass-through of pack ${JSON.stringify(pack.surface.id)}`);
}

const unneeded = (subject: string) => new RuntimeError("invalid_args", `${subject} needs no confirmation, so a confirm (plan_id) is not taken: call it again without confirm; nothing was run`);
