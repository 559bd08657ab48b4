// --auto-probes: the fixtures a target's own manifest suggests, chosen so that no probe can change anything
// (reads and not-found probes run commands that do not mutate; writes only run under --dry-run or without --confirm).

import type { ValidCommand, ValidManifest } from "../manifest/types.js";
import type { Target } from "./target.js";

/** The fixtures --auto-probes can fill; the others (ambiguous names, API errors, secrets…) need a person's knowledge. */
export type AutoFixtures = Pick<Target, "read" | "mutate" | "auth" | "notFound" | "destructive" | "hasUpdate">;

/** The operand a not-found probe names: a resource no real tool should have. */
export const MISSING_OPERAND = "rungrad-probe-missing";
/** The operand for a write command whose examples show none. */
const DEFAULT_OPERAND = "rungrad-probe";

/** Required operands in a `use` line: `<name>` tokens after the command word (`[x]` is optional). */
const requiredOperands = (c: ValidCommand): number => c.use.split(/\s+/).slice(1).filter((t) => t.startsWith("<")).length;

const isJSON = (c: ValidCommand) => c.output_modes.includes("json");
/** A command that runs (a group without output modes only prints help). */
const runnable = (c: ValidCommand) => c.path.length > 0 && c.output_modes.length > 0 && c.path[0] !== "update";
const isRead = (c: ValidCommand) => runnable(c) && !c.mutates && !c.destructive;

/** Operand values for `c` from its first example that names it (`<tool> <path…> <operands…>`), else placeholders. */
function operandsOf(tool: string, c: ValidCommand): string[] {
  const n = requiredOperands(c);
  if (n === 0) return [];
  const prefix = [tool, ...c.path];
  for (const example of c.examples) {
    const words = example.trim().split(/\s+/);
    if (!prefix.every((w, i) => words[i] === w)) continue;
    const operands = words.slice(prefix.length, prefix.length + n);
    if (operands.length === n && operands.every((w) => !w.startsWith("-"))) return operands;
  }
  return Array<string>(n).fill(DEFAULT_OPERAND);
}

/** Prefers commands that document themselves (examples, related), then manifest order. */
const best = (cs: ValidCommand[]): ValidCommand | undefined =>
  [...cs].sort((a, b) => Number(b.examples.length > 0 && b.related.length > 0) - Number(a.examples.length > 0 && a.related.length > 0))[0];

/** The fixtures the manifest supports; a probe with no suitable command stays unset (not applicable). */
export function autoProbes(m: ValidManifest): AutoFixtures {
  const cs = m.commands as ValidCommand[];
  const out: AutoFixtures = {};
  const read = best(cs.filter((c) => isRead(c) && isJSON(c) && !c.requires_auth && requiredOperands(c) === 0));
  if (read) out.read = read.path;
  const mutate = best(cs.filter((c) => runnable(c) && c.mutates && c.supports_dry_run && !c.destructive));
  if (mutate) out.mutate = [...mutate.path, ...operandsOf(m.tool_name, mutate)];
  const destructive = best(cs.filter((c) => runnable(c) && c.destructive && c.requires_confirmation));
  if (destructive) out.destructive = [...destructive.path, ...operandsOf(m.tool_name, destructive)];
  const auth = best(cs.filter((c) => isRead(c) && c.requires_auth && requiredOperands(c) === 0));
  if (auth) out.auth = auth.path;
  // A read command with an operand, named after nothing: prefer a sibling of the read command (`item get` next to `item list`).
  const lookups = cs.filter((c) => isRead(c) && !c.requires_auth && requiredOperands(c) > 0);
  const sibling = read ? lookups.find((c) => c.path.slice(0, -1).join(" ") === read.path.slice(0, -1).join(" ")) : undefined;
  const notFound = sibling ?? best(lookups);
  if (notFound) out.notFound = [...notFound.path, ...Array<string>(requiredOperands(notFound)).fill(MISSING_OPERAND)];
  if (cs.some((c) => c.path.length === 1 && c.path[0] === "update")) out.hasUpdate = true;
  return out;
}
