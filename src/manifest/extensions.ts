// Extensions: product-owned namespaced metadata on manifest commands — Go rungrad's rules,
// annotation codec (decode/encode), deep copy, and the product-test helper checks.

import { goQuote, isGoBlank } from "../json/goquote.js";
import { JsonCursor, JsonDuplicateKeyError, JsonSyntaxError } from "../json/literal.js";
import { JsonNumber, compactJSON, compareBytes, dictionary } from "../json/stable.js";
import { ExtensionError } from "./errors.js";
import type { ExtensionObject, ExtensionSet } from "./types.js";

const NAMESPACE_PATTERN = /^[a-z0-9][a-z0-9.-]*\/[a-z0-9][a-z0-9._-]*$/;
const URL_SCHEME_PATTERN = /^[a-z][a-z0-9+.-]*:/;
const JSON_NUMBER_PATTERN = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** Manifest command fields an extension may not reuse at its first level (`extensions` itself is allowed). */
const CORE_COMMAND_FIELDS: ReadonlySet<string> = new Set([
  "path",
  "use",
  "short",
  "examples",
  "related",
  "output_modes",
  "requires_auth",
  "mutates",
  "supports_dry_run",
  "destructive",
  "requires_confirmation",
  "supports_meta",
  "local_flags",
]);

type AnySet = ExtensionSet | null | undefined;

/** Namespaces rungrad keeps for itself. */
const isReservedNamespace = (ns: string) => ns.startsWith("rungrad/") || ns.startsWith("rungrad.");

/** Plain objects and dictionaries: the JS shapes that stand for a Go map[string]any. */
function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype;
}

function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  return keys.length > 1 ? keys.sort(compareBytes) : keys;
}

/** No own enumerable key: Object.keys(value).length === 0 without the array. */
export function isEmptyRecord(value: object): boolean {
  for (const k in value) if (Object.hasOwn(value, k)) return false;
  return true;
}

function namespaceError(ns: string, problem: string): ExtensionError {
  return new ExtensionError(`extension namespace ${goQuote(ns)}: ${problem}`);
}

function fieldError(ns: string, field: string, problem: string): ExtensionError {
  return new ExtensionError(`extension namespace ${goQuote(ns)} field ${goQuote(field)}: ${problem}`);
}

/**
 * Go's ValidateExtensionSet: namespaces in sorted order (shape, reserved prefix, null object;
 * empty objects skipped), then fields in sorted order (core-field names, then the value).
 */
export function validateExtensionSet(set: AnySet): void {
  if (set === null || set === undefined) return;
  // Nearly every set is valid: check it in any order, without labels; on doubt, the exact walk decides.
  if (quickValidSet(set)) return;
  for (const ns of sortedKeys(set)) {
    const obj: unknown = set[ns];
    if (!NAMESPACE_PATTERN.test(ns)) throw namespaceError(ns, "invalid namespace");
    if (isReservedNamespace(ns)) throw namespaceError(ns, "reserved namespace");
    if (obj === null || obj === undefined) throw namespaceError(ns, "null value");
    if (!isRecord(obj)) throw namespaceError(ns, "non-object namespace value");
    for (const field of sortedKeys(obj)) {
      if (CORE_COMMAND_FIELDS.has(field)) throw fieldError(ns, field, "core field contradiction");
      checkValue(obj[field], `${ns}.${field}`);
    }
  }
}

/** True if validateExtensionSet certainly passes: the same checks, in no particular order, throwing nothing. */
function quickValidSet(set: ExtensionSet): boolean {
  for (const ns of Object.keys(set)) {
    const obj: unknown = set[ns];
    if (!NAMESPACE_PATTERN.test(ns) || isReservedNamespace(ns) || !isRecord(obj)) return false;
    for (const field of Object.keys(obj)) {
      if (CORE_COMMAND_FIELDS.has(field) || !quickValid(obj[field], 0)) return false;
    }
  }
  return true;
}

/** Why a single (non-container) value is not allowed, or null if it is. */
function scalarProblem(value: unknown): string | null {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "bigint":
      return null;
    case "number":
      return Number.isFinite(value) ? null : "non-finite number";
    case "undefined":
      return "null value";
    case "function":
      return "unsupported value type func";
    case "symbol":
      return "unsupported value type symbol";
  }
  if (value === null) return "null value";
  if (value instanceof JsonNumber) {
    // Go marshals the literal (which must be JSON-shaped) and parses it as a float64 (which must not overflow).
    const ok = JSON_NUMBER_PATTERN.test(value.literal) && Number.isFinite(Number(value.literal));
    return ok ? null : `invalid number ${goQuote(value.literal)}`;
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return "custom JSON marshaler unsupported";
  if (Array.isArray(value) || value instanceof Map || isRecord(value)) return null;
  return "unsupported value type struct";
}

