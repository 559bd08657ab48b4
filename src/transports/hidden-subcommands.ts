// A verb's operand refuses the names of its command's subcommands (`not: {enum}`, pack/from-agentmeta.ts): given one,
// the program would run that subcommand instead. Those names tell the agent the subcommands exist. A subcommand none of
// whose verbs this server serves (--read-only, --tools, --exclude, or denied in policy.json) stays unnamed: its name
// is left out of what the agent reads (the tool's inputSchema, HARNESS.md's argument lines). The guard stays whole:
// the runtime validates the value against the verb's own schema, which still refuses it. Pure.

import { isObject } from "../pack/issues.js";
import { refusedValues } from "../pack/argument-line.js";
import type { ServedPack } from "./packs.js";

/** Every command path of the pack's verbs: each key and each dotted path it begins with (`a.b.c`: `a`, `a.b`, `a.b.c`). */
function commandPaths(keys: Iterable<string>): Set<string> {
  const paths = new Set<string>();
  for (const key of keys) {
    const parts = key.split(".");
    for (let n = 1; n <= parts.length; n++) paths.add(parts.slice(0, n).join("."));
  }
  return paths;
}

/**
 * For verb `key`, whether a refused value of its operand names a subcommand with verbs in the pack, none of them in
 * `served`. The pack's command paths are read once, not once per value.
 */
export function hiddenSubcommands(pack: ServedPack, served: ReadonlySet<string>): (key: string) => (value: unknown) => boolean {
  const withVerbs = commandPaths(Object.keys(pack.surface.verbs));
  const withServed = commandPaths(served);
  return (key) => (value) => typeof value === "string" && withVerbs.has(`${key}.${value}`) && !withServed.has(`${key}.${value}`);
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
