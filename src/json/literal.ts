// A JSON reader with Go encoding/json's grammar and error texts that keeps number literals verbatim.
//
// Values come back as: strings, booleans, null, JsonNumber (the literal text), arrays, and
// dictionaries (null-prototype objects, so "__proto__" is an ordinary key and StableJSON
// sorts their keys like a Go map). Duplicate keys can be rejected at any depth.
//
// Text from bytes goes through decodeGoBytes (gobytes.ts) first, so that an invalid UTF-8 byte is
// named in errors and becomes one U+FFFD in a string, as in Go.
//
// Two dialects of error text exist in Go and both are reproduced:
// - "unmarshal": json.Unmarshal's scanner (`unexpected end of JSON input`, nesting limit 10000);
// - "decoder": a json.Decoder read through Token() (`EOF`, `unexpected EOF`, no nesting limit,
//   and a bare `invalid character 'x'` right after `{`).

import { escapedByte } from "./gobytes.js";
import { goQuote } from "./goquote.js";
import { dictionary, JsonNumber } from "./stable.js";

export type JsonDialect = "unmarshal" | "decoder";

/** Malformed JSON; the message is Go's text for the same input. */
export class JsonSyntaxError extends Error {
  override name = "JsonSyntaxError";
  /** Offset in UTF-16 code units where the problem was seen. */
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** An object key seen twice; `path` is the dotted/indexed location (`a.b[0].c`). */
export class JsonDuplicateKeyError extends Error {
  override name = "JsonDuplicateKeyError";
  constructor(readonly path: string) {
    super(`duplicate key ${goQuote(path)}`);
  }
}

/** Nesting up to which readValue reads recursively (beyond it, the explicit-stack walk). */
const QUICK_READ_DEPTH = 200;
/** Thrown inside readValue's quick reader to hand over to the walk. */
const TOO_DEEP = new Error("quick reader gave up");

/**
 * Strings up to this length are copied out of the text by slice() (longer ones share its
 * characters); readString keeps the last one seen per hash slot and returns it again when the
 * same characters recur, as short names and enum values do in a manifest.
 */
const SHORT_STRING = 12;
const SHORT_STRINGS: (string | undefined)[] = Array.from({ length: 1024 }, () => undefined);

/** Go's scanner refuses the 10001st nested container. */
const MAX_NESTING_DEPTH = 10000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

function isDigit(c: number): boolean {
  return c >= ZERO && c <= NINE;
}

function isValueStart(c: number): boolean {
  return c === LBRACE || c === LBRACKET || c === QUOTE || c === MINUS || isDigit(c) || c === 0x74 || c === 0x66 || c === 0x6e;
}

function hexValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** Go's quoteChar: the offending byte as a quoted character ('x', '\n', '"', '\''). */
function quoteChar(byte: number): string {
  if (byte === 0x27) return "'\\''";
  if (byte === QUOTE) return "'\"'";
  return "'" + goQuote(String.fromCharCode(byte)).slice(1, -1) + "'";
}

/** The first UTF-8 byte of the character at `i` (Go's scanner works on bytes; see gobytes.ts for invalid ones). */
function firstByteAt(text: string, i: number): number {
  const escaped = escapedByte(text, i);
  if (escaped >= 0) return escaped;
  const cp = text.codePointAt(i)!;
  if (cp < 0x80) return cp;
  if (cp < 0x800) return 0xc0 | (cp >> 6);
  if (cp >= 0xd800 && cp <= 0xdfff) return 0xef; // a lone surrogate encodes as U+FFFD
  if (cp < 0x10000) return 0xe0 | (cp >> 12);
  return 0xf0 | (cp >> 18);
}

const ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: "\\",
  0x2f: "/",
  0x62: "\b",
  0x66: "\f",
  0x6e: "\n",
  0x72: "\r",
  0x74: "\t",
};

/**
 * A position in JSON text with Go-compatible token primitives. The typed manifest decoder
 * drives it field by field; readValue/skipValue walk whole values without recursion.
 */
export class JsonCursor {
  pos = 0;
  /** Elements of the arrays readValue is building, innermost last. */
  private readonly items: unknown[] = [];
  private readonly end: number;
  private readonly decoder: boolean;