/** The children of a container value with their labels, in Go's order (map keys sorted). */
function childrenOf(value: object, label: string): [unknown, string][] | string {
  if (Array.isArray(value)) return value.map((item, i) => [item, `${label}[${i}]`]);
  if (value instanceof Map) {
    const keys = [...value.keys()];
    if (keys.some((k) => typeof k !== "string")) return "non-string map key";
    return (keys as string[]).sort(compareBytes).map((k) => [value.get(k), `${label}.${k}`]);
  }
  const record = value as Record<string, unknown>;
  return sortedKeys(record).map((k) => [record[k], `${label}.${k}`]);
}

/** Nesting beyond which the quick check hands over to the stack-safe walk (which also finds cycles). */
const QUICK_CHECK_DEPTH = 200;

/** True if `value` certainly passes checkValue; no allocation, no labels, so the common case stays cheap. */
function quickValid(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (value === null || depth > QUICK_CHECK_DEPTH) return false;
  if (value instanceof JsonNumber) return scalarProblem(value) === null;
  if (Array.isArray(value)) {
    for (const item of value) if (!quickValid(item, depth + 1)) return false;
    return true;
  }
  if (!isRecord(value) || typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  for (const key in value) if (!quickValid(value[key], depth + 1)) return false;
  return true;
}

/** Validates one extension value depth-first (explicit stack), rejecting only true cycles. */
function checkValue(root: unknown, rootLabel: string): void {
  if (quickValid(root, 0)) return;
  const onPath = new Set<object>();
  const values: unknown[] = [root];
  const labels: (string | null)[] = [rootLabel]; // null marks "leaving" the container in `values`
  while (values.length > 0) {
    const value = values.pop();
    const label = labels.pop()!;
    if (label === null) {
      onPath.delete(value as object);
      continue;
    }
    const problem = scalarProblem(value);
    if (problem !== null) throw new ExtensionError(`${label}: ${problem}`);
    if (typeof value !== "object" || value instanceof JsonNumber) continue;
    if (onPath.has(value!)) throw new ExtensionError(`${label}: cycle detected`);
    const children = childrenOf(value!, label);
    if (typeof children === "string") throw new ExtensionError(`${label}: ${children}`);
    onPath.add(value!);
    values.push(value);
    labels.push(null);
    for (let i = children.length - 1; i >= 0; i--) {
      values.push(children[i]![0]);
      labels.push(children[i]![1]);
    }
  }
}

/**
 * Go's DecodeExtensions: blank → undefined; otherwise the annotation JSON read with numbers kept
 * as literals and duplicate keys rejected, then fully validated. Every failure is an ExtensionError.
 */
export function decodeExtensions(text: string): ExtensionSet | undefined {
  if (isGoBlank(text)) return undefined;
  const cursor = new JsonCursor(text, "decoder");
  let set: ExtensionSet;
  try {
    const raw = readRaw(cursor, 0);
    if (cursor.skipSpace() !== -1) {
      throw new ExtensionError(`extensions: trailing data after top-level value ${cursor.tokenText()}`);
    }
    set = toExtensionSet(raw, text, 0);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new ExtensionError(err.message, { cause: err });
    throw err;
  }
  validateExtensionSet(set);
  return set;
}

/**
 * The `extensions` value of a manifest command (Go's ExtensionSet.UnmarshalJSON): duplicate keys
 * and the set's shape are checked here; full validation is left to validateManifest.
 */
export function readExtensionSet(cursor: JsonCursor, depth: number): ExtensionSet {
  const start = cursor.pos;
  return toExtensionSet(readRaw(cursor, depth), cursor.text, start);
}

function readRaw(cursor: JsonCursor, depth: number): unknown {
  try {
    return cursor.readValue(depth, true);
  } catch (err) {
    if (err instanceof JsonDuplicateKeyError) throw new ExtensionError(`extensions: ${err.message}`, { cause: err });
    throw err;
  }
}

/** The set read from `text` at `start`; a null or non-object namespace is an error. */
function toExtensionSet(raw: unknown, text: string, start: number): ExtensionSet {
  if (!isRecord(raw)) throw new ExtensionError("extensions must be a JSON object");
  let ok = true;
  for (const ns in raw) {
    if (!isRecord(raw[ns])) {
      ok = false;
      break;
    }
  }
  if (ok) return raw as ExtensionSet;
  // Go ranges over a map here, so which bad namespace it names is random, though most often the
  // first one written (86% of 400 runs): name the first in document order, read from the text
  // again (a JS object lists integer-like keys first).
  for (const ns of topLevelKeys(text, start)) {
    const value = raw[ns];
    if (value === null) throw namespaceError(ns, "null value");
    if (!isRecord(value)) throw namespaceError(ns, "non-object namespace value");
  }
  return raw as ExtensionSet;
}

/** The keys of the (well-formed) JSON object at `start` in `text`, in the order they are written. */
function topLevelKeys(text: string, start: number): string[] {
  const cursor = new JsonCursor(text, "decoder");
  cursor.pos = start;
  cursor.valueStart();
  cursor.open(1);
  const keys: string[] = [];
  for (let key = cursor.firstKey(); key !== null; key = cursor.nextKey()) {
    keys.push(key);
    cursor.colon();
    cursor.skipValue(1);
  }
  return keys;
}

/**
 * Go's EncodeExtensions: "" for an empty set; otherwise validate, drop empty namespaces, and
 * write compact JSON with keys sorted at every level, Go escaping, number literals verbatim.
 */
export function encodeExtensions(set: AnySet): string {
  if (set === null || set === undefined || isEmptyRecord(set)) return "";
  validateExtensionSet(set);
  const kept = dictionary<ExtensionObject>();
  for (const ns of Object.keys(set)) {
    const obj = set[ns]!;
    if (!isEmptyRecord(obj)) kept[ns] = obj;
  }
  if (isEmptyRecord(kept)) return "";
  return compactJSON(cloneExtensionSet(kept));
}

/** A deep copy whose objects are all dictionaries (so they encode with sorted keys); JsonNumbers are kept. */
export function cloneExtensionSet(set: ExtensionSet): ExtensionSet {
  const copy = dictionary<ExtensionObject | null>();
  // Keys go in in byte order (the order maps are written in), so writers find them sorted already.
  for (const ns of Object.keys(set).sort(compareBytes)) {
    const obj = set[ns];
    copy[ns] = obj === null || obj === undefined ? null : (cloneValue(obj) as ExtensionObject);
  }
  return copy;
}

/** Like StableJSON, cycles are only looked for past this depth, so ordinary values pay nothing for the check. */
const CLONE_CYCLE_DEPTH = 100;

/** A container being copied: its members (an array's indices when `keys` is null), where they go, how far it has got. */
interface CloneFrame {
  source: object;
  members: Record<string, unknown> | unknown[];
  keys: string[] | null;
  target: Record<string, unknown> | unknown[];
  i: number;
  depth: number;
}

const isContainer = (v: unknown): v is object => typeof v === "object" && v !== null && !(v instanceof JsonNumber);

/** An empty copy of a container (an array keeps its holes; maps and objects take their keys in byte order). */
function frameOf(value: object, depth: number): CloneFrame {
  if (Array.isArray(value)) return { source: value, members: value, keys: null, target: value.slice(), i: 0, depth };
  let members = value as Record<string, unknown>;
  if (value instanceof Map) {
    members = dictionary<unknown>();
    for (const [k, v] of value) members[String(k)] = v;
  }
  return { source: value, members, keys: Object.keys(members).sort(compareBytes), target: dictionary<unknown>(), i: 0, depth };
}

/**
 * A deep copy of one value, without recursion (nesting is bounded by memory, not the call stack).
 * A cycle repeats forever, so past CLONE_CYCLE_DEPTH the containers on the path are tracked and a
 * repeat is reported (a shared, acyclic object is simply copied twice).
 */
function cloneValue(root: unknown): unknown {
  if (!isContainer(root)) return root;
  let onPath: Set<object> | null = null; // made only for values this deep
  const first = frameOf(root, 0);
  const stack = [first];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    let key: string | number;
    if (top.keys === null) {
      const array = top.members as unknown[];
      while (top.i < array.length && !(top.i in array)) top.i++;
      key = top.i;
    } else {
      key = top.keys[top.i]!;
    }
    if (top.i >= (top.keys ?? (top.members as unknown[])).length) {
      if (top.depth >= CLONE_CYCLE_DEPTH) onPath?.delete(top.source);
      stack.pop();
      continue;
    }
    top.i++;
    const value = (top.members as Record<string | number, unknown>)[key];
    if (!isContainer(value)) {
      (top.target as Record<string | number, unknown>)[key] = value;
      continue;
    }
    const depth = top.depth + 1;
    if (depth >= CLONE_CYCLE_DEPTH) {
      onPath ??= new Set();
      if (onPath.has(value)) throw new ExtensionError("extensions: cycle detected");
      onPath.add(value);
    }
    const child = frameOf(value, depth);
    (top.target as Record<string | number, unknown>)[key] = child.target;
    stack.push(child);
  }
  return first.target;
}

