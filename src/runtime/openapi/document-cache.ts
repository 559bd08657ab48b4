// OpenAPI documents as parsed and bound, kept in the state directory under the SHA-256 of the text each was made from:
// a one-shot `hcp run` parsed and dereferenced its pack's whole document at every call (GitHub's 13 MB: 600 ms), and
// checked every operation's patterns. An entry holds the document's head, then each operation's keys and pattern
// problems, then each operation serialized on its own, so that a run reads the one it runs (or, for a document whose
// operations share too much to be written apart, all of them together: EACH_MAX_BYTES). It is only ever read for
// the text whose digest names it, so it holds what parsing that text makes; it is as private as the trust records
// beside it (SECURITY.md: trust holds against an agent that cannot write the state directory). Nothing here fails a
// command: an entry that cannot be read or written is a document parsed again.

import { readdirSync, statSync, utimesSync, type Stats } from "node:fs";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";
import { isObject } from "../../pack/issues.js";
import type { PatternProblem } from "../../pack/schema-patterns.js";
import { OWN_PACKAGE } from "../../package.js";
import { readRegularFile } from "../../read-regular.js";
import { ensurePrivateDirSync, removeQuietly, uid, writePrivate } from "../approval/state.js";
import { RuntimeError } from "../errors.js";
import type { BindableDocument, OperationEntry } from "./bindable.js";
import type { DocumentBytes } from "./document.js";
import type { Operation } from "./operations.js";

/** Changed whenever what an entry holds, or what parsing makes of a text, changes within one version of hcp. */
const FORMAT = 2;
/** Entries kept: those of the documents used last; the oldest is removed when another is written. */
export const KEPT_DOCUMENTS = 8;
/** The most an entry may be. */
const MAX_ENTRY_BYTES = 512 << 20;
/**
 * The most a document's operations may come to written each on its own; past it they are written together, as one
 * blob. Each operation carries its schemas dereferenced, so those its operations share are written once per operation:
 * Microsoft Graph's 11,422 operations come to 767 MiB that way (never kept: every command parsed its 20 MB again, 8 s),
 * and to 17 MiB together, where each shared schema is written once (read whole at the first use, 160 ms).
 */
export const EACH_MAX_BYTES = 64 << 20;

/** The folder of the entries, in a state directory. */
export const documentCacheOf = (stateDir: string): string => join(stateDir, "documents");

const entryPath = (dir: string, sha256: string) => join(dir, `${sha256}.v8`);

/** An operation's line in an entry's head: its blob ends `end` bytes after the head, where the one before ends it begins. */
interface KeptOperation {
  readonly method: string;
  readonly path: string;
  readonly operationId?: string;
  readonly problems: readonly PatternProblem[];
  readonly end: number;
}

/** Yours, and readable by you only: an entry anyone else could write is not used. */
function privateEntry(st: Stats): void {
  if ((uid() >= 0 && st.uid !== uid()) || (st.mode & 0o077) !== 0) throw new Error("not private");
}

const isProblem = (p: unknown) => isObject(p) && typeof p["path"] === "string" && typeof p["message"] === "string";

function isKept(op: unknown, last: number): op is KeptOperation {
  return (
    isObject(op) &&
    typeof op["method"] === "string" &&
    typeof op["path"] === "string" &&
    (op["operationId"] === undefined || typeof op["operationId"] === "string") &&
    Array.isArray(op["problems"]) &&
    op["problems"].every(isProblem) &&
    Number.isInteger(op["end"]) &&
    (op["end"] as number) >= last
  );
}

/** An entry as read: its head, each operation's line, and the operations' blobs (each ends where its line says). */
interface Entry {
  readonly head: Record<string, unknown>;
  readonly ops: readonly KeptOperation[];
  readonly blobs: Buffer;
  /** The operations written together, as one blob (each line's `end` is then the blob's). */
  readonly together: boolean;
}

/** The entry at `path`, when it is private, of this hcp and this text, and whole; undefined otherwise. */
function readEntry(path: string, sha256: string): Entry | undefined {
  try {
    const file = readRegularFile(path, MAX_ENTRY_BYTES, privateEntry);
    const size = file.readUInt32LE(0);
    const head: unknown = deserialize(file.subarray(4, 4 + size));
    if (!isObject(head) || head["format"] !== FORMAT || head["hcp"] !== OWN_PACKAGE.version || head["sha256"] !== sha256) return undefined;
    const ops = head["ops"];
    if ((head["version"] !== "3.0" && head["version"] !== "3.1") || !Array.isArray(ops)) return undefined;
    let last = 0;
    for (const op of ops as unknown[]) {
      if (!isKept(op, last)) return undefined;
      last = op.end;
    }
    const blobs = file.subarray(4 + size);
    return last === blobs.length ? { head, ops: ops as KeptOperation[], blobs, together: head["together"] === true } : undefined;
  } catch {
    return undefined;
  }
}

