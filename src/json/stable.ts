// Package json/stable: StableJSON, the exact bytes Go's json.MarshalIndent(v, "", "  ")
// plus "\n" produces, and the compact json.Marshal form.
//
// Go distinguishes structs (fields in declaration order) from maps (keys sorted
// bytewise). Here a plain object is a struct: its keys keep insertion order.
// A Map, or an object with a null prototype (a dictionary, as the literal-
// preserving reader makes), is a map: its keys are sorted by their UTF-8 bytes.

import { setOwn } from "./own.js";

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

const NEEDS_ESCAPE = /["\\<>&\u0000-\u001f\u2028\u2029\ud800-\udfff]/;

/** Go's json.MarshalIndent(v, "", "  ") + "\n". */
export function stableJSON(value: unknown): string {
  return collect(value, true);
}

/** Go's json.Marshal(v): no whitespace, same escaping and key order. */
export function compactJSON(value: unknown): string {
  return collect(value, false);
}

/** Receives output text in order. */
export type TextSink = (text: string) => void;

/**
 * stableJSON's bytes handed to `sink` in pieces of about 64 KiB, so that a large document is never
 * held as one string. Nothing reaches the sink when the value cannot be encoded.
 */
export function writeStableJSON(value: unknown, sink: TextSink): void {
  withDepthLimit(value, true, sink, true);
}

// A string wanted whole is made whole: the pieces' text would be joined into one anyway, and making them (a
// JSON.stringify per batch, each with its escapes) costs more than one JSON.stringify (a 10,000-command agentmeta
// document, 16 MB: 125 ms against 200 ms).
function collect(value: unknown, indent: boolean): string {
  let text = "";
  withDepthLimit(value, indent, (whole) => (text = whole), false);
  return text;
}

/**
 * The fast path (JSON.stringify and its preparing pass) recurses; a value nested deeper than the
 * call stack allows (thousands of levels, which Go's encoder accepts) is written by the
 * stack-free encoder instead. Indented output ends with "\n".
 */
function withDepthLimit(value: unknown, indent: boolean, sink: TextSink, pieces: boolean): void {
  let write: (() => void) | undefined;
  try {
    write = encodeNative(value, indent, sink, pieces);
  } catch (err) {
    if (!(err instanceof RangeError && /call stack/i.test(err.message))) throw err;
    const encoder = new Encoder(indent);
    encoder.encode(value, 0);
    sink(indent ? encoder.out + "\n" : encoder.out);
    return;
  }
  write();
}

// The bulk of a document goes through the engine's JSON.stringify, without a replacer so that
// it keeps its fast path (its indentation and its escapes of quotes, backslashes and controls
// are Go's too). A first pass copies only the containers whose subtree holds what Go writes
// differently: maps get their keys in byte order, and the few values JSON.stringify cannot
// express (literal numbers, -0, maps with integer-like keys, which JS objects would reorder)
// become markers that are replaced afterwards by their exact text. Go's extra escapes
// (HTML characters, U+2028/U+2029, lone surrogates) are applied to the output at the end.
// A large value is stringified member by member (its top two levels are written here), so that
// its text is made, escaped and passed on in small pieces rather than as whole-document copies.

/** Keys a JS object enumerates first, in numeric order, whatever the insertion order. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;
const isIndexKey = (key: string) => INDEX_KEY.test(key) && Number(key) < 4294967295;

/** Values with more nodes than this are written member by member; smaller ones in one JSON.stringify. */
const SPLIT_NODES = 4096;
/** Containers this close to the top of a large value are written member by member. */
const SPLIT_DEPTH = 2;
/** Elements of a large array are written this many at a time. */
const BATCH = 256;
/** Text is handed on once this many code units have gathered. */
const PIECE = 1 << 16;

let markerSeed = 0;

/**
 * Prepares `value` (every check and error happens here, before anything is written) and returns
 * the function that writes it to `sink`: in pieces when `pieces` and the value is large, else in one.
 */
function encodeNative(value: unknown, indent: boolean, sink: TextSink, pieces: boolean): () => void {
  // A per-call marker that no string in the value can spell: a NUL and a fresh random tag. Made when a
  // first marker is (most values need none), with the pattern that finds them.
  let tag: string | undefined;
  let markerPattern: RegExp | undefined;
  const marker = () => (tag ??= `\u0000${(++markerSeed).toString(36)}${Math.random().toString(36).slice(2, 10)}`);
  const texts: string[] = [];
  const maps: object[] = [];
  const onPath = new Set<object>();
  const text = (literal: string) => `${marker()}t${texts.push(literal) - 1}`;
  const fragment = (container: object) => `${marker()}m${maps.push(container) - 1}`;
  let nodes = 0;

  /** The value JSON.stringify can write as Go would: the value itself, or a copy where something differs. */
  function prepare(v: unknown, depth: number): unknown {
    nodes++;
    switch (typeof v) {
      case "number":
        if (!Number.isFinite(v)) throw new StableJSONError(`json: unsupported value: ${goFloatName(v)}`);
        return Object.is(v, -0) ? text("-0") : v;
      case "bigint":
        return text(v.toString());
      case "function":
      case "symbol":
        throw new StableJSONError(`json: unsupported type: ${typeof v}`);
      case "object":
        break;
      default:
        return v;
    }
    if (v === null) return v;
    // A literal that a JS number prints the same way can stay: JSON.stringify writes it through toJSON().
    if (v instanceof JsonNumber) return String(Number(v.literal)) === v.literal ? v : text(v.literal);
    const tracked = depth > START_DETECTING_CYCLES_AFTER;
    if (tracked) {
      if (onPath.has(v)) throw new StableJSONError("cycle detected in result model");
      onPath.add(v);
    }
    let out: unknown;
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        const prepared = prepare(item, depth + 1);
        if (prepared !== item) (copy ??= v.slice())[i] = prepared;
      }
      out = copy ?? v;
    } else if (v instanceof Map || Object.getPrototypeOf(v) === null) {
      out = sortedMap(v, depth);
    } else if (typeof (v as { toJSON?: unknown }).toJSON === "function") {
      throw new StableJSONError("json: custom JSON marshaler unsupported");
    } else {
      const record = v as Record<string, unknown>;
      let copy: Record<string, unknown> | undefined;
      for (const key of Object.keys(record)) {
        const item = record[key];
        const prepared = prepare(item, depth + 1);
        if (prepared !== item) setOwn((copy ??= { ...record }), key, prepared);
      }
      out = copy ?? v;
    }
    if (tracked) onPath.delete(v);
    return out;
  }

  /**
   * A map as an object with its keys in byte order (the map itself when they already are and
   * nothing in it changes), or a marker where JS would reorder its keys.
   */
  function sortedMap(map: object, depth: number): unknown {
    const entries: [string, unknown][] = map instanceof Map ? [...map].map(([k, v]) => [String(k), v]) : Object.entries(map);
    let inOrder = !(map instanceof Map);
    for (let i = 0; i < entries.length; i++) {
      const key = entries[i]![0];
      if (isIndexKey(key)) return fragment(map);
      if (i > 0 && compareBytes(entries[i - 1]![0], key) > 0) inOrder = false;
    }
    for (const entry of entries) {
      const prepared = prepare(entry[1], depth + 1);
      if (prepared !== entry[1]) {
        entry[1] = prepared;
        inOrder = false;
      }
    }
    if (inOrder) return map;
    entries.sort((a, b) => compareBytes(a[0], b[0]));
    const sorted = dictionary<unknown>();
    for (const [k, item] of entries) sorted[k] = item;
    return sorted;
  }

  /** Go's bytes of a prepared value written whole, its first line at `depth` (and not indented). */
  function whole(v: unknown, depth: number): string {
    return goText(stringified(v, depth), depth);
  }

  /** JSON.stringify's text of a prepared value, its first line at `depth`: markers and Go's escapes still to come. */
  function stringified(v: unknown, depth: number): string {
    try {
      const json = (JSON.stringify(v, null, indent ? 2 : undefined) as string | undefined) ?? "null";
      return indent && depth > 0 ? json.replaceAll("\n", indented(depth).close) : json;
    } catch (err) {
      // A member too deep for JSON.stringify: the stack-free encoder writes the prepared value,
      // and its markers, which it quotes the same way, are replaced by goText.
      if (!(err instanceof RangeError && /call stack/i.test(err.message))) throw err;
      const encoder = new Encoder(indent);
      encoder.encode(v, depth);
      return encoder.out;
    }
  }

  /**
   * Stringified text as Go writes it, its first line at `depth`: Go's escapes, then the markers' texts. A text to cut
   * is cut before it comes here: the escapes make a rope (a piece per escape), which a cut would flatten only for it to
   * be copied again when it is written out.
   */
  function goText(json: string, depth: number): string {
    const escaped = goEscapes(json);
    if (tag === undefined) return escaped;
    markerPattern ??= new RegExp(`"${tag.replace("\u0000", "\\\\u0000")}([tm])(\\d+)"`, "g");
    return escaped.replace(markerPattern, (_, kind: string, index: string, offset: number) => {
      if (kind === "t") return texts[Number(index)]!;
      // The indentation of the marker's line is the depth the map is written at.
      const lineStart = escaped.lastIndexOf("\n", offset) + 1;
      let spaces = 0;
      while (escaped.charCodeAt(lineStart + spaces) === 0x20) spaces++;
      const encoder = new Encoder(indent);
      encoder.encode(maps[Number(index)], lineStart === 0 ? depth : spaces / 2);
      return encoder.out;
    });
  }

  /**
   * Array elements at `depth`, with the separators between them but without the brackets: written
   * inside depth - 1 enclosing arrays, so that JSON.stringify indents them for their place, then cut out.
   */
  function elements(items: unknown[], depth: number): string {
    let wrapped: unknown = items;
    let open = "[" + (indent ? indented(depth - 1).open : "");
    let close = (indent ? indented(depth - 1).close : "") + "]";
    for (let d = depth - 2; d >= 0; d--) {
      wrapped = [wrapped];
      open = "[" + (indent ? indented(d).open : "") + open;
      close += (indent ? indented(d).close : "") + "]";
    }
    const json = stringified(wrapped, 0);
    return goText(json.slice(open.length, json.length - close.length), depth);
  }

  const prepared = prepare(value, 0);
  const end = indent ? "\n" : "";
  if (!pieces || nodes <= SPLIT_NODES) return () => sink(whole(prepared, 0) + end);

  return () => {
    let pending = "";
    const put = (piece: string) => {
      pending += piece;
      if (pending.length >= PIECE) {
        sink(pending);
        pending = "";
      }
    };
    /** Writes the top objects member by member, and their arrays in batches of elements written whole. */
    const emit = (v: unknown, depth: number): void => {
      if (depth >= SPLIT_DEPTH || v === null || typeof v !== "object" || v instanceof JsonNumber) {
        put(whole(v, depth));
        return;
      }
      const sep = indent ? indented(depth) : COMPACT;
      if (Array.isArray(v)) {
        if (v.length === 0) return put("[]");
        for (let i = 0; i < v.length; i += BATCH) {
          put(i === 0 ? "[" + sep.open : sep.next);
          put(elements(v.slice(i, i + BATCH), depth + 1));
        }
        return put(sep.close + "]");
      }
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record).filter((k) => record[k] !== undefined);
      if (keys.length === 0) return put("{}");
      for (let i = 0; i < keys.length; i++) {
        put((i === 0 ? "{" + sep.open : sep.next) + goEscapes(JSON.stringify(keys[i])) + (indent ? ": " : ":"));
        emit(record[keys[i]!], depth + 1);
      }
      put(sep.close + "}");
    };
    emit(prepared, 0);
    sink(pending + end);
  };
}

