// What the MCP tool of a verb says besides the verb's own words and schema (§8): a sentence of what it does to the
// world and who approves it, and the arguments it adds (`dry_run` to writes and gated verbs, `confirm` to gated ones). Pure.

import { sentence } from "./sentence.js";
import type { EffectivePolicy } from "./types.js";

type ToolPolicy = Pick<EffectivePolicy, "policy" | "confirm">;

const DRY_RUN = { type: "boolean", description: "Return the plan and its plan_id; run nothing." } as const;
const CONFIRM = { type: "string", description: "The plan_id of a dry run of these same arguments: the plan a person approved (or, for a plan check, the one you restate)." } as const;

/** Which of `dry_run` and `confirm` a verb's tool takes: `confirm` when it is gated, `dry_run` when it writes or is gated. */
export function controlsOf(policy: ToolPolicy): { gated: boolean; previewable: boolean } {
  const gated = policy.confirm !== false;
  return { gated, previewable: gated || policy.policy === "write" };
}

/** The verb's schema with the properties its tool adds (`dry_run`, `confirm`) where it takes them; as it is where none. */
export function withControls<T extends Record<string, unknown>>(schema: T, policy: ToolPolicy): T {
  const { gated, previewable } = controlsOf(policy);
  // A gated verb is previewable too.
  if (!previewable) return schema;
  const properties = (schema["properties"] ?? {}) as Record<string, unknown>;
  return { ...schema, properties: { ...properties, ...(previewable ? { dry_run: DRY_RUN } : {}), ...(gated ? { confirm: CONFIRM } : {}) } };
}

/** Two sentences: what the verb does (its description, or a fallback), then what the tool does to the world. */
export function toolDescription(own: string | undefined, packName: string, verb: string, policy: ToolPolicy, allowWrite: boolean): string {
  const first = (own ?? "").trim() === "" ? `Runs ${verb} of ${packName}.` : sentence(own!);
  const approval =
    policy.confirm === "person"
      ? "needs a person's approval of each run (call with dry_run: true to see the plan first)"
      : policy.confirm === "plan"
        ? "needs its plan_id restated (call with dry_run: true, then again with the same arguments and confirm: <plan_id>)"
        : undefined;
  if (policy.policy === "read") return `${first} Read-only: it changes nothing${approval ? `, but ${approval}` : ""}.`;
  // What the policy makes it, not what hcp knows it does: a generated pack classes a verb by its name and help.
  const effect = [`A write (it may change things)`];
  if (approval) effect.push(approval);
  if (!allowWrite) effect.push("and is refused: this server was started without --allow-write");
  return `${first} ${effect.join(", ")}.`;
}
