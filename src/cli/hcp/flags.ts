// The flags several hcp commands share, and the serve options they give.

import type { Context, FlagSpec } from "../../framework/index.js";
import type { ServeOptions } from "../../transports/packs.js";
import type { ToolSelection } from "../../transports/tools.js";

export const ALLOW_WRITE: FlagSpec = { name: "allow-write", usage: "Let write verbs run", type: "bool" };
export const CONTROL_PLANE: FlagSpec = { name: "control-plane", usage: "Serve control-plane packs too", type: "bool" };
export const STRICT: FlagSpec = { name: "strict", usage: "Refuse to start when a pack in a folder of packs does not load (default: leave it out and name it on stderr)", type: "bool" };

/** --allow-write, --control-plane and --strict, where the command defines them. */
export function serveOptions(ctx: Context): ServeOptions {
  const has = (name: string) => ctx.node.flags.some((f) => f.name === name);
  return {
    allowWrite: has(ALLOW_WRITE.name) && ctx.bool(ALLOW_WRITE.name),
    controlPlane: has(CONTROL_PLANE.name) && ctx.bool(CONTROL_PLANE.name),
    strict: has(STRICT.name) && ctx.bool(STRICT.name),
  };
}

/** --tools, --exclude and --read-only: which MCP tools a server offers. */
export const TOOL_SELECTION: FlagSpec[] = [
  { name: "tools", usage: "Serve only the tools whose names match one of these globs (* any characters, ? one); repeatable", type: "stringArray" },
  { name: "exclude", usage: "Do not serve the tools whose names match one of these globs; repeatable", type: "stringArray" },
  { name: "read-only", usage: "Serve read verbs only", type: "bool" },
];

/** The tool selection of a command that defines TOOL_SELECTION. */
export function toolSelection(ctx: Context): ToolSelection {
  return { tools: ctx.strings("tools"), exclude: ctx.strings("exclude"), readOnly: ctx.bool("read-only") };
}
