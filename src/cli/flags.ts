// What both programs share about flags: --from-exe, and reading a string flag that may be absent.

import type { Context, FlagSpec } from "../framework/index.js";

/** `rungrad agentmeta|skill` and `hcp init`: the manifest from a program's endpoint. */
export const FROM_EXE: FlagSpec = { name: "from-exe", usage: "Read the manifest from PROGRAM __rungrad_manifest", type: "string" };

/** A string flag's value, undefined when it was not given (`--x=` gives ""). */
export function optionalString(ctx: Context, name: string): string | undefined {
  return ctx.changed(name) ? ctx.string(name) : undefined;
}
