// MCP tools derived from packs: names, input schemas and annotations, one per listable verb. Pure.

import { toolName } from "../pack/fields.js";
import type { EffectivePolicy } from "../pack/types.js";
import { argsSchemaOf } from "../runtime/execute.js";
import { TransportError } from "./errors.js";
import { HTTP_OUTPUT_SCHEMA } from "./http-output.js";
import { verbsOf, type ServedPack, type ServeOptions } from "./packs.js";


/** The MCP tool of one verb, with what the server needs to call it. */
export interface VerbTool {
  name: string;
  pack: ServedPack;
  verb: string;
  policy: EffectivePolicy;
  /** The tool takes `dry_run` and `confirm`: its verb needs a plan-bound confirmation. */
  gated: boolean;
  /** The tools/list entry. */
  tool: {
    name: string;
    title: string;
    description: string;
    inputSchema: { type: "object"; [k: string]: unknown };
    outputSchema?: { type: "object"; [k: string]: unknown };
    annotations: { title: string; readOnlyHint: boolean; destructiveHint?: boolean; openWorldHint: boolean };
  };
}


const CONTROL = {
  dry_run: { type: "boolean", description: "Return the plan and its plan_id; run nothing." },
  confirm: { type: "string", description: "The plan_id of a dry run of these same arguments, approving exactly that plan." },
} as const;

function describe(pack: ServedPack, verb: string, policy: EffectivePolicy, opts: ServeOptions): string {
  const own = pack.surface.verbs[verb]?.description ?? `Runs ${verb} of ${pack.surface.id}.`;
  const notes: string[] = [`Policy: ${policy.policy}.`];
  if (policy.policy === "write" && !opts.allowWrite) notes.push("Refused: this server was started without --allow-write.");
  if (policy.confirm) notes.push("Needs confirmation: call with dry_run: true to get the plan and plan_id, then again with confirm: <plan_id> (or approve when asked).");
  return `${own} ${notes.join(" ")}`;
}

function inputSchema(pack: ServedPack, verb: string, gated: boolean): VerbTool["tool"]["inputSchema"] {
  const schema = argsSchemaOf(pack, verb) as VerbTool["tool"]["inputSchema"];
  if (!gated) return schema;
  const properties = (schema["properties"] ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(CONTROL)) {
    if (Object.hasOwn(properties, k)) {
      throw new TransportError("tool_name_collision", `verb ${JSON.stringify(verb)} of pack ${JSON.stringify(pack.surface.id)} has an argument named ${k}, which MCP uses for confirmation`);
    }
  }
  return { ...schema, properties: { ...properties, ...CONTROL } };
}

/** Every tool of the packs; two verbs with one tool name are refused. */
export function buildTools(packs: readonly ServedPack[], opts: ServeOptions = {}): VerbTool[] {
  const tools: VerbTool[] = [];
  const byName = new Map<string, string>();
  for (const pack of packs) {
    const mode = pack.surface.binding?.mode;
    const openWorld = mode !== "local" && mode !== "mock";
    for (const { key, policy } of verbsOf(pack, true)) {
      const name = toolName(pack.surface.id, key);
      const owner = `verb ${JSON.stringify(key)} of pack ${JSON.stringify(pack.surface.id)}`;
      const taken = byName.get(name);
      if (taken !== undefined) throw new TransportError("tool_name_collision", `tool name ${name} is taken twice: by ${taken} and by ${owner}; rename one`);
      byName.set(name, owner);
      const gated = policy.policy === "write" && policy.confirm;
      const title = `${pack.surface.name ?? pack.surface.id}: ${key}`;
      const annotations: VerbTool["tool"]["annotations"] =
        policy.policy === "read"
          ? { title, readOnlyHint: true, openWorldHint: openWorld }
          : { title, readOnlyHint: false, destructiveHint: gated, openWorldHint: openWorld };
      tools.push({
        name,
        pack,
        verb: key,
        policy,
        gated,
        tool: {
          name,
          title,
          description: describe(pack, key, policy, opts),
          inputSchema: inputSchema(pack, key, gated),
          ...(pack.surface.kind === "openapi" ? { outputSchema: HTTP_OUTPUT_SCHEMA } : {}),
          annotations,
        },
      });
    }
  }
  return tools;
}
