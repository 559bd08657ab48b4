// parseManifest: Go's json.Unmarshal of rungrad-manifest/1 wire JSON into the Manifest struct.
//
// What Go does and this reproduces: syntax errors anywhere win (Go checks the whole text
// first); keys match fields exactly or case-insensitively, unknown keys are dropped, the last
// duplicate wins (decoding into the existing value, so a repeated array of structs reuses its
// elements); null leaves strings/bools alone and sets slices to nil; a type mismatch is
// remembered (the first one is reported) and decoding goes on; an `extensions` failure aborts.

import { JsonCursor, JsonSyntaxError, findSyntaxError } from "../json/literal.js";
import { ExtensionError, ManifestDecodeError } from "./errors.js";
import { isEmptyRecord, readExtensionSet } from "./extensions.js";
import type { Command, Flag, Manifest } from "./types.js";

type Target = Record<string, unknown>;

type FieldKind = "string" | "bool" | "strings" | "structs" | "extensions";

interface FieldSpec {
  /** The json tag name, which is also the TS property. */
  readonly name: string;
  readonly kind: FieldKind;
  /** Go's error path: json names from the root, joined by dots (no indices). */
  readonly path: string;
  /** The key as it is usually written, `"name"`, matched in place without reading a string. */
  readonly quoted: string;
  /** Position in the struct, so the next field in wire order is tried first. */
  readonly index: number;
  /** Element struct of a "structs" slice, and the slice's Go type. */
  readonly elem?: StructSpec;
  readonly sliceType: string;
  /** Go's error context while decoding this field's value. */
  readonly ctx: ErrorContext;
}

interface StructSpec {
  /** Go's struct name (UnmarshalTypeError.Struct) and type string. */
  readonly goName: string;
  readonly goType: string;
  readonly fields: readonly FieldSpec[];
  readonly exact: ReadonlyMap<string, FieldSpec>;
  readonly folded: ReadonlyMap<string, FieldSpec>;
  readonly create: () => object;
}

/** Where a value sits, for Go's `Go struct field <Struct>.<path>`; null at the top. */
interface ErrorContext {
  readonly struct: string;
  readonly path: string;
}

/**
 * The non-ASCII runes Go's foldName maps to an ASCII letter: it folds each rune to the smallest
 * of its unicode.SimpleFold orbit, and only these two orbits hold an ASCII letter (s S ſ, k K K).
 * Dotted and dotless i (U+0130, U+0131) are orbits of their own, so they match nothing.
 */
const SPECIAL_FOLDS: Readonly<Record<string, string>> = { "\u017f": "S", "\u212a": "K" };

/** Go's foldName for matching against ASCII field names; null when the key cannot match any. */
function foldKey(key: string): string | null {
  let folded = "";
  for (const ch of key) {
    if (ch.charCodeAt(0) < 0x80) folded += ch;
    else if (SPECIAL_FOLDS[ch] !== undefined) folded += SPECIAL_FOLDS[ch];
    else return null;
  }
  return folded.toUpperCase();
}

function structSpec(goName: string, prefix: string, create: () => object, fields: [string, FieldKind, StructSpec?][]): StructSpec {
  const exact = new Map<string, FieldSpec>();
  const folded = new Map<string, FieldSpec>();
  const specs = fields.map(([name, kind, elem], index): FieldSpec => {
    const path = prefix === "" ? name : `${prefix}.${name}`;
    const sliceType = elem ? `[]${elem.goType}` : "[]string";
    const spec: FieldSpec = { name, kind, path, quoted: `"${name}"`, index, ctx: { struct: goName, path }, sliceType, ...(elem ? { elem } : {}) };
    exact.set(name, spec);
    folded.set(foldKey(name)!, spec);
    return spec;
  });
  return { goName, goType: `manifest.${goName}`, fields: specs, exact, folded, create };
}

const newFlag = (): Flag => ({ name: "", shorthand: "", usage: "", default: "", type: "", required: false });

const newCommand = (): Command => ({
  path: null,
  use: "",
  short: "",
  examples: null,
  related: null,
  output_modes: null,
  requires_auth: false,
  mutates: false,
  supports_dry_run: false,
  destructive: false,
  requires_confirmation: false,
  supports_meta: false,
  local_flags: null,
});

