// A verb's operand refuses the names of its command's subcommands (`not: {enum}`, pack/from-agentmeta.ts): given one,
// the program would run that subcommand instead. Those names tell the agent the subcommands exist. A subcommand none of
// whose verbs this server serves (--read-only, --tools, --exclude, or denied in policy.json) stays unnamed: its name
// is left out of what the agent reads (the tool's inputSchema, HARNESS.md's argument lines). The guard stays whole:
// the runtime validates the value against the verb's own schema, which still refuses it. Pure.

import { isObject } from "../pack/issues.js";
import { refusedValues } from "../pack/harness-render.js";
import type { ServedPack } from "./packs.js";

/** Whether a refused value of verb `key`'s operand names a subcommand with verbs in the pack, none of them served. */
export function hiddenSubcommand(pack: ServedPack, key: string, served: ReadonlySet<string>): (value: unknown) => boolean {
  return (value) => {
    if (typeof value !== "string") return false;
    const sub = `${key}.${value}`;
    const verbs = Object.keys(pack.surface.verbs).filter((k) => k === sub || k.startsWith(`${sub}.`));
    return verbs.length > 0 && !verbs.some((k) => served.has(k));
  };
}

/** A property's schema without the hidden values among those it refuses; the same object when it names none. */
export function withoutHiddenValues(schema: unknown, hidden: (value: unknown) => boolean): unknown {
  if (!isObject(schema)) return schema;
  const refused = refusedValues(schema);
  if (refused === undefined || !refused.values.some(hidden)) return schema;
  const kept = refused.values.filter((v) => !hidden(v));
  const not = kept.length === 0 ? undefined : { not: { enum: kept } };
  if (!refused.first) {
    const { not: _dropped, ...rest } = schema;
    return not === undefined ? rest : { ...rest, ...not };
  }
  const [first, ...others] = schema["prefixItems"] as unknown[];
  const { not: _droppedFirst, ...firstRest } = first as Record<string, unknown>;
  return { ...schema, prefixItems: [not === undefined ? firstRest : { ...firstRest, ...not }, ...others] };
}

/** An args schema whose properties name no hidden subcommand; the same object when none does. */
export function argsWithoutHidden(schema: Record<string, unknown>, hidden: (value: unknown) => boolean): Record<string, unknown> {
  const properties = isObject(schema["properties"]) ? schema["properties"] : undefined;
  if (properties === undefined) return schema;
  const entries = Object.entries(properties).map(([name, p]) => [name, withoutHiddenValues(p, hidden), p] as const);
  if (entries.every(([, kept, p]) => kept === p)) return schema;
  // fromEntries defines each property (a property named __proto__ stays a property).
  return { ...schema, properties: Object.fromEntries(entries.map(([name, kept]) => [name, kept])) };
}