/** The namespace's object (null for a null namespace); a missing namespace is an error. */
function namespaceObject(set: AnySet, ns: string): ExtensionObject | null {
  if (set === null || set === undefined || !Object.hasOwn(set, ns)) throw namespaceError(ns, "required namespace is missing");
  return set[ns] ?? null;
}

/** Go's extensionField: the namespace must exist; the field may be absent. */
function lookupField(set: AnySet, ns: string, field: string): { present: boolean; value: unknown } {
  const obj = namespaceObject(set, ns);
  const present = obj !== null && Object.hasOwn(obj, field);
  return { present, value: present ? obj[field] : undefined };
}

/** "Required" for helpers: strings, arrays and objects must be non-empty; numbers and bools always count. */
function isPresentNonEmpty(value: unknown): boolean {
  switch (typeof value) {
    case "string":
      return value.length > 0;
    case "boolean":
    case "number":
    case "bigint":
      return true;
    case "object":
      if (value === null) return false;
      if (value instanceof JsonNumber) return true;
      if (Array.isArray(value)) return value.length > 0;
      if (value instanceof Map) return value.size > 0;
      return isRecord(value) && !isEmptyRecord(value);
    default:
      return false;
  }
}

/** Go's RequireExtensionFields: the namespace exists and each field is present and non-empty. */
export function requireExtensionFields(set: AnySet, namespace: string, ...fields: string[]): void {
  const obj = namespaceObject(set, namespace);
  for (const field of fields) {
    if (obj === null || !Object.hasOwn(obj, field) || !isPresentNonEmpty(obj[field])) throw fieldError(namespace, field, "required field is empty or missing");
  }
}