const newManifest = (): Manifest => ({
  schema_version: "",
  spec_version: "",
  tool_name: "",
  tool_version: "",
  global_flags: null,
  commands: null,
});

function flagSpec(prefix: string): StructSpec {
  return structSpec("Flag", prefix, newFlag, [
    ["name", "string"],
    ["shorthand", "string"],
    ["usage", "string"],
    ["default", "string"],
    ["type", "string"],
    ["required", "bool"],
  ]);
}

const COMMAND = structSpec("Command", "commands", newCommand, [
  ["path", "strings"],
  ["use", "string"],
  ["short", "string"],
  ["examples", "strings"],
  ["related", "strings"],
  ["output_modes", "strings"],
  ["requires_auth", "bool"],
  ["mutates", "bool"],
  ["supports_dry_run", "bool"],
  ["destructive", "bool"],
  ["requires_confirmation", "bool"],
  ["supports_meta", "bool"],
  ["local_flags", "structs", flagSpec("commands.local_flags")],
  ["extensions", "extensions"],
]);

const MANIFEST = structSpec("Manifest", "", newManifest, [
  ["schema_version", "string"],
  ["spec_version", "string"],
  ["tool_name", "string"],
  ["tool_version", "string"],
  ["global_flags", "structs", flagSpec("global_flags")],
  ["commands", "structs", COMMAND],
]);

/** Go's name for the JSON value starting with code unit `c` in an UnmarshalTypeError. */
function jsonKind(c: number): string {
  switch (c) {
    case 0x7b:
      return "object";
    case 0x5b:
      return "array";
    case 0x22:
      return "string";
    case 0x74:
    case 0x66:
      return "bool";
    default:
      return "number";
  }
}

const NULL = 0x6e;

/** One decode: the cursor, the first type error, and the hidden tails of truncated slices. */
class Decoder {
  typeError: string | null = null;
  /** A slice truncated by a later duplicate key keeps its old elements past len (Go reuses the backing array). */
  private readonly tails = new WeakMap<unknown[], unknown[]>();
  /** Elements of the slices being decoded, innermost last (see slice). */
  private readonly stack: unknown[] = [];

  constructor(readonly cursor: JsonCursor) {}

  /** Records a type mismatch (only the first is reported) and skips the value. */
  mismatch(c: number, goType: string, ctx: ErrorContext | null, depth: number): void {
    if (this.typeError === null) {
      const where = ctx === null ? "Go value" : `Go struct field ${ctx.struct}.${ctx.path}`;
      this.typeError = `json: cannot unmarshal ${jsonKind(c)} into ${where} of type ${goType}`;
    }
    this.cursor.skipValue(depth);
  }

  /** Decodes the members of an object (its `{` consumed) into `target`; `depth` = the object's level. */
  structBody(spec: StructSpec, target: Target, depth: number): void {
    const cursor = this.cursor;
    let expected = 0; // wire order is the common case: try the next field's key in place first
    for (let more = cursor.firstMember(); more; more = cursor.nextMember()) {
      let field = spec.fields[expected];
      if (field === undefined || !cursor.tryLiteral(field.quoted)) {
        const key = cursor.readString();
        field = spec.exact.get(key) ?? spec.folded.get(foldKey(key) ?? "");
      }
      cursor.colon();
      if (field === undefined) {
        cursor.skipValue(depth);
      } else {
        expected = field.index + 1;
        this.field(field, target, depth);
      }
    }
  }

  private field(field: FieldSpec, target: Target, depth: number): void {
    const cursor = this.cursor;
    const c = cursor.valueStart();
    const ctx = field.ctx;
    const name = field.name;
    switch (field.kind) {
      case "string":
        if (c === 0x22) target[name] = cursor.readString();
        else if (c === NULL) cursor.readWord();
        else this.mismatch(c, "string", ctx, depth);
        return;
      case "bool":
        if (c === 0x74 || c === 0x66) target[name] = cursor.readWord();
        else if (c === NULL) cursor.readWord();
        else this.mismatch(c, "bool", ctx, depth);
        return;
      case "strings":
      case "structs":
        target[name] = this.slice(c, target[name] as unknown[] | null, field.sliceType, ctx, depth, field.elem ?? null);
        return;
      case "extensions": {
        // Go calls ExtensionSet.UnmarshalJSON for every JSON value, null included; its errors abort decoding.
        const set = readExtensionSet(cursor, depth);
        if (!isEmptyRecord(set)) target[name] = set;
        else delete target[name]; // omitempty: an empty set is the same as none
        return;
      }
    }
  }

