// Where trust records live: one 0600 file per pack, `trusted/<SHA-256 of its real path>.json` in the state
// directory, each written atomically (a whole new file renamed over the old). Two `hcp trust` at once never
// lose a record: each writes only its own pack's file, and no file is ever read, changed and written back.
// The single `trusted.json` of earlier versions is not read: its records bound no programs, so none of them
// could trust a pack today; `hcp trust --list` says it is there.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { isObject } from "../../pack/issues.js";
import { POLICY_CLASSES, type PolicyClass } from "../../pack/policy.js";
import { ensurePrivateDirSync, readPrivate, writePrivate } from "../approval/state.js";
import { RuntimeError } from "../errors.js";
import { systemReason } from "../../errno.js";

/** What a person trusted: a pack's real folder and the digests of everything that says what it runs. */
export interface TrustRecord {
  /** The pack's real path (no symbolic link in it). */
  readonly root: string;
  readonly id: string;
  readonly surface_sha256: string;
  /** Null: the pack had no policy.json. */
  readonly policy_sha256: string | null;
  /** The OpenAPI document as loaded, from `openapi.path` or fetched from `openapi.url`; null for any other pack. */
  readonly document_sha256: string | null;
  /** The digest of the whole folder (pack-tree.ts). */
  readonly tree_sha256: string;
  /** The folder's entries as bound (path → d, f:SHA256, x:SHA256, l:TARGET), to say what changed. */
  readonly files: Readonly<Record<string, string>>;
  /** Each program named by a path outside the folder: its real path → SHA-256 (null: it did not exist). */
  readonly programs: Readonly<Record<string, string | null>>;
  /** Each verb's policy class as the person was shown it, to tell them what changed at the next review (absent in older records). */
  readonly verbs?: Readonly<Record<string, PolicyClass>>;
  readonly trusted_at: string;
}

const recordsDirOf = (stateDir: string) => join(stateDir, "trusted");
const NAME = /^[0-9a-f]{64}\.json$/;
const recordFileOf = (stateDir: string, root: string) => join(recordsDirOf(stateDir), `${createHash("sha256").update(root, "utf8").digest("hex")}.json`);

/** The store of earlier versions (one file of every record), no longer read. */
export const legacyStoreOf = (stateDir: string) => join(stateDir, "trusted.json");
export const hasLegacyStore = (stateDir: string) => existsSync(legacyStoreOf(stateDir));

const hex = (v: unknown) => typeof v === "string" && /^[0-9a-f]{64}$/.test(v);
const mapOf = (ok: (v: unknown) => boolean) => (v: unknown) => isObject(v) && Object.values(v).every(ok);

function isRecord(v: unknown): v is TrustRecord {
  return (
    isObject(v) &&
    typeof v["root"] === "string" &&
    typeof v["id"] === "string" &&
    typeof v["trusted_at"] === "string" &&
    hex(v["surface_sha256"]) &&
    (v["policy_sha256"] === null || hex(v["policy_sha256"])) &&
    (v["document_sha256"] === null || hex(v["document_sha256"])) &&
    hex(v["tree_sha256"]) &&
    mapOf((f) => typeof f === "string")(v["files"]) &&
    mapOf((p) => p === null || hex(p))(v["programs"]) &&
    (v["verbs"] === undefined || mapOf((c) => POLICY_CLASSES.includes(c as PolicyClass))(v["verbs"]))
  );
}

/** The record in `path`; undefined when there is none. A link, a too open file or a malformed one is refused. */
function readRecordFile(path: string): TrustRecord | undefined {
  const data = readPrivate(path, "the trust record", "state_insecure");
  if (data === undefined) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(data.toString("utf8"));
  } catch {
    doc = undefined;
  }
  if (!isRecord(doc)) throw new RuntimeError("state_unavailable", `the trust record ${path} is not a trusted pack; remove it and trust the pack again (hcp trust PACK)`);
  return doc;
}

/** The record of the pack whose real folder is `root`; undefined when none. */
export function readTrustRecord(stateDir: string, root: string): TrustRecord | undefined {
  const record = readRecordFile(recordFileOf(stateDir, root));
  // A record under another folder's name was not written for this one.
  return record?.root === root ? record : undefined;
}

/** Every record, in the order of their folders. */
export function readTrustRecords(stateDir: string): TrustRecord[] {
  let names: string[];
  try {
    names = readdirSync(recordsDirOf(stateDir));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new RuntimeError("state_unavailable", `cannot list the trust records in ${recordsDirOf(stateDir)}: ${systemReason(err)}`);
  }
  const records = names.filter((n) => NAME.test(n)).flatMap((n) => readRecordFile(join(recordsDirOf(stateDir), n)) ?? []);
  return records.sort((a, b) => (a.root < b.root ? -1 : a.root > b.root ? 1 : 0));
}

/** Writes the record of its folder atomically, replacing the one there was. */
export function writeTrustRecord(stateDir: string, record: TrustRecord): void {
  ensurePrivateDirSync(stateDir);
  ensurePrivateDirSync(recordsDirOf(stateDir));
  writePrivate(recordFileOf(stateDir, record.root), JSON.stringify(record, null, 2) + "\n");
}

/** Removes the record of the folder `root`; false when there was none. */
export function removeTrustRecord(stateDir: string, root: string): boolean {
  try {
    unlinkSync(recordFileOf(stateDir, root));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new RuntimeError("state_unavailable", `cannot remove the trust record of ${root}: ${systemReason(err)}`);
  }
}
