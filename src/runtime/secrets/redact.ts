// Replaces secrets with "***" (§12) in text, Buffers and JSON values: raw, in every JSON string
// encoding, in their URL forms (url-forms.ts), and at a truncation cut, where masking never depends on
// what the cut text holds; in hcp's own envelopes, every value but none of hcp's field names. Pure.

import { dictionary } from "../../json/stable.js";
import { setOwn } from "../../json/own.js";
import { urlForms } from "./url-forms.js";

export const MASK = "***";

/** A compiled set of secrets; build once per call with `secretSet`. */
export interface SecretSet {
  /** The secrets as given, longest first. */
  readonly secrets: readonly string[];
  /** Matches any secret up to LONG_SECRET characters, in any JSON string encoding, and its URL forms as JSON writes them; null when there is none. */
  readonly pattern: RegExp | null;
  /** The secrets and URL forms longer than LONG_SECRET characters, as written and as common JSON encoders write them, longest first. */
  readonly longForms: readonly string[];
  /**
   * The most bytes any form of any secret can take: 6 per UTF-16 code unit, each written `\uXXXX`, or its longest URL form.
   * A truncated text loses its last `longestForm − 1` bytes (§12).
   */
  readonly longestForm: number;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The escapes a JSON encoder may write for a character instead of `\uXXXX`: Go, Python, PHP and JS between them. */
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `\uXXXX` for one UTF-16 code unit, its hex digits in either case. */
function unicodeEscape(unit: number): string {
  const hex = unit.toString(16).padStart(4, "0");
  return "\\\\u" + [...hex].map((d) => (/[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)).join("");
}

/**
 * A pattern for one secret in any JSON string encoding: each character raw, as its short escape, or
 * as `\uXXXX` (a character outside the BMP as its surrogate pair), mixed freely.
 */
function encodingsOf(secret: string): string {
  let out = "";
  for (const ch of secret) {
    const forms = [escapeRegExp(ch)];
    const short = SHORT_ESCAPES[ch];
    if (short !== undefined) forms.push(escapeRegExp(short));
    let units = "";
    for (let i = 0; i < ch.length; i++) units += unicodeEscape(ch.charCodeAt(i));
    forms.push(units);
    out += `(?:${forms.join("|")})`;
  }
  return out;
}

/**
 * Past this many characters a secret is found by its common encodings as whole strings rather than by a pattern
 * of one group per character: V8 cannot compile such a pattern for a secret of some 7,000 characters (a long JWT),
 * and its error quotes the pattern, which spells the secret out.
 */
const LONG_SECRET = 256;

/** `\uXXXX` for every character `pick` chooses (its UTF-16 code units), hex in the given case. */
function escapeUnits(text: string, pick: (unit: number) => boolean, upper: boolean): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const hex = unit.toString(16).padStart(4, "0");
    out += pick(unit) ? `\\u${upper ? hex.toUpperCase() : hex}` : text[i];
  }
  return out;
}

/**
 * A long secret as JSON encoders write it: raw; JavaScript's JSON.stringify; PHP's `\/`; Python's ensure_ascii
 * (beyond ASCII as `\uXXXX`); Go's `\u0026`, `\u003c`, `\u003e`; and every character as `\uXXXX`; hex in either case.
 */
