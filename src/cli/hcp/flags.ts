// The flags several hcp commands share, and the serve options they give.

import type { Context, FlagSpec } from "../../framework/index.js";
import type { ServeOptions } from "../../transports/packs.js";

export const ALLOW_WRITE: FlagSpec = { name: "allow-write", usage: "Let write verbs run", type: "bool" };
export const CONTROL_PLANE: FlagSpec = { name: "control-plane", usage: "Serve control-plane packs too", type: "bool" };

/** --allow-write and --control-plane, where the command defines them. */
export function serveOptions(ctx: Context): ServeOptions {
  const has = (name: string) => ctx.node.flags.some((f) => f.name === name);
  return {
    allowWrite: has(ALLOW_WRITE.name) && ctx.bool(ALLOW_WRITE.name),
    controlPlane: has(CONTROL_PLANE.name) && ctx.bool(CONTROL_PLANE.name),
  };
}
