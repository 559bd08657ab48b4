// Issued plans, approvals and used ids in the state directory (§7). Each is a file named
// `<expiry>.<nonce>` under plans/, approvals/ or used/; records carry a MAC under the user's key, so
// one written by anything but hcp is refused. A used id is an exclusively created file: of any
// number of processes consuming one id at once, exactly one succeeds.

import { readdirSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { RuntimeError } from "../errors.js";
import { canonicalJSON, canonicalPlanJSON, sha256Hex, subjectOf, type AnyPlan } from "../plan.js";
import { keyPath, loadKey } from "./key.js";
import { PLAN_ID_FORM, issuePlanId, macEquals, parsePlanId, planIdMatches, recordMac, type PlanIdParts } from "./plan-id.js";
import { ensurePrivateDir, MAX_STATE_FILE, readPrivate, removeQuietly, writePrivate } from "./state.js";

/** An issued plan as a person reviews it with `hcp approve`. */
export interface PendingPlan {
  plan_id: string;
  expires_at: string;
  subject: string;
  /** The plan as shown (secrets masked). */
  plan: AnyPlan;
  /** The start of the stdin the plan writes (masked), so a person can see more than its digest. */
  stdin_preview?: string;
  /** How many bytes of stdin come after that start (absent when it is all shown). */
  stdin_more_bytes?: number;
}

/** A refusal about a plan id; `plan_id` (the id concerned) and `by` (who declined) are for the audit log. */
/** The refusal of a plan that does not fit in the state directory. */
function noRoom(why: string): RuntimeError {
  return new RuntimeError("state_unavailable", `no plan_id issued: ${why}; nothing was recorded or run`);
}

export class ApprovalError extends RuntimeError {
  override name = "ApprovalError";
  constructor(
    code: ConstructorParameters<typeof RuntimeError>[0],
    message: string,
    readonly plan_id: string | null = null,
    readonly by: string | null = null,
  ) {
    super(code, message);
  }
}

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();
const fileOf = (p: PlanIdParts) => `${p.expiry}.${p.nonce}`;
/** The most pending plans kept at once, in number and in bytes (see checkRoom). */
const PENDING_MAX = 10_000;
const PENDING_MAX_BYTES = 16 << 20;
/** Used ids are kept a day past their expiry, in case the clock steps back. */
const USED_GRACE_S = 86_400;
/** The folder naming, by a plan's digest, the last id issued for it that waits for a person (ApprovalStore.waitingFor). */
const BY_PLAN = "by-plan";

export class ApprovalStore {
  private constructor(
    readonly dir: string,
    private readonly key: Buffer,
  ) {}

  /** The store of a state directory: its key made on first use, its folders created 0700. */
  static async open(dir: string): Promise<ApprovalStore> {
    const key = await loadKey(dir);
    for (const sub of ["plans", "approvals", "used", BY_PLAN]) await ensurePrivateDir(join(dir, sub));
    return new ApprovalStore(dir, key);
  }

  /**
   * The store of a state directory as it is, to read: undefined when it has no key or no plans folder yet, and nothing
   * is created (open would make a key and its folders).
   */
  static async openExisting(dir: string): Promise<ApprovalStore | undefined> {
    if (!present(keyPath(dir)) || !present(join(dir, "plans"))) return undefined;
    return ApprovalStore.open(dir);
  }

  private path(sub: "plans" | "approvals" | "used", p: PlanIdParts): string {
    return join(this.dir, sub, fileOf(p));
  }

  /**
   * Issues an id for the exact plan, valid for ttl seconds. With `pending`, the plan as shown is
   * recorded so that `hcp approve` can show it and a changed plan can be told from a made-up id.
   */
  issue(plan: AnyPlan, ttlSeconds: number, nowMs: number, pending?: { shown: AnyPlan; stdinPreview?: string; stdinMoreBytes?: number }): PlanIdParts {
    const canonical = canonicalPlanJSON(plan);
    const issue = () => issuePlanId(this.key, canonical, Math.floor(nowMs / 1000) + ttlSeconds);
    if (pending === undefined) return issue();
    const digest = sha256Hex(canonical); // planDigest, without making the canonical JSON again
    const index = join(this.dir, BY_PLAN, digest);
    const waiting = this.waitingFor(index, canonical, ttlSeconds, nowMs);
    if (waiting !== undefined) return waiting;
    const parts = issue();
    this.prune(nowMs);
    const body: PendingPlan = { plan_id: parts.id, expires_at: iso(parts.expiry), subject: subjectOf(plan), plan: pending.shown };
    if (pending.stdinPreview !== undefined) body.stdin_preview = pending.stdinPreview;
    if (pending.stdinMoreBytes !== undefined && pending.stdinMoreBytes > 0) body.stdin_more_bytes = pending.stdinMoreBytes;
    const record = JSON.stringify({ ...body, digest, mac: recordMac(this.key, "pending", canonicalJSON(body)) }) + "\n";
    this.checkRoom(Buffer.byteLength(record));
    writePrivate(this.path("plans", parts), record);
    try {
      writePrivate(index, parts.id);
    } catch {
      // The index only spares a person a second entry for one plan: not written (a full disk), the plan still is.
    }
    return parts;
  }

  /**
   * The id issued for this same plan (`index` names it by the plan's digest) that still waits, neither approved nor
   * used, with at least half its time left: a plan asked for again (a retry without its plan_id, another dry run)
   * keeps its id, so `hcp approve --list` lists it once and the id a person approves is the one the agent holds. The
   * id's own MAC binds it to the plan: an index hcp did not write can only fail to match.
   */
  private waitingFor(index: string, canonical: string, ttlSeconds: number, nowMs: number): PlanIdParts | undefined {
    try {
      const parts = parsePlanId(readPrivate(index, "plan index", "approval_tampered")?.toString("latin1") ?? "");
      if (parts === undefined || parts.expiry * 1000 - nowMs < ttlSeconds * 500) return undefined;
      if (!planIdMatches(this.key, parts, canonical) || this.pendingOf(parts) === undefined) return undefined;
      return this.exists("used", parts) || this.exists("approvals", parts) ? undefined : parts;
    } catch {
      return undefined; // unreadable or not hcp's: a new id
    }
  }

  /**
   * The parts of `given` when it is an unexpired id issued for exactly this plan; otherwise throws
   * plan_id_malformed, confirmation_mismatch (issued for another plan), plan_id_unknown or plan_id_expired.
   */
  verify(given: string, plan: AnyPlan, shown: AnyPlan, nowMs: number): PlanIdParts {
    const what = subjectOf(plan);
    const parts = parsePlanId(given);
    if (parts === undefined) {
      // The text given is not quoted back: it is the caller's own, and may be anything, a secret included.
      throw new ApprovalError("plan_id_malformed", `the plan_id given is not a plan_id (expected ${PLAN_ID_FORM}, as a dry run of ${what} prints it)`);
    }
    if (!planIdMatches(this.key, parts, canonicalPlanJSON(plan))) {
      const pending = this.pendingOf(parts);
      if (pending === undefined) {
        throw new ApprovalError("plan_id_unknown", `plan_id ${given} was not issued by a dry run of hcp for this user; dry-run ${what} to get one`);
      }
      const changed = differences(shown, pending.plan);
      throw new ApprovalError(
        "confirmation_mismatch",
        `plan_id ${given} was issued for another plan than this one of ${what}${changed.length > 0 ? ` (what differs: ${changed.join(", ")})` : ""}: a plan_id approves only the exact plan of its dry run; dry-run again`,
        given,
      );
    }
    if (parts.expiry * 1000 <= nowMs) {
      throw new ApprovalError("plan_id_expired", `plan_id ${given} expired at ${iso(parts.expiry)}; dry-run ${what} again for a new one`, given);
    }
    return parts;
  }

  /**
   * Refuses a pending plan that would not fit: one bigger than a state file may be (it could never be reviewed),
   * or one past PENDING_MAX plans or PENDING_MAX_BYTES waiting. Dry runs are the caller's to make, and each
   * writes a file: without a bound an agent could fill the disk, and a full disk refuses every write.
   */
  private checkRoom(bytes: number): void {
    if (bytes > MAX_STATE_FILE) throw noRoom(`the plan is ${bytes} bytes, over the ${MAX_STATE_FILE} a person can review with hcp approve`);
    const names = this.names("plans");
    let total = bytes;
    for (const name of names) {
      try {
        total += lstatSync(join(this.dir, "plans", name)).size;
      } catch {
        // removed meanwhile
      }
    }
    if (names.length >= PENDING_MAX || total > PENDING_MAX_BYTES) {
      throw noRoom(`${names.length} plans (${total - bytes} bytes) already wait for approval in ${join(this.dir, "plans")}, the most hcp keeps (${PENDING_MAX} plans, ${PENDING_MAX_BYTES} bytes); approve them or let them expire`);
    }
  }

  /** Throws plan_id_used when the id has run already, confirmation_declined when a person declined its plan. */
  checkUnused(parts: PlanIdParts): void {
    const record = readPrivate(this.path("used", parts), "used plan_id", "approval_tampered");
    if (record === undefined) return;
    if (record.includes('"declined_at"')) {
      throw new ApprovalError("confirmation_declined", `plan_id ${parts.id} was declined: its plan never runs; dry-run again to ask a person again`, parts.id);
    }
    throw new ApprovalError("plan_id_used", `plan_id ${parts.id} was already used: each plan_id runs at most once; dry-run again`, parts.id);
  }

  /**
   * Spends the id of a plan a person declined: it never runs, `hcp approve --list` no longer offers it, and a person
   * cannot approve it later by mistake. An id used or declined already is left as it is.
   */
  decline(parts: PlanIdParts, nowMs: number): void {
    this.spend(parts, "declined_at", nowMs);
  }

  /** Marks the id used, exactly once across every process; throws plan_id_used when another got there first. */
  consume(parts: PlanIdParts, nowMs: number): void {
    if (!this.spend(parts, "used_at", nowMs)) {
      throw new ApprovalError("plan_id_used", `plan_id ${parts.id} was already used: each plan_id runs at most once; dry-run again`, parts.id);
    }
  }

  /** Writes the id's `used` record, saying when and how it was spent; false when one is written already. */
  private spend(parts: PlanIdParts, how: "used_at" | "declined_at", nowMs: number): boolean {
    return writePrivate(this.path("used", parts), JSON.stringify({ plan_id: parts.id, [how]: new Date(nowMs).toISOString() }) + "\n", true);
  }

  /** Records a person's approval of the id (single use, expiring with it); false when one is recorded already. */
  approve(parts: PlanIdParts, nowMs: number): boolean {
    const body = { plan_id: parts.id, approved_at: new Date(nowMs).toISOString() };
    const record = { ...body, mac: recordMac(this.key, "approval", canonicalJSON(body)) };
    return writePrivate(this.path("approvals", parts), JSON.stringify(record) + "\n", true);
  }

  /** Whether a person approved the id with `hcp approve`; a record hcp did not write throws approval_tampered. */
  approved(parts: PlanIdParts): boolean {
    const path = this.path("approvals", parts);
    const raw = readPrivate(path, "approval record", "approval_tampered");
    if (raw === undefined) return false;
    const record = this.signed(raw, "approval", ["plan_id", "approved_at"]);
    if (record === undefined || record["plan_id"] !== parts.id) {
      throw new ApprovalError("approval_tampered", `the approval record ${path} was not written by hcp approve (its signature does not match); nothing was run. Remove it and approve again`, parts.id);
    }
    return true;
  }

  /** The pending plan recorded for this exact id, if any; a record hcp did not write throws approval_tampered. */
  pendingOf(parts: PlanIdParts): PendingPlan | undefined {
    const pending = this.readPending(fileOf(parts));
    // Same expiry and nonce but another MAC: a made-up id, not this record's.
    return pending?.plan_id === parts.id ? pending : undefined;
  }

  private readPending(name: string): PendingPlan | undefined {
    const path = join(this.dir, "plans", name);
    const raw = readPrivate(path, "pending plan", "approval_tampered");
    if (raw === undefined) return undefined;
    const record = this.signed(raw, "pending", ["plan_id", "expires_at", "subject", "plan", "stdin_preview", "stdin_more_bytes"]);
    if (record === undefined) {
      throw new ApprovalError("approval_tampered", `the pending plan ${path} was not written by hcp (its signature does not match); remove it and dry-run again`);
    }
    return record as unknown as PendingPlan;
  }

  /** The fields of a record whose MAC verifies, or undefined. */
  private signed(raw: Buffer, kind: string, fields: readonly string[]): Record<string, unknown> | undefined {
    let doc: unknown;
    try {
      doc = JSON.parse(raw.toString("utf8"));
    } catch {
      return undefined;
    }
    if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return undefined;
    const all = doc as Record<string, unknown>;
    const body: Record<string, unknown> = {};
    for (const f of fields) if (all[f] !== undefined) body[f] = all[f];
    const mac = all["mac"];
    return typeof mac === "string" && macEquals(mac, recordMac(this.key, kind, canonicalJSON(body))) ? body : undefined;
  }

  /** Pending plans that need a person and are neither approved, used nor expired, soonest expiry first. */
  listPending(nowMs: number): PendingPlan[] {
    const out: PendingPlan[] = [];
    for (const name of this.names("plans")) {
      const parts = partsOfName(name);
      if (parts === undefined || parts.expiry * 1000 <= nowMs) continue;
      let pending: PendingPlan | undefined;
      try {
        pending = this.readPending(name);
      } catch {
        continue; // not hcp's: never offered for approval
      }
      const full = pending === undefined ? undefined : parsePlanId(pending.plan_id);
      if (pending === undefined || full === undefined || fileOf(full) !== name) continue;
      if (pending.plan.policy.confirm !== "person") continue;
      if (this.exists("used", full) || this.exists("approvals", full)) continue;
      out.push(pending);
    }
    return out.sort((a, b) => (a.expires_at < b.expires_at ? -1 : a.expires_at > b.expires_at ? 1 : 0));
  }

  private exists(sub: "approvals" | "used", p: PlanIdParts): boolean {
    try {
      lstatSync(this.path(sub, p));
      return true;
    } catch {
      return false;
    }
  }

  private names(sub: string): string[] {
    try {
      return readdirSync(join(this.dir, sub));
    } catch {
      return [];
    }
  }

  /** Removes the records of ids that can no longer be used (used ids a day later), and index entries a day unused. */
  private prune(nowMs: number): void {
    const now = nowMs / 1000;
    for (const name of this.names(BY_PLAN)) {
      const path = join(this.dir, BY_PLAN, name);
      try {
        if (lstatSync(path).mtimeMs / 1000 + USED_GRACE_S < now) removeQuietly(path);
      } catch {
        // removed meanwhile
      }
    }
    for (const sub of ["plans", "approvals", "used"] as const) {
      for (const name of this.names(sub)) {
        const parts = partsOfName(name);
        if (parts !== undefined && parts.expiry + (sub === "used" ? USED_GRACE_S : 0) < now) removeQuietly(join(this.dir, sub, name));
      }
    }
  }
}

/** Whether something may be at `path`: only "no such file" says no (a link, or a folder it cannot read, is for open to refuse). */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** `<expiry>.<nonce>` → its parts (without the id and MAC). */
function partsOfName(name: string): { expiry: number } | undefined {
  const m = /^([0-9]{1,12})\.[A-Za-z0-9_-]{22}$/.exec(name);
  return m === null ? undefined : { expiry: Number(m[1]) };
}

/**
 * Where the plan asked for now differs from the one its plan_id was issued for, so that the agent can tell what it
 * changed: a field, an item of an array (`argv[3]`), a key of an object (`env.REGION`); at most 5. Never a value: the
 * plan the id names may be another call's.
 */
function differences(now: AnyPlan, then: AnyPlan): string[] {
  const out: string[] = [];
  for (const key of Object.keys(now)) {
    const [a, b]: unknown[] = [now[key as keyof AnyPlan], then[key as keyof AnyPlan]];
    if (same(a, b)) continue;
    if (Array.isArray(a) && Array.isArray(b)) {
      for (let i = 0; i < Math.max(a.length, b.length); i++) if (!same(a[i], b[i])) out.push(`${key}[${i}]`);
    } else if (isRecord(a) && isRecord(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) if (!same(a[k], b[k])) out.push(`${key}.${k}`);
    } else out.push(key);
  }
  return out.length > 5 ? [...out.slice(0, 5), `${out.length - 5} more`] : out;
}

const same = (a: unknown, b: unknown) => canonicalJSON(a) === canonicalJSON(b);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
