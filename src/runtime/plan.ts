// Plans (§7): everything that decides what would run, in one canonical JSON text that plan ids sign. Pure.

import { createHash } from "node:crypto";
import { compactJSON, dictionary } from "../json/stable.js";
import type { ConfirmMode, LoadedPack, PolicyLevel } from "../pack/types.js";

/** The policy a plan runs under: the effective policy without its provenance. */
export interface PlanPolicy {
  policy: PolicyLevel;
  confirm: ConfirmMode;
  timeout_ms: number;
  max_output_bytes: number;
}

/** The pack a plan was made from: its folder and the SHA-256 of the surface.json and policy.json loaded. */
export interface PackStamp {
  root: string;
  surface_sha256: string | null;
  policy_sha256: string | null;
}

/**
 * The stamp of a pack, its digests read from the pack when first used (they are getters, as the
 * pack's are): a plan that is only run, never shown, stored or checked, never hashes the pack files.
 */
export function packStamp(pack: Pick<LoadedPack, "root" | "sha256">): PackStamp {
  const sha256 = pack.sha256;
  return {
    root: pack.root,
    get surface_sha256() {
      return sha256?.surface ?? null;
    },
    get policy_sha256() {
      return sha256?.policy ?? null;
    },
  };
}

/**
 * A program's plan, the pack's stamp last (as `stamped` adds it, its digests getters), made as one object literal:
 * defining the stamp's properties on a plan already made (getOwnPropertyDescriptors, defineProperties) cost each
 * run about 5 µs.
 */
export function programPlan(fields: Omit<Plan, keyof PackStamp>, pack: Pick<LoadedPack, "root" | "sha256">): Plan {
  const { sha256, root } = pack;
  const { pack: id, verb, argv, policy, stdin, env, cwd } = fields;
  return {
    pack: id,
    verb,
    argv,
    policy,
    stdin,
    env,
    cwd,
    root,
    get surface_sha256() {
      return sha256?.surface ?? null;
    },
    get policy_sha256() {
      return sha256?.policy ?? null;
    },
  };
}

/** The plan with the stamp's properties added last, as they are (its getters stay getters). */
export function stamped<T extends object>(plan: T, stamp: PackStamp): T & PackStamp {
  return Object.defineProperties(plan, Object.getOwnPropertyDescriptors(stamp)) as T & PackStamp;
}

/**
 * What would run: the pack, the verb (null for pass-through), the full argv (program first), its
 * policy, the SHA-256 of its stdin, the variables the child gets from policy `env`, `agent_env` and
 * the binding (secrets as `hmac-sha256:<hex>`, keyed: see approval/secret-digest.ts), the working directory,
 * and the pack it was made from.
 */
export interface Plan extends PackStamp {
  pack: string;
  verb: string | null;
  argv: string[];
  policy: PlanPolicy;
  /** `sha256:<hex>` of the bytes written to the child's stdin; null when stdin is closed. */
  stdin: string | null;
  /** The child's planned variables; a secret's value is `hmac-sha256:<hex>` (keyed with the user's key, never a plain hash). */
  env: Record<string, string>;
  cwd: string;
}

/**
 * What an openapi verb would send (§6.7): method, URL, header parameters and body (credentials are
 * added only when it is sent, and named in `credentials` by their keyed digest), and the pack it was made from.
 */
export interface RequestPlan extends Partial<PackStamp> {
  pack: string;
  verb: string;
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  policy: PlanPolicy;
  /** Each credential the request carries, as `hmac-sha256:<hex>` (keyed with the user's key, never a plain hash). */
  credentials?: Record<string, string>;
}

/** Any plan: a program's or a request's. */
export type AnyPlan = Plan | RequestPlan;

/** True for the plan of an HTTP request rather than of a program. */
export function isRequestPlan(plan: AnyPlan): plan is RequestPlan {
  return "method" in plan;
}

export const sha256Hex = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** A copy whose objects are all dictionaries, so compactJSON writes their keys sorted. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value === "object" && value !== null) {
    const out = dictionary<unknown>();
    for (const [k, v] of Object.entries(value)) out[k] = canonical(v);
    return out;
  }
  return value;
}

/** The canonical JSON of a value: compact, keys sorted by UTF-8 bytes at every level. */
export function canonicalJSON(value: unknown): string {
  return compactJSON(canonical(value));
}

/** The canonical JSON of a plan, which plan ids sign. */
export function canonicalPlanJSON(plan: AnyPlan): string {
  return canonicalJSON(plan);
}

/** SHA-256 hex of the canonical plan: the same plan, whatever id it was issued under. */
export function planDigest(plan: AnyPlan): string {
  return sha256Hex(canonicalPlanJSON(plan));
}

/** What a plan runs, for messages: `verb "x" of pack "p"`, or `pass-through of pack "p"`. */
export function subjectOf(plan: Pick<AnyPlan, "pack" | "verb">): string {
  return `${plan.verb === null ? "pass-through" : `verb ${JSON.stringify(plan.verb)}`} of pack ${JSON.stringify(plan.pack)}`;
}