const LONE_SURROGATE = /\\ud[89a-f]/;

/** Go's escapes where JSON.stringify differs: HTML characters, U+2028/U+2029, lone surrogates as U+FFFD. */
function goEscapes(json: string): string {
  // Outside strings JSON has none of these characters, so replacing them everywhere is exact.
  let out = json;
  if (out.includes("\u2028")) out = out.replaceAll("\u2028", "\\u2028");
  if (out.includes("\u2029")) out = out.replaceAll("\u2029", "\\u2029");
  // JSON.stringify writes a lone surrogate as \udXXX; a preceding even run of backslashes is text, not an escape.
  if (out.includes("\\ud") && LONE_SURROGATE.test(out)) out = out.replace(/(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g, "$1\\ufffd");
  // Last: they neither make nor break the patterns above, and the rope they make (a piece per escape) would be
  // flattened by a scan, only to be copied again when it is written out.
  return escapeHTML(out);
}

/** `<`, `>` and `&` as \u003c, \u003e and \u0026, in one pass that follows the next of each. */
function escapeHTML(json: string): string {
  let lt = json.indexOf("<");
  let gt = json.indexOf(">");
  let amp = json.indexOf("&");
  if (lt < 0 && gt < 0 && amp < 0) return json;
  let out = "";
  let last = 0;
  for (;;) {
    let i = lt;
    if (gt >= 0 && (i < 0 || gt < i)) i = gt;
    if (amp >= 0 && (i < 0 || amp < i)) i = amp;
    if (i < 0) return out + json.slice(last);
    if (i === lt) {
      out += json.slice(last, i) + "\\u003c";
      lt = json.indexOf("<", i + 1);
    } else if (i === gt) {
      out += json.slice(last, i) + "\\u003e";
      gt = json.indexOf(">", i + 1);
    } else {
      out += json.slice(last, i) + "\\u0026";
      amp = json.indexOf("&", i + 1);
    }
    last = i + 1;
  }
}

/**
 * Creates an empty dictionary: a null-prototype object, safe for any key including "__proto__".
 * Made by setting the prototype of a fresh literal, which V8 keeps in fast mode (Object.create(null)
 * starts in dictionary mode, several times slower to fill, read and collect; both behave the same).
 */
export function dictionary<T>(): Record<string, T> {
  return Object.setPrototypeOf({}, null) as Record<string, T>;
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

/** Like Go, cycles are only looked for past this depth, so ordinary documents pay nothing for the check. */
const START_DETECTING_CYCLES_AFTER = 1000;

/** Separators per depth, built once: "\n" plus two spaces per level, and the same after "{", "[" and ",". */
interface Separators {
  close: string;
  open: string;
  next: string;
}
const INDENTED: Separators[] = [];
const COMPACT: Separators = { close: "", open: "", next: "," };
function indented(depth: number): Separators {
  for (let d = INDENTED.length; d <= depth; d++) {
    const line = "\n" + "  ".repeat(d);
    const inner = line + "  ";
    INDENTED.push({ close: line, open: inner, next: "," + inner });
  }
  return INDENTED[depth]!;
}

/** An array or object being written: its member values, keys (objects), and how far it has got. */
interface Frame {
  items: unknown[];
  keys: string[] | null;
  i: number;
  depth: number;
  tracked: object | null;
}

/**
 * Writes any value without recursion (an explicit stack), so nesting is bounded by memory, not by
 * the call stack: the fallback for values too deep for JSON.stringify, and the writer of the maps
 * JSON.stringify would reorder. Appends to one string (V8 keeps it as a rope until it is read).
 */
class Encoder {
  out = "";
  private readonly onPath = new Set<object>();
  private readonly keyParts = new Map<string, string>();
  constructor(private readonly indent: boolean) {}

  encode(value: unknown, depth: number): void {
    const stack: Frame[] = [];
    let pending: { value: unknown; depth: number } | null = { value, depth };
    for (;;) {
      if (pending !== null) {
        const frame = this.open(pending.value, pending.depth);
        pending = null;
        if (frame !== null) stack.push(frame);
      }
      const top = stack[stack.length - 1];
      if (top === undefined) return;
      const sep = this.indent ? indented(top.depth) : COMPACT;
      if (top.i < top.items.length) {
        this.out += top.i === 0 ? sep.open : sep.next;
        if (top.keys !== null) this.out += this.keyPart(top.keys[top.i]!);
        pending = { value: top.items[top.i], depth: top.depth + 1 };
        top.i++;
      } else {
        this.out += sep.close + (top.keys === null ? "]" : "}");
        if (top.tracked !== null) this.onPath.delete(top.tracked);
        stack.pop();
      }
    }
  }

  /** Writes a scalar or an empty container whole; for any other container writes its opening and returns its frame. */
  private open(value: unknown, depth: number): Frame | null {
    switch (typeof value) {
      case "string":
        this.out += NEEDS_ESCAPE.test(value) ? quoteJSON(value) : '"' + value + '"';
        return null;
      case "boolean":
        this.out += value ? "true" : "false";
        return null;
      case "number":
        this.out += formatFloat(value);
        return null;
      case "bigint":
        this.out += value.toString();
        return null;
      case "undefined":
        this.out += "null";
        return null;
      case "object":
        break;
      default:
        throw new StableJSONError(`json: unsupported type: ${typeof value}`);
    }
    if (value === null) {
      this.out += "null";
      return null;
    }
    if (value instanceof JsonNumber) {
      this.out += value.literal;
      return null;
    }
    let items: unknown[];
    let keys: string[] | null = null;
    if (Array.isArray(value)) {
      items = value;
    } else {
      let record: Record<string, unknown>;
      if (value instanceof Map) {
        record = dictionary<unknown>();
        for (const [k, v] of value) record[String(k)] = v;
        keys = Object.keys(record).sort(compareBytes);
      } else {
        if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
          throw new StableJSONError("json: custom JSON marshaler unsupported");
        }
        record = value as Record<string, unknown>;
        keys = Object.keys(record);
        if (Object.getPrototypeOf(value) === null) keys.sort(compareBytes);
      }
      // Undefined members are skipped: Go's omitempty fields are modelled as absent keys.
      keys = keys.filter((k) => record[k] !== undefined);
      items = keys.map((k) => record[k]);
    }
    if (items.length === 0) {
      this.out += keys === null ? "[]" : "{}";
      return null;
    }
    let tracked: object | null = null;
    if (depth > START_DETECTING_CYCLES_AFTER) {
      if (this.onPath.has(value)) throw new StableJSONError("cycle detected in result model");
      this.onPath.add(value);
      tracked = value;
    }
    this.out += keys === null ? "[" : "{";
    return { items, keys, i: 0, depth, tracked };
  }

  /** `"key": ` (or `"key":`), cached: documents repeat the same keys many times. */
  private keyPart(key: string): string {
    let part = this.keyParts.get(key);
    if (part === undefined) {
      part = quoteJSON(key) + (this.indent ? ": " : ":");
      this.keyParts.set(key, part);
    }
    return part;
  }
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
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
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
