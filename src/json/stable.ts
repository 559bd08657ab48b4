// Package json/stable: StableJSON, the exact bytes Go's json.MarshalIndent(v, "", "  ")
// plus "\n" produces, and the compact json.Marshal form.
//
// Go distinguishes structs (fields in declaration order) from maps (keys sorted
// bytewise). Here a plain object is a struct: its keys keep insertion order.
// A Map, or an object with a null prototype (a dictionary, as the literal-
// preserving reader makes), is a map: its keys are sorted by their UTF-8 bytes.

/** A JSON number kept as its literal text, so that 9007199254740993 and 1.50 round-trip. */
export class JsonNumber {
  constructor(readonly literal: string) {}
  toString(): string {
    return this.literal;
  }
  toJSON(): number {
    return Number(this.literal);
  }
}

/** A value StableJSON can encode. */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonNumber
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue | undefined }
  | ReadonlyMap<string, JsonValue>;

export class StableJSONError extends Error {
  override name = "StableJSONError";
}

/** Go's json.MarshalIndent(v, "", "  ") + "\n". */
export function stableJSON(value: unknown): string {
  const out: string[] = [];
  encode(value, out, "\n", new Set());
  out.push("\n");
  return out.join("");
}

/** Go's json.Marshal(v): no whitespace, same escaping and key order. */
export function compactJSON(value: unknown): string {
  const out: string[] = [];
  encode(value, out, null, new Set());
  return out.join("");
}

/** True for objects StableJSON treats as maps (sorted keys). */
export function isDictionary(value: unknown): boolean {
  return value instanceof Map || (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === null);
}

/** Creates an empty dictionary: a null-prototype object, safe for any key including "__proto__". */
export function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

const encoder = new TextEncoder();

/** Compares strings by their UTF-8 bytes, as Go's sort.Strings does. */
export function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  // Fast path: code-unit order equals byte order unless a surrogate is involved.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if (x < 0xd800 && y < 0xd800) return x - y;
      const ab = encoder.encode(a);
      const bb = encoder.encode(b);
      const m = Math.min(ab.length, bb.length);
      for (let j = 0; j < m; j++) {
        if (ab[j] !== bb[j]) return ab[j]! - bb[j]!;
      }
      return ab.length - bb.length;
    }
  }
  return a.length - b.length;
}

function encode(value: unknown, out: string[], indent: string | null, onPath: Set<object>): void {
  switch (typeof value) {
    case "string":
      out.push(quoteJSON(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "number":
      out.push(formatFloat(value));
      return;
    case "bigint":
      out.push(value.toString());
      return;
    case "undefined":
      out.push("null");
      return;
    case "object":
      break;
    default:
      throw new StableJSONError(`json: unsupported type: ${typeof value}`);
  }
  if (value === null) {
    out.push("null");
    return;
  }
  if (value instanceof JsonNumber) {
    out.push(value.literal);
    return;
  }
  if (onPath.has(value)) throw new StableJSONError("cycle detected in result model");
  onPath.add(value);
  const inner = indent === null ? null : indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push("[]");
    } else {
      out.push("[");
      value.forEach((item, i) => {
        if (i > 0) out.push(",");
        if (inner !== null) out.push(inner);
        encode(item, out, inner, onPath);
      });
      if (indent !== null) out.push(indent);
      out.push("]");
    }
  } else {
    const entries = objectEntries(value);
    if (entries.length === 0) {
      out.push("{}");
    } else {
      out.push("{");
      entries.forEach(([key, item], i) => {
        if (i > 0) out.push(",");
        if (inner !== null) out.push(inner);
        out.push(quoteJSON(key), inner === null ? ":" : ": ");
        encode(item, out, inner, onPath);
      });
      if (indent !== null) out.push(indent);
      out.push("}");
    }
  }
  onPath.delete(value);
}

function objectEntries(value: object): [string, unknown][] {
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([k, v]) => [String(k), v] as [string, unknown]);
    return entries.sort((a, b) => compareBytes(a[0], b[0]));
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
    throw new StableJSONError("json: custom JSON marshaler unsupported");
  }
  // Go's omitempty fields are modelled as absent keys; undefined values are skipped like JSON.stringify does.
  const entries = Object.entries(value).filter(([, v]) => v !== undefined);
  if (Object.getPrototypeOf(value) === null) entries.sort((a, b) => compareBytes(a[0], b[0]));
  return entries;
}

/** Go's float64 encoding: shortest repr, exponent form below 1e-6 or from 1e21. */
export function formatFloat(n: number): string {
  if (!Number.isFinite(n)) throw new StableJSONError(`json: unsupported value: ${goFloatName(n)}`);
  if (n === 0) return Object.is(n, -0) ? "-0" : "0";
  // JS Number#toString uses the same shortest digits and the same thresholds;
  // its exponent form ("1e+21", "1.5e-7") is also what Go writes after trimming "e-07".
  return String(n);
}

function goFloatName(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  return n > 0 ? "+Inf" : "-Inf";
}

const HEX = "0123456789abcdef";

/** A JSON string literal with Go's escaping (HTML-safe, U+2028/U+2029 escaped, invalid UTF-16 as U+FFFD). */
export function quoteJSON(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let esc: string | null = null;
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) {
      switch (c) {
        case 0x22:
          esc = '\\"';
          break;
        case 0x5c:
          esc = "\\\\";
          break;
        case 0x0a:
          esc = "\\n";
          break;
        case 0x0d:
          esc = "\\r";
          break;
        case 0x09:
          esc = "\\t";
          break;
        case 0x08:
          esc = "\\b";
          break;
        case 0x0c:
          esc = "\\f";
          break;
        default:
          esc = "\\u00" + HEX[c >> 4]! + HEX[c & 0xf]!;
      }
    } else if (c === 0x2028 || c === 0x2029) {
      esc = c === 0x2028 ? "\\u2028" : "\\u2029";
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = s.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      esc = "\\ufffd";
    }
    if (esc !== null) {
      out += s.slice(start, i) + esc;
      start = i + 1;
    }
  }
  return out + s.slice(start) + '"';
}