/** Marks the entry used now: the last to be removed. A state directory that cannot be written leaves it as it was. */
function markUsed(path: string): void {
  try {
    const now = new Date();
    utimesSync(path, now, now);
  } catch {
    // used all the same
  }
}

/**
 * The document whose text has digest `sha256`, as kept when it was parsed; undefined when there is none to use. `read`
 * is where the text came from now, for messages and for relative server URLs.
 */
export function cachedDocument(dir: string, sha256: string, read: Omit<DocumentBytes, "bytes">): BindableDocument | undefined {
  const path = entryPath(dir, sha256);
  const entry = readEntry(path, sha256);
  if (entry === undefined) return undefined;
  markUsed(path);
  const { head, ops, blobs, together } = entry;
  let all: readonly Operation[] | undefined;
  const operations = ops.map((kept, i): OperationEntry => {
    let op: Operation | undefined;
    const operation = together
      ? () => (all ??= operationsIn(blobs, ops.length, path, read.source))[i]!
      : () => (op ??= operationsIn(blobs.subarray(i === 0 ? 0 : ops[i - 1]!.end, kept.end), undefined, path, read.source)[0]!);
    return {
      method: kept.method,
      path: kept.path,
      ...(kept.operationId !== undefined ? { operationId: kept.operationId } : {}),
      problems: () => kept.problems,
      operation,
    };
  });
  const { url, source } = read;
  return {
    head: { version: head["version"] as "3.0" | "3.1", source, ...(url ? { url } : {}), sha256, servers: head["servers"], securitySchemes: head["securitySchemes"] },
    operations,
  };
}

const isOperation = (op: unknown): op is Operation => isObject(op) && typeof op["method"] === "string" && typeof op["path"] === "string";

/**
 * The operations of a blob: one operation, or, with `count`, the array of them all. A damaged entry is removed (the next
 * command parses the document again).
 */
function operationsIn(blob: Buffer, count: number | undefined, path: string, source: string): readonly Operation[] {
  try {
    const value: unknown = deserialize(blob);
    if (count === undefined && isOperation(value)) return [value];
    if (count !== undefined && Array.isArray(value) && value.length === count && value.every(isOperation)) return value;
  } catch {
    // below
  }
  removeQuietly(path);
  throw new RuntimeError("not_executable", `hcp's parsed copy of the OpenAPI document ${source} (${path}) is damaged: it has been removed, and the document is parsed again at the next call`);
}

/**
 * Keeps the document, made by parsing its text (`head.sha256`), before anything else has used its operations: what is
 * kept is what parsing made.
 */
export function keepDocument(dir: string, { head, operations }: BindableDocument): void {
  try {
    // Every operation serialized before any pattern is checked: the check reads them only, and nothing else has.
    let blobs: Buffer[] = [];
    let total = 0;
    for (const e of operations) {
      const blob = serialize(e.operation());
      total += blob.length;
      if (total > EACH_MAX_BYTES) break;
      blobs.push(blob);
    }
    const together = total > EACH_MAX_BYTES;
    if (together) blobs = [serialize(operations.map((e) => e.operation()))];
    let end = 0;
    const ops: KeptOperation[] = operations.map((e, i) => {
      if (!together || i === 0) end += blobs[i]!.length;
      return { method: e.method, path: e.path, ...(e.operationId !== undefined ? { operationId: e.operationId } : {}), problems: e.problems(), end };
    });
    const kept = serialize({ format: FORMAT, hcp: OWN_PACKAGE.version, sha256: head.sha256, version: head.version, servers: head.servers, securitySchemes: head.securitySchemes, together, ops });
    if (4 + kept.length + end > MAX_ENTRY_BYTES) return;
    const size = Buffer.alloc(4);
    size.writeUInt32LE(kept.length);
    ensurePrivateDirSync(dir);
    writePrivate(entryPath(dir, head.sha256), Buffer.concat([size, kept, ...blobs]));
    removeOldest(dir);
  } catch {
    // parsed again next time
  }
}

/** Down to KEPT_DOCUMENTS entries, the least recently used removed first. */
function removeOldest(dir: string): void {
  const entries = readdirSync(dir)
    .filter((name) => name.endsWith(".v8"))
    .map((name) => {
      try {
        return { name, used: statSync(join(dir, name)).mtimeMs };
      } catch {
        return { name, used: -1 };
      }
    })
    .sort((a, b) => b.used - a.used);
  for (const { name } of entries.slice(KEPT_DOCUMENTS)) removeQuietly(join(dir, name));
}
