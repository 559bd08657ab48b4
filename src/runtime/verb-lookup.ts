// Which verb a call names and what it would run (§6.1): the pack's usable surface, the verb, whether it can run
// or is denied, and its program and argv template.

import { wrapTemplate } from "../pack/fields.js";
import { effectivePolicy } from "../pack/policy.js";
import type { EffectivePolicy, LoadedPack, Surface, SurfaceVerb } from "../pack/types.js";
import { RuntimeError } from "./errors.js";
import { verbsHint } from "./verb-names.js";

/** A pack that may run: loaded without errors. */
export function usableSurface(pack: LoadedPack): Surface {
  if (!pack.ok || pack.surface === null) {
    const first = pack.issues.find((i) => i.severity === "error");
    throw new RuntimeError(
      "invalid_pack",
      `pack at ${pack.root} has validation errors and cannot run${first ? `: ${first.file}: ${first.path}: ${first.message}` : ""}`,
    );
  }
  return pack.surface;
}

/** The verbs of the pack a caller may use: denied verbs are never named to a caller (§4). */
export function usableVerbs(pack: LoadedPack, surface: Surface): string[] {
  return Object.keys(surface.verbs).filter((key) => effectivePolicy(pack, key).policy !== "deny");
}

export function verbOf(pack: LoadedPack, surface: Surface, verbKey: string): SurfaceVerb {
  const verb = Object.hasOwn(surface.verbs, verbKey) ? surface.verbs[verbKey] : undefined;
  if (verb === undefined) {
    // The verbs the caller may use (or the closest of many), so that a typo is seen at once.
    const hint = verbsHint(usableVerbs(pack, surface), verbKey, pack.root);
    throw new RuntimeError("unknown_verb", `pack ${JSON.stringify(surface.id)} has no verb ${JSON.stringify(verbKey)} (${hint})`);
  }
  return verb;
}

export function notExecutable(surface: Surface): RuntimeError | undefined {
  if (surface.kind === "sense_only") {
    return new RuntimeError("not_executable", `pack ${JSON.stringify(surface.id)} is sense_only: it has nothing to execute, only stimulus triggers`);
  }
  return undefined;
}

/** Refuses what policy never runs, not even as a dry run. */
export function checkDenied(policy: EffectivePolicy, what: string): void {
  if (policy.policy === "deny") throw new RuntimeError("denied", `${what} is denied by policy`);
}

/** The program and argv template of a verb (§6.1). */
export function commandOf(surface: Surface, verbKey: string, verb: SurfaceVerb): { bin: string; template: string[]; allowVerb: boolean } {
  if (surface.kind === "wrap" && surface.wrap !== undefined) {
    return { bin: surface.wrap.bin, template: wrapTemplate(surface.wrap, verb), allowVerb: verb.cli === undefined };
  }
  const program = verb.cli?.[0];
  if (program === undefined) {
    throw new RuntimeError("not_executable", `verb ${JSON.stringify(verbKey)} of pack ${JSON.stringify(surface.id)} has no cli to run`);
  }
  if (program.includes("{{") || program.includes("}}")) {
    throw new RuntimeError("not_executable", `verb ${JSON.stringify(verbKey)}: the program cli[0] must be literal, not a placeholder`);
  }
  return { bin: program, template: verb.cli!.slice(1), allowVerb: false };
}
