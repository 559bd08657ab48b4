// HarnessPackMeta (§3.6): derivation from a normalised surface and strict checking of a carried one. Pure.

import {
  ADAPTER_KINDS,
  PLANES,
  checkBinding,
  checkEnum,
  checkOpenApi,
  checkPassThrough,
  checkTransports,
  checkUrl,
  checkWrap,
  isPackId,
} from "./fields.js";
import { IssueSink, isObject, prop, show } from "./issues.js";
import type { HarnessPackMeta, Surface } from "./types.js";

/** The meta keys in wire order (hcp.md §3). */
export const META_KEYS = [
  "hcp", "pack_id", "adapter_kind", "binding", "wrap", "openapi", "pass_through", "plane", "transports", "skill_url",
] as const;

/**
 * The HarnessPackMeta of a normalised surface, keys in §3 order, absent optional keys omitted.
 * `plane` is always present (resolved, default runtime); a control-plane binding carries mode mothership.
 */
export function deriveMeta(surface: Surface): HarnessPackMeta {
  const meta: HarnessPackMeta = { hcp: 1, pack_id: surface.id, adapter_kind: surface.kind };
  if (surface.binding !== undefined) meta.binding = { ...surface.binding };
  else if (surface.plane === "control") meta.binding = { mode: "mothership" };
  if (surface.wrap !== undefined) meta.wrap = { ...surface.wrap };
  if (surface.openapi !== undefined) meta.openapi = { ...surface.openapi };
  if (surface.pass_through !== undefined) meta.pass_through = { ...surface.pass_through };
  meta.plane = surface.plane;
  if (surface.transports !== undefined) meta.transports = [...surface.transports];
  if (surface.skill_url !== undefined) meta.skill_url = surface.skill_url;
  return meta;
}

/**
 * Checks a `meta` object carried in surface.json: strictly against §3.6 (unknown fields fail),
 * then, when `derived` is known, field by field against it (an absent `plane` means runtime).
 */
export function checkCarriedMeta(v: unknown, derived: HarnessPackMeta | null, sink: IssueSink): void {
  const base = "meta";
  if (!isObject(v)) {
    sink.error("invalid_meta", base, `meta must be a HarnessPackMeta object, got ${show(v)}`);
    return;
  }
  const start = sink.issues.length;
  for (const k of Object.keys(v)) {
    if (!(META_KEYS as readonly string[]).includes(k)) sink.error("invalid_meta", prop(base, k), `unknown field ${JSON.stringify(k)} in meta`);
  }
  if (v.hcp !== 1) sink.error("invalid_meta", "meta.hcp", `meta.hcp must be 1, got ${show(v.hcp)}`);
  if (!isPackId(v.pack_id)) sink.error("invalid_meta", "meta.pack_id", `meta.pack_id must be a pack_id, got ${show(v.pack_id)}`);
  checkEnum(ADAPTER_KINDS, v.adapter_kind, "meta.adapter_kind", sink);
  if (v.binding !== undefined) checkBinding(v.binding, "meta.binding", sink);
  if (v.wrap !== undefined) {
    const w = checkWrap(v.wrap, "meta.wrap", sink);
    if (w !== undefined && w.bin === undefined) sink.error("invalid_meta", "meta.wrap.bin", "meta.wrap.bin is required");
  }
  if (v.openapi !== undefined) checkOpenApi(v.openapi, "meta.openapi", sink);
  if (v.pass_through !== undefined) checkPassThrough(v.pass_through, "meta.pass_through", sink);
  if (v.plane !== undefined) checkEnum(PLANES, v.plane, "meta.plane", sink);
  if (v.transports !== undefined) checkTransports(v.transports, "meta.transports", sink);
  if (v.skill_url !== undefined) checkUrl(v.skill_url, "meta.skill_url", sink);
  if (derived === null || sink.hasErrorsSince(start)) return;

  const want = derived as unknown as Record<string, unknown>;
  for (const k of META_KEYS) {
    const carried = k === "plane" && v.plane === undefined ? "runtime" : v[k];
    if (!deepEqual(carried, want[k])) {
      sink.error("invalid_meta", `meta.${k}`, `meta.${k} is ${show(carried)} but surface.json gives ${show(want[k])}`);
    }
  }
}

/** Structural equality of JSON values; object key order is ignored. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