  /**
   * A JSON array into a Go slice: null → nil, [] → a new empty slice, elements decoded into reused
   * ones. Elements are `elem` structs, or strings when it is null. They are collected on a shared
   * stack and copied out once, so each slice is allocated at its exact length.
   */
  private slice(c: number, current: unknown[] | null, goType: string, ctx: ErrorContext, depth: number, elem: StructSpec | null): unknown[] | null {
    const cursor = this.cursor;
    if (c === NULL) {
      cursor.readWord();
      return null;
    }
    if (c !== 0x5b) {
      this.mismatch(c, goType, ctx, depth);
      return current;
    }
    cursor.open(depth + 1);
    const backing = current === null ? undefined : (this.tails.get(current) ?? current);
    const stack = this.stack;
    const base = stack.length;
    if (cursor.firstElement()) {
      do {
        const i = stack.length - base;
        const old = backing !== undefined && i < backing.length ? backing[i] : undefined;
        const e = cursor.valueStart();
        stack.push(elem === null ? this.stringElement(e, old, ctx, depth + 1) : this.structElement(e, old as Target | undefined, elem, ctx, depth + 1));
      } while (cursor.nextElement());
    }
    const out = stack.length === base ? [] : stack.slice(base);
    stack.length = base;
    if (backing !== undefined && out.length > 0 && out.length < backing.length) {
      this.tails.set(out, out.concat(backing.slice(out.length)));
    }
    return out;
  }

  private stringElement(c: number, old: unknown, ctx: ErrorContext, depth: number): unknown {
    if (c === 0x22) return this.cursor.readString();
    if (c === NULL) this.cursor.readWord();
    else this.mismatch(c, "string", ctx, depth);
    return old ?? "";
  }

  private structElement(c: number, old: Target | undefined, spec: StructSpec, ctx: ErrorContext, depth: number): Target {
    const target = old ?? (spec.create() as Target);
    if (c === 0x7b) {
      this.cursor.open(depth + 1);
      this.structBody(spec, target, depth + 1);
    } else if (c === NULL) {
      this.cursor.readWord();
    } else {
      this.mismatch(c, spec.goType, ctx, depth);
    }
    return target;
  }
}

/**
 * Decodes wire JSON exactly as Go's json.Unmarshal(text, &manifest) would. Objects come back
 * in wire field order with unknown keys dropped; slices are null where the wire had null or no
 * key. Throws ManifestDecodeError with Go's text (syntax, type mismatch, or extension JSON rule).
 */
export function parseManifest(text: string): Manifest {
  const cursor = new JsonCursor(text);
  const decoder = new Decoder(cursor);
  const manifest = newManifest();
  try {
    const c = cursor.valueStart();
    if (c === 0x7b) {
      cursor.open(1);
      decoder.structBody(MANIFEST, manifest as unknown as Target, 1);
    } else if (c === NULL) {
      cursor.readWord(); // null into a struct: no effect
    } else {
      decoder.mismatch(c, MANIFEST.goType, null, 0);
    }
    cursor.finish();
  } catch (err) {
    throw decodeFailure(text, err);
  }
  if (decoder.typeError !== null) throw new ManifestDecodeError(decoder.typeError);
  return manifest;
}

function decodeFailure(text: string, err: unknown): unknown {
  if (err instanceof JsonSyntaxError) return new ManifestDecodeError(err.message, { cause: err });
  if (err instanceof ExtensionError) {
    // The decode stopped early; Go would have rejected a syntax error anywhere in the text first.
    const syntax = findSyntaxError(text);
    return new ManifestDecodeError((syntax ?? err).message, { cause: syntax ?? err });
  }
  return err;
}
