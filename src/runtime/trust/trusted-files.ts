// What a person's trust says of a pack before its OpenAPI document is loaded: whether the surface.json and
// policy.json loaded are the ones trusted. It is all the loader (openapi/packs.ts) may know before it fetches a
// document by `openapi.url`, and it needs neither the document nor the rest of trust (trust.ts imports the loader).

import { realpathSync } from "node:fs";
import type { LoadedPack } from "../../pack/types.js";
import { readTrustRecord, type TrustRecord } from "./trust-store.js";

/** The real path of the pack's folder; the folder itself when it cannot be resolved (it is then not found in the store). */
export function realRootOf(pack: LoadedPack): string {
  try {
    return realpathSync(pack.root);
  } catch {
    return pack.root;
  }
}

/** Which of surface.json and policy.json, as loaded, differ from what a person trusted. */
export function packFilesChanged(now: { surface_sha256: string | null | undefined; policy_sha256: string | null }, record: TrustRecord): string[] {
  return [now.surface_sha256 !== record.surface_sha256 && "surface.json", now.policy_sha256 !== record.policy_sha256 && "policy.json"].filter((f) => f !== false);
}

/**
 * Why hcp must not fetch an openapi pack's document by its `openapi.url` for a command nobody asked a person about
 * (hcp run with nobody to ask, describe, validate, list, trust --list): a person has not trusted its surface.json and
 * policy.json as they are now (they name the URL). Undefined when it may: no URL, or trusted as it is. An agent that
 * wrote the pack would otherwise have hcp send a request of its choosing (any https host, with what it likes in the
 * URL; a loopback port and path) before any trust is checked. Whether the fetched document is the one trusted is
 * checked after it is fetched.
 */
export function unfetchedBecause(pack: LoadedPack, stateDir: string): string | undefined {
  const ref = pack.surface?.kind === "openapi" ? pack.surface.openapi : undefined;
  if (!pack.ok || ref?.url === undefined || ref.path !== undefined) return undefined;
  const record = readTrustRecord(stateDir, realRootOf(pack));
  if (record === undefined) return "a person has never trusted it";
  const changed = packFilesChanged({ surface_sha256: pack.sha256?.surface, policy_sha256: pack.sha256?.policy ?? null }, record);
  return changed.length > 0 ? `it changed since a person trusted it (${changed.join(", ")})` : undefined;
}
