// What a call runs, before it is planned: a verb's or a pass-through's command, everything short of running
// checked but the write permission (§6, §7).

import { resolve } from "node:path";
import { effectivePolicy, passThroughPolicy } from "../pack/policy.js";
import type { EffectivePolicy, LoadedPack } from "../pack/types.js";
import { substitute, type Args } from "./argv.js";
import type { PlanOptions } from "./call.js";
import { RuntimeError } from "./errors.js";
import { requestPlan } from "./openapi/verb.js";
import { subjectOf, type Plan, type RequestPlan } from "./plan.js";
import { resolveProgram } from "./resolve.js";
import { maskedArgs } from "./secrets/secrets.js";
import { argsSchemaOf, requiredOf, validateArgs } from "./validate-args.js";
import { checkDenied, commandOf, notExecutable, usableSurface, verbOf } from "./verb-lookup.js";

/**
 * What a verb or pass-through runs, before its environment and pack are added to make the plan. `shownArgv` and
 * `shownRequest`: what it runs with each argument the schema marks secret as `***` in its own place (maskedArgs), for
 * the plan a person is shown; absent when no argument is secret (or the masked values do not make a command).
 */
export type Command = { policy: EffectivePolicy } & ({ pack: string; verb: string | null; argv: string[]; shownArgv?: string[] } | { request: RequestPlan; shownRequest?: RequestPlan });

/** What `make` returns, or undefined when it throws: a masked value (`***`) may be refused where the real one is not. */
function madeOrNot<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** The command of a verb: everything short of running is checked but the write permission (§7). Throws RuntimeError. */
export function verbCommand(pack: LoadedPack, verbKey: string, args: unknown, opts: PlanOptions): Command {
  const surface = usableSurface(pack);
  const unrunnable = notExecutable(surface);
  if (unrunnable) throw unrunnable;
  const verb = verbOf(pack, surface, verbKey);
  const policy = effectivePolicy(pack, verbKey);
  checkDenied(policy, subjectOf({ pack: surface.id, verb: verbKey }));
  const valid = validateArgs(pack, verbKey, verb, args, opts.oneCall === true);
  const hidden = maskedArgs(argsSchemaOf(pack, verbKey), valid) as Args | undefined;
  if (surface.kind === "openapi") {
    const request = requestPlan(pack, verbKey, valid, planPolicy(policy), hidden);
    return { policy, request, shownRequest: hidden && madeOrNot(() => requestPlan(pack, verbKey, hidden, planPolicy(policy))) };
  }
  const { bin, template, allowVerb } = commandOf(surface, verbKey, verb);
  const substituted = (values: Args) => substitute(template, values, { allowVerb, verb: verbKey, required: requiredOf(argsSchemaOf(pack, verbKey)) });
  const tail = substituted(valid);
  const program = resolveProgram(bin, pack.root, (opts.env ?? process.env)["PATH"], workingFolder(pack, opts.cwd));
  const shownTail = hidden && madeOrNot(() => substituted(hidden));
  return { pack: surface.id, verb: verbKey, argv: [program, ...tail], policy, ...(shownTail && { shownArgv: [program, ...shownTail] }) };
}

/** The folder a pack's programs run in: policy.json's `cwd` (relative to the pack), else `cwd` (--cwd), else the runtime's own. */
export function workingFolder(pack: LoadedPack, cwd?: string): string {
  return pack.policy?.cwd === undefined ? resolve(cwd ?? process.cwd()) : resolve(pack.root, pack.policy.cwd);
}

export function planPolicy(p: EffectivePolicy): Plan["policy"] {
  return { policy: p.policy, confirm: p.confirm, timeout_ms: p.timeout_ms, max_output_bytes: p.max_output_bytes };
}

export function passThroughCommand(pack: LoadedPack, argv: readonly string[], opts: PlanOptions): Command {
  const surface = usableSurface(pack);
  const name = JSON.stringify(surface.id);
  if (surface.kind !== "wrap" || surface.wrap === undefined || surface.pass_through === undefined) {
    throw new RuntimeError("not_executable", `pack ${name} declares no pass_through`);
  }
  const policy = passThroughPolicy(pack);
  checkDenied(policy, subjectOf({ pack: surface.id, verb: null }));
  const { allowedSubcommands, maxArgv } = surface.pass_through;
  const sub = argv[0];
  if (sub === undefined || !allowedSubcommands.includes(sub)) {
    throw new RuntimeError(
      "subcommand_not_allowed",
      `${sub === undefined ? "pass-through needs a subcommand" : `subcommand ${JSON.stringify(sub)} is not allowed`}; pack ${name} allows ${allowedSubcommands.map((s) => JSON.stringify(s)).join(", ")}`,
    );
  }
  if (argv.length > maxArgv) {
    throw new RuntimeError("too_many_arguments", `pass-through of pack ${name} takes at most ${maxArgv} arguments after the program, got ${argv.length}`);
  }
  if (argv.some((a) => a.includes("\0"))) throw new RuntimeError("nul_in_argument", "a pass-through argument must not contain NUL");
  const program = resolveProgram(surface.wrap.bin, pack.root, (opts.env ?? process.env)["PATH"], workingFolder(pack, opts.cwd));
  return { pack: surface.id, verb: null, argv: [program, ...argv], policy };
}
