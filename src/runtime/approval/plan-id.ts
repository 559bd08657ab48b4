// Keyed plan ids (§7): `hcp1.<expiry>.<nonce>.<mac>` where mac = HMAC-SHA256(key, nonce ‖ expiry ‖
// canonical plan), cut to 128 bits. Only the key's owner can make one; it names one plan until it expires.

import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export interface PlanIdParts {
  /** The whole id, as given. */
  id: string;
  /** Unix seconds after which the id is refused. */
  expiry: number;
  /** 16 random bytes, base64url: names the id's state files. */
  nonce: string;
  mac: string;
}

const FORM = /^hcp1\.([0-9]{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;

/** What a well-formed id looks like, for messages. */
export const PLAN_ID_FORM = "hcp1.<expiry>.<nonce>.<mac>";

function macOf(key: Buffer, nonce: string, expiry: number, canonicalPlan: string): string {
  return createHmac("sha256", key).update(`${nonce}\n${expiry}\n${canonicalPlan}`, "utf8").digest().subarray(0, 16).toString("base64url");
}

/** A new id for the plan, valid until `expiry` (unix seconds). */
export function issuePlanId(key: Buffer, canonicalPlan: string, expiry: number): PlanIdParts {
  const nonce = randomBytes(16).toString("base64url");
  const mac = macOf(key, nonce, expiry, canonicalPlan);
  return { id: `hcp1.${expiry}.${nonce}.${mac}`, expiry, nonce, mac };
}

/** The parts of a well-formed id, or undefined. */
export function parsePlanId(id: string): PlanIdParts | undefined {
  const m = FORM.exec(id);
  if (m === null) return undefined;
  return { id, expiry: Number(m[1]), nonce: m[2]!, mac: m[3]! };
}

/** True when the id was issued with this key for exactly this plan. */
export function planIdMatches(key: Buffer, parts: PlanIdParts, canonicalPlan: string): boolean {
  const want = Buffer.from(macOf(key, parts.nonce, parts.expiry, canonicalPlan));
  const got = Buffer.from(parts.mac);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** A MAC of a state record under the key, so a record written by anything else is refused. */
export function recordMac(key: Buffer, kind: string, body: string): string {
  return createHmac("sha256", key).update(`${kind}\n${body}`, "utf8").digest("base64url");
}

export function macEquals(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