  constructor(
    readonly text: string,
    dialect: JsonDialect = "unmarshal",
  ) {
    this.end = text.length;
    this.decoder = dialect === "decoder";
  }

  /** Skips JSON whitespace (space, tab, CR, LF); returns the next code unit, or -1 at the end. */
  skipSpace(): number {
    const text = this.text;
    let i = this.pos;
    while (i < this.end) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
        this.pos = i;
        return c;
      }
      i++;
    }
    this.pos = i;
    return -1;
  }

  /** Moves to the first code unit of the next value and returns it; throws if no value starts there. */
  valueStart(): number {
    const c = this.skipSpace();
    if (c === -1) throw this.endBetweenTokens();
    if (!isValueStart(c)) throw this.invalid("looking for beginning of value");
    return c;
  }

  /** Consumes the `{` or `[` at the cursor; `depth` is the new container's nesting level (top = 1). */
  open(depth: number): void {
    if (!this.decoder && depth > MAX_NESTING_DEPTH) throw this.invalid("exceeded max depth");
    this.pos++;
  }

  /** Right after `{`: the first key, or null once `}` is consumed. Call colon() after a key. */
  firstKey(): string | null {
    return this.firstMember() ? this.readString() : null;
  }

  /** After a member's value: the next key, or null once `}` is consumed. Call colon() after a key. */
  nextKey(): string | null {
    return this.nextMember() ? this.readString() : null;
  }

  /**
   * Right after `{`: true if a member follows (cursor on its key's `"`), false once `}` is consumed.
   * Lets a caller try tryLiteral() on the key before falling back to readString().
   */
  firstMember(): boolean {
    const c = this.skipSpace();
    if (c === QUOTE) return true;
    if (c === RBRACE) {
      this.pos++;
      return false;
    }
    if (c === -1) throw this.endBetweenTokens();
    throw this.invalid(this.decoder ? "" : "looking for beginning of object key string");
  }

  /** After a member's value: true if another member follows (cursor on its key's `"`), false once `}` is consumed. */
  nextMember(): boolean {
    let c = this.skipSpace();
    if (c === RBRACE) {
      this.pos++;
      return false;
    }
    if (c !== COMMA) {
      if (c === -1) throw this.endBetweenTokens();
      throw this.invalid("after object key:value pair");
    }
    this.pos++;
    c = this.skipSpace();
    if (c === QUOTE) return true;
    if (c === -1) throw this.endBetweenTokens();
    throw this.invalid("looking for beginning of object key string");
  }

  /** Consumes `literal` if the text continues with exactly it (e.g. a quoted key `"path"`). */
  tryLiteral(literal: string): boolean {
    if (!this.text.startsWith(literal, this.pos)) return false;
    this.pos += literal.length;
    return true;
  }

  /** Consumes the `:` after a key. */
  colon(): void {
    const c = this.skipSpace();
    if (c === COLON) {
      this.pos++;
      return;
    }
    if (c === -1) throw this.endBetweenTokens();
    throw this.invalid("after object key");
  }

  /** Right after `[`: true if an element follows, false once `]` is consumed. */
  firstElement(): boolean {
    if (this.skipSpace() !== RBRACKET) return true;
    this.pos++;
    return false;
  }

  /** After an element: true if another follows (its `,` consumed), false once `]` is consumed. */
  nextElement(): boolean {
    const c = this.skipSpace();
    if (c === COMMA) {
      this.pos++;
      return true;
    }
    if (c === RBRACKET) {
      this.pos++;
      return false;
    }
    if (c === -1) throw this.endBetweenTokens();
    throw this.invalid("after array element");
  }

  /** Reads the string literal at the cursor (which is on its `"`), decoding escapes as Go does. */
  readString(): string {
    const text = this.text;
    const start = this.pos + 1;
    let hash = 0;
    for (let i = start; i < this.end; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        const n = i - start;
        if (n === 0 || n > SHORT_STRING) return text.slice(start, i);
        // A short slice is a copy: reuse an equal one read before (strings are values, so this is unobservable).
        const slot = hash & (SHORT_STRINGS.length - 1);
        const seen = SHORT_STRINGS[slot];
        if (seen !== undefined && seen.length === n && text.startsWith(seen, start)) return seen;
        const s = text.slice(start, i);
        SHORT_STRINGS[slot] = s;
        return s;
      }
      // An escape, a control byte, or maybe the stand-in for an invalid byte (gobytes.ts).
      if (c === BACKSLASH || c < 0x20 || (c & 0xff80) === 0xdc80) return this.readEscapedString(start, i);
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    this.pos = this.end;
    throw this.endInsideValue();
  }

  private readEscapedString(start: number, from: number): string {
    const text = this.text;
    let out = "";
    let chunk = start;
    let i = from;
    while (i < this.end) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        return out + text.slice(chunk, i);
      }
      if (c < 0x20) {
        this.pos = i;
        throw this.invalid("in string literal");
      }
      if (c !== BACKSLASH) {
        if ((c & 0xff80) === 0xdc80 && escapedByte(text, i) >= 0) {
          // Go replaces each invalid byte of a string with its own U+FFFD.
          out += text.slice(chunk, i) + "\ufffd";
          chunk = i + 1;
        }
        i++;
        continue;
      }
      out += text.slice(chunk, i);
      const e = i + 1 < this.end ? text.charCodeAt(i + 1) : -1;
      if (e === 0x75) {
        const unit = this.hex4(i + 2);
        i += 6;
        if (unit >= 0xd800 && unit <= 0xdfff) {
          // Go pairs a high surrogate with an immediately following \u low surrogate; anything else is U+FFFD.
          const low = unit <= 0xdbff && text.charCodeAt(i) === BACKSLASH && text.charCodeAt(i + 1) === 0x75 ? this.peekHex4(i + 2) : -1;
          if (low >= 0xdc00 && low <= 0xdfff) {
            out += String.fromCharCode(unit, low);
            i += 6;
          } else {
            out += "\ufffd";
          }
        } else {
          out += String.fromCharCode(unit);
        }
      } else {
        const decoded = ESCAPES[e];
        if (decoded === undefined) {
          this.pos = i + 1;
          throw this.invalid("in string escape code");
        }
        out += decoded;
        i += 2;
      }
      chunk = i;
    }
    this.pos = this.end;
    throw this.endInsideValue();
  }

  /** Four hex digits at `at`, or a syntax error at the first bad one. */
  private hex4(at: number): number {
    const v = this.peekHex4(at);
    if (v >= 0) return v;
    let k = at;
    while (k < this.end && hexValue(this.text.charCodeAt(k)) >= 0) k++;
    this.pos = k;
    throw this.invalid("in \\u hexadecimal character escape");
  }

  /** Four hex digits at `at`, or -1 if they are not there (no error: the main loop reports it later). */
  private peekHex4(at: number): number {
    let v = 0;
    for (let k = at; k < at + 4; k++) {
      const h = k < this.end ? hexValue(this.text.charCodeAt(k)) : -1;
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  /** Reads the number literal at the cursor and returns its text. */
  readNumber(): string {
    const text = this.text;
    const start = this.pos;
    let i = start;
    let c = text.charCodeAt(i);
    if (c === MINUS) {
      c = text.charCodeAt(++i);
      if (!isDigit(c)) return this.numberError(i, "in numeric literal");
    }
    if (c === ZERO) {
      c = text.charCodeAt(++i);
    } else {
      while (isDigit(c)) c = text.charCodeAt(++i);
    }
    if (c === 0x2e) {
      c = text.charCodeAt(++i);
      if (!isDigit(c)) return this.numberError(i, "after decimal point in numeric literal");
      while (isDigit(c)) c = text.charCodeAt(++i);
    }
    if (c === 0x65 || c === 0x45) {
      c = text.charCodeAt(++i);
      if (c === 0x2b || c === MINUS) c = text.charCodeAt(++i);
      if (!isDigit(c)) return this.numberError(i, "in exponent of numeric literal");
      while (isDigit(c)) c = text.charCodeAt(++i);
    }
    this.pos = i;
    return text.slice(start, i);
  }

  private numberError(at: number, context: string): never {
    this.pos = at;
    throw this.invalid(context);
  }

  /** Reads `true`, `false` or `null` at the cursor. */
  readWord(): boolean | null {
    const c = this.text.charCodeAt(this.pos);
    const word = c === 0x74 ? "true" : c === 0x66 ? "false" : "null";
    for (let k = 1; k < word.length; k++) {
      if (this.text.charCodeAt(this.pos + k) !== word.charCodeAt(k)) {
        this.pos += k;
        throw this.invalid(`in literal ${word} (expecting ${quoteChar(word.charCodeAt(k))})`);
      }
    }
    this.pos += word.length;
    return word === "null" ? null : word === "true";
  }

  /** After the top-level value only whitespace may follow (json.Unmarshal's rule). */
  finish(): void {
    if (this.skipSpace() !== -1) throw this.invalid("after top-level value");
  }

  /** Reads the next token and prints it as Go's %v prints a json.Token: `{`, `[`, strings raw, numbers verbatim, `<nil>`. */
  tokenText(): string {
    const c = this.valueStart();
    if (c === LBRACE || c === LBRACKET) {
      this.pos++;
      return String.fromCharCode(c);
    }
    const v = this.scalar(c);
    return v === null ? "<nil>" : String(v);
  }

  /** Reads one whole value. `depth` = containers already open around it. */
  readValue(depth = 0, rejectDuplicates = false): unknown {
    const start = this.pos;
    const items = this.items.length;
    try {
      return this.build(this.valueStart(), depth, 0, rejectDuplicates);
    } catch {
      // Too deep for the quick reader, a duplicate key or a syntax error: the walk
      // reads the value again from its start and decides (its errors are the ones reported).
      this.pos = start;
      this.items.length = items;
      return this.walk(depth, true, rejectDuplicates);
    }
  }

  /**
   * The common case of readValue: a recursive reader that calls the same primitives in the same
   * order as walk(), but throws (so that walk() takes over) on a duplicate key or past
   * QUICK_READ_DEPTH levels. `depth` = containers open around the value, `level` = of them inside readValue.
   */
  private build(c: number, depth: number, level: number, unique: boolean): unknown {
    if (c === LBRACE) {
      if (level >= QUICK_READ_DEPTH) throw TOO_DEEP;
      this.open(depth + 1);
      const object = dictionary<unknown>();
      if (this.firstMember()) {
        let key = this.readString();
        for (;;) {
          this.colon();
          object[key] = this.build(this.valueStart(), depth + 1, level + 1, unique);
          if (!this.nextMember()) break;
          key = this.readString();
          if (unique && key in object) throw TOO_DEEP;
        }
      }
      return object;
    }
    if (c === LBRACKET) {
      if (level >= QUICK_READ_DEPTH) throw TOO_DEEP;
      this.open(depth + 1);
      if (!this.firstElement()) return [];
      // Elements go on a shared stack first, so the array is allocated at its exact length.
      const items = this.items;
      const base = items.length;
      do items.push(this.build(this.valueStart(), depth + 1, level + 1, unique));
      while (this.nextElement());
      const array = items.slice(base);
      items.length = base;
      return array;
    }
    return this.scalar(c);
  }

  /** Checks one whole value's syntax without building it. */
  skipValue(depth = 0): void {
    this.walk(depth, false, false);
  }

  private scalar(c: number): string | boolean | null | JsonNumber {
    if (c === QUOTE) return this.readString();
    if (c === MINUS || isDigit(c)) return new JsonNumber(this.readNumber());
    return this.readWord();
  }

  /** An explicit-stack walk, so deep nesting cannot overflow the call stack. */
  private walk(depth: number, build: boolean, unique: boolean): unknown {
    const containers: (Record<string, unknown> | unknown[] | null)[] = [];
    const keys: (string | null)[] = []; // the current key of an object level, null for an array level
    let c = this.valueStart();
    for (;;) {
      let value: unknown;
      if (c === LBRACE) {
        this.open(depth + containers.length + 1);
        const object = build ? dictionary<unknown>() : null;
        const key = this.firstKey();
        if (key !== null) {
          this.colon();
          containers.push(object);
          keys.push(key);
          c = this.valueStart();
          continue;
        }
        value = object;
      } else if (c === LBRACKET) {
        this.open(depth + containers.length + 1);
        const array = build ? [] : null;
        if (this.firstElement()) {
          containers.push(array);
          keys.push(null);
          c = this.valueStart();
          continue;
        }
        value = array;
      } else {
        const scalar = this.scalar(c);
        value = build ? scalar : null;
      }
      // Attach the finished value to its parents, closing every container that ends here.
      for (;;) {
        const n = containers.length;
        if (n === 0) return value;
        const container = containers[n - 1]!;
        const key = keys[n - 1]!;
        if (key !== null) {
          if (build) (container as Record<string, unknown>)[key] = value;
          const next = this.nextKey();
          if (next !== null) {
            if (unique && next in (container as object)) throw new JsonDuplicateKeyError(this.pathOf(containers, keys, next));
            this.colon();
            keys[n - 1] = next;
            c = this.valueStart();
            break;
          }
        } else {
          if (build) (container as unknown[]).push(value);
          if (this.nextElement()) {
            c = this.valueStart();
            break;
          }
        }
        containers.pop();
        keys.pop();
        value = container;
      }
    }
  }

  /** The dotted/indexed label of a key being read: `a.b`, `a[2].c` (an empty parent adds no dot). */
  private pathOf(containers: readonly unknown[], keys: readonly (string | null)[], last: string): string {
    let label = "";
    for (let i = 0; i < keys.length; i++) {
      const key = i === keys.length - 1 ? last : keys[i];
      if (key === null) label += `[${(containers[i] as unknown[]).length}]`;
      else label = label === "" ? key! : label + "." + key;
    }
    return label;
  }

  /** `invalid character 'x' <context>` for the character at the cursor (inside a value at the end: Go's EOF texts). */
  private invalid(context: string): JsonSyntaxError {
    const suffix = context === "" ? "" : " " + context;
    if (this.pos >= this.end) {
      // Go feeds a space to the scanner at the end of input; a decoder reports the truncated value instead.
      return new JsonSyntaxError(this.decoder ? "unexpected EOF" : "invalid character ' '" + suffix, this.pos);
    }
    return new JsonSyntaxError("invalid character " + quoteChar(firstByteAt(this.text, this.pos)) + suffix, this.pos);
  }

  private endBetweenTokens(): JsonSyntaxError {
    return new JsonSyntaxError(this.decoder ? "EOF" : "unexpected end of JSON input", this.pos);
  }

  private endInsideValue(): JsonSyntaxError {
    return new JsonSyntaxError(this.decoder ? "unexpected EOF" : "unexpected end of JSON input", this.pos);
  }
}

/**
 * Parses a whole JSON document like json.Unmarshal into `any` with UseNumber, but with
 * dictionaries and JsonNumber. Syntax errors anywhere win over a duplicate key.
 */
export function parseJSONLiteral(text: string, options: { rejectDuplicates?: boolean } = {}): unknown {
  const cursor = new JsonCursor(text);
  try {
    const value = cursor.readValue(0, options.rejectDuplicates ?? false);
    cursor.finish();
    return value;
  } catch (err) {
    throw err instanceof JsonDuplicateKeyError ? (findSyntaxError(text) ?? err) : err;
  }
}

/**
 * The path of the first key an object of `text` repeats (`a.b[0].c`), or undefined: none, or the text is not JSON (its
 * parser reports that). For documents where "last one wins" would hide a value (policy.json, the credential file).
 */
export function firstDuplicateKey(text: string): string | undefined {
  try {
    parseJSONLiteral(text, { rejectDuplicates: true });
  } catch (err) {
    if (err instanceof JsonDuplicateKeyError) return err.path;
  }
  return undefined;
}

/** The syntax error json.Unmarshal's validity check reports for `text`, or null if it is well-formed. */
export function findSyntaxError(text: string): JsonSyntaxError | null {
  const cursor = new JsonCursor(text);
  try {
    cursor.skipValue();
    cursor.finish();
    return null;
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err;
    throw err;
  }
}
