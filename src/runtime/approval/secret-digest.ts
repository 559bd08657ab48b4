// How a plan names a secret (§7): by HMAC-SHA256 under the per-user key, with its own purpose label,
// not by its plain SHA-256. A plan is shown to the agent on a dry run; a plain digest of a weak secret
// (a person's password) would let the agent test guesses offline. A keyed one changes when the secret
// changes and is the same in every run of this user (one key), so an approved plan still matches.

import { createHmac } from "node:crypto";
import { loadKeySync } from "./key.js";

/** The form of a secret's digest in a plan; not `sha256:`, so nobody takes it for a plain hash. */
export const SECRET_DIGEST_PREFIX = "hmac-sha256:";

/** `hmac-sha256:<hex>` of HMAC-SHA256(key, "secret\n" + value): another label than plan ids' and records' MACs. */
export function secretDigest(key: Buffer, value: string): string {
  return SECRET_DIGEST_PREFIX + createHmac("sha256", key).update(`secret\n${value}`, "utf8").digest("hex");
}

/**
 * A function that sets `into[name]` to the digest of `value`, computed when first read (a cached getter):
 * a plan that is only run, never shown, stored or checked, never reads the key nor loads crypto. The key
 * is read from `stateDir` (made there on first use, as for plan ids) when the first digest is read.
 */
export function lazySecretDigests(stateDir: string): (into: Record<string, string>, name: string, value: string) => void {
  let key: Buffer | undefined;
  return (into, name, value) => {
    let digest: string | undefined;
    Object.defineProperty(into, name, {
      enumerable: true,
      configurable: true,
      get: () => (digest ??= secretDigest((key ??= loadKeySync(stateDir)), value)),
    });
  };
}