function longFormsOf(secret: string): string[] {
  const js = JSON.stringify(secret).slice(1, -1);
  const forms = [secret, js, js.replace(/\//g, "\\/")];
  for (const upper of [false, true]) {
    forms.push(escapeUnits(js, (u) => u > 0x7e, upper), escapeUnits(js, (u) => u === 0x26 || u === 0x3c || u === 0x3e || u === 0x2028 || u === 0x2029, upper));
    forms.push(escapeUnits(secret, () => true, upper));
  }
  return forms;
}

const longestFirst = (a: string, b: string) => b.length - a.length;
const isShort = (s: string) => s.length <= LONG_SECRET;

/**
 * A URL form as JSON encoders write it: such a form is ASCII with no `"`, `\`, `&`, `<` or `>`, so JavaScript, Python
 * and Go write it as it is, PHP with `\/`; found as whole strings, not a pattern of one group per character.
 */
const linkedAsJson = (form: string) => [form, form.replace(/\//g, "\\/")];

/**
 * The sets last compiled, by their secrets, the most recently used last: a server compiles the same few sets for each
 * call and each message it sends (the credential file's values with a pack's own, with every served pack's), about
 * 80 µs for four secrets. A set is never changed once made.
 */
const compiledSets = new Map<string, SecretSet>();
const COMPILED_KEPT = 8;

/** Compiles secrets (empty values ignored) with their URL forms; longest first, so a secret containing another is masked whole. */
export function secretSet(secrets: Iterable<string>): SecretSet {
  const list = [...new Set([...secrets].filter((s) => s !== ""))].sort(longestFirst);
  const key = JSON.stringify(list);
  const set = compiledSets.get(key) ?? compiled(list);
  compiledSets.delete(key);
  compiledSets.set(key, set);
  if (compiledSets.size > COMPILED_KEPT) compiledSets.delete(compiledSets.keys().next().value!);
  return set;
}

function compiled(list: string[]): SecretSet {
  const own = new Set(list);
  const linked = [...new Set(list.flatMap(urlForms).filter((f) => !own.has(f)).flatMap(linkedAsJson))].sort(longestFirst);
  const alternatives = [...list.filter(isShort).map((s) => ({ s, source: encodingsOf(s) })), ...linked.filter(isShort).map((s) => ({ s, source: escapeRegExp(s) }))];
  let pattern: RegExp | null = null;
  try {
    const sources = alternatives.sort((a, b) => longestFirst(a.s, b.s)).map((a) => a.source);
    pattern = sources.length === 0 ? null : new RegExp(sources.join("|"), "g");
  } catch {
    // The engine's message would quote the pattern, and with it the secrets.
    throw new Error("the secrets to mask could not be compiled into a pattern");
  }
  const longForms = [...new Set([...list.filter((s) => !isShort(s)).flatMap(longFormsOf), ...linked.filter((s) => !isShort(s))])].sort(longestFirst);
  return { secrets: list, pattern, longForms, longestForm: Math.max(6 * (list[0]?.length ?? 0), linked[0]?.length ?? 0) };
}

function asSet(secrets: SecretSet | Iterable<string>): SecretSet {
  return "pattern" in secrets && "secrets" in secrets ? secrets : secretSet(secrets as Iterable<string>);
}

/**
 * Masks every secret in a text: each stretch that any form of any secret covers becomes one `***`. Secrets are found
 * from every place, not only after the last one found ends, and overlapping finds are joined: a secret found first
 * that ends inside another (an agent's `writeOnly` value `Bearer g` before the credential `ghp_…`) must not leave the
 * other's rest shown.
 */
export function redactText(text: string, secrets: SecretSet | Iterable<string>): string {
  const set = asSet(secrets);
  const found: [number, number][] = [];
  for (const form of set.longForms) for (let at = text.indexOf(form); at !== -1; at = text.indexOf(form, at + 1)) found.push([at, at + form.length]);
  const pattern = set.pattern;
  if (pattern !== null) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      found.push([m.index, m.index + m[0].length]);
      pattern.lastIndex = m.index + 1;
    }
  }
  if (found.length === 0) return text;
  if (set.longForms.length > 0) found.sort((a, b) => a[0] - b[0]);
  let out = "";
  let [start, end] = found[0]!;
  let kept = 0;
  for (const [s, e] of found) {
    if (s < end) end = Math.max(end, e);
    else {
      out += text.slice(kept, start) + MASK;
      kept = end;
      [start, end] = [s, e];
    }
  }
  return out + text.slice(kept, start) + MASK + text.slice(end);
}

/**
 * A stream's byte count as shown, from `written` (the bytes the program or server wrote) and its text `before` and
 * `after` masking: a count of what was written, beside the masked text, would tell each masked secret's length.
 * Bytes past a cut (max_output_bytes) are counted as written.
 */
export function shownBytes(written: number, before: string, after: string): number {
  return before === after ? written : written - Buffer.byteLength(before) + Buffer.byteLength(after);
}

/**
 * The kept part of a truncated text (§12): its last `longestForm − 1` bytes are removed, whatever they
 * are, then any partial UTF-8 character. What is removed never depends on whether it begins a secret,
 * so the output cannot tell a caller whether a guess is a prefix of one.
 */
export function cutTruncatedTail(text: string, secrets: SecretSet | Iterable<string>): string {
  const drop = asSet(secrets).longestForm - 1;
  if (drop <= 0) return text;
  const bytes = Buffer.from(text, "utf8");
  let end = Math.max(0, bytes.length - drop);
  // Back off to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && end < bytes.length && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

type Container = unknown[] | Record<string, unknown>;

/** Arrays, plain objects and dictionaries; anything else (a JsonNumber, a Buffer) is a leaf. */
function isContainer(v: unknown): v is Container {
  if (Array.isArray(v)) return true;
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** An empty container of the same kind. */
function emptyLike(v: Container): Container {
  return Array.isArray(v) ? [] : Object.getPrototypeOf(v) === null ? dictionary<unknown>() : {};
}

/**
 * Masks every secret in a value: strings, Buffers (decoded as UTF-8, returned as strings),
 * arrays and objects deeply (keys included), however deep, without recursion. Other values are
 * returned unchanged.
 */
export function redact(value: unknown, secrets: SecretSet | Iterable<string>): unknown {
  const set = asSet(secrets);
  if (set.secrets.length === 0) return value;
  const leaf = (v: unknown): unknown => (typeof v === "string" ? redactText(v, set) : Buffer.isBuffer(v) ? redactText(v.toString("utf8"), set) : v);
  if (!isContainer(value)) return leaf(value);
  const out = emptyLike(value);
  const stack: [Container, Container][] = [[value, out]];
  while (stack.length > 0) {
    const [from, to] = stack.pop()!;
    for (const [k, v] of Object.entries(from)) {
      const copy = isContainer(v) ? emptyLike(v) : leaf(v);
      if (isContainer(v)) stack.push([v, copy as Container]);
      if (Array.isArray(to)) to.push(copy);
      else setOwn(to, redactText(k, set), copy);
    }
  }
  return out;
}

/**
 * Masks every secret in the strings of a JSON value hcp serves as text (a tool's description and input schema, a
 * verb's description): object keys, and the values of the keys in `kept` (`required`, which lists keys), are kept, as
 * they name what a caller gives. Recursive: for values of a pack's own, whose depth its files bound.
 */
export function redactStrings<T>(value: T, secrets: SecretSet, kept: readonly string[] = []): T {
  if (secrets.secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (isContainer(v)) return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, kept.includes(k) ? inner : walk(inner)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * Which parts of a value hcp made itself. An object layout is an envelope of hcp's: its keys are field names hcp
 * defines, public, so never masked (a secret `exit_code` must not rename the field a client reads), and each field's
 * value is masked by the layout named for it, "foreign" when none is. "foreign" is what came from the program, the API,
 * the person or the environment: masked whole, keys included, however deep. "public" is a constant hcp chose (a
 * JSON-RPC method, a log level), kept: masking it would only break the message.
 */
export type Layout = "foreign" | "public" | { readonly [field: string]: Layout };

/** Masks every secret in a value hcp made, by its layout; a value that is not the object its layout expects is foreign. */
export function redactEnvelope(value: unknown, secrets: SecretSet | Iterable<string>, layout: Layout): unknown {
  const set = asSet(secrets);
  if (set.secrets.length === 0 || layout === "public") return value;
  if (layout === "foreign" || Array.isArray(value) || !isContainer(value)) return redact(value, set);
  const out = emptyLike(value);
  for (const [k, v] of Object.entries(value)) setOwn(out, k, redactEnvelope(v, set, Object.hasOwn(layout, k) ? layout[k]! : "foreign"));
  return out;
}