/** A present field that must hold a string (Go's shared prologue of the Enum and DocPath helpers). */
function requireString(set: AnySet, namespace: string, field: string): string {
  const { present, value } = lookupField(set, namespace, field);
  if (!present) throw fieldError(namespace, field, "required field is empty or missing");
  if (typeof value !== "string") throw fieldError(namespace, field, "must be a string");
  return value;
}

/** Go's RequireExtensionEnum: the field is a string from `allowed`. */
export function requireExtensionEnum(set: AnySet, namespace: string, field: string, ...allowed: string[]): void {
  const got = requireString(set, namespace, field);
  if (!allowed.includes(got)) {
    throw fieldError(namespace, field, `value ${goQuote(got)} not in allowed set [${allowed.join(" ")}]`);
  }
}

/** Go's RequireExtensionDocPath: a non-empty, relative, non-URL, clean path that does not climb out with "..". */
export function requireExtensionDocPath(set: AnySet, namespace: string, field: string): void {
  const p = requireString(set, namespace, field);
  if (p === "") throw fieldError(namespace, field, "required field is empty or missing");
  if (p.startsWith("/")) throw fieldError(namespace, field, "must be a relative path");
  if (p.includes("://") || URL_SCHEME_PATTERN.test(p)) throw fieldError(namespace, field, "must not be a URL");
  if (cleanPath(p) !== p) throw fieldError(namespace, field, "must be a clean path");
  if (p.split("/").includes("..")) throw fieldError(namespace, field, "must not escape via ..");
}

/** Go's path.Clean: the shortest lexically equivalent slash-separated path. */
function cleanPath(p: string): string {
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const part of p.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") out.push(part);
    else if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (!rooted) out.push("..");
  }
  const cleaned = (rooted ? "/" : "") + out.join("/");
  return cleaned === "" ? "." : cleaned;
}
