// The shared lazily-created Ajv (JSON Schema 2020-12) instance and a cache of compiled verb `args` schemas.

import type { ValidateFunction } from "ajv";
import { ajvModules, plainAjvClass, type AjvModules } from "./lazy-modules.js";
import { isObject } from "./issues.js";
import { linearRegExp } from "./linear-regexp.js";
import { linearRefusal } from "./pattern-syntax.js";

type AjvInstance = InstanceType<AjvModules["Ajv2020"]>;

let plainAjv: InstanceType<ReturnType<typeof plainAjvClass>> | undefined;
let ajv: AjvInstance | undefined;

/**
 * Ajv 2020-12 options. Schemas are not checked against the meta-schema on compile (compileSchema does
 * that where it is needed): compiling the meta-schema alone costs as much as loading Ajv. Patterns are
 * matched in linear time (linear-regexp.ts), never by JavaScript's backtracking RegExp.
 */
const OPTIONS = { allErrors: true, strict: false, logger: false, validateSchema: false, code: { regExp: linearRegExp } } as const;

/**
 * The instance for plain schemas without `format` (isPlainSchema), created on first use: Ajv's core with
 * only the vocabularies they use (ajv-plain.ts), without the meta-schemas, which compiling such a schema
 * never reads, and without Ajv's pass over the code it generates (dropping unused variables and branches,
 * inlining constants: the same answers, a quarter of compiling a schema in a one-shot run).
 */
function plainOnlyAjv(): InstanceType<ReturnType<typeof plainAjvClass>> {
  return (plainAjv ??= new (plainAjvClass())({ ...OPTIONS, meta: false, code: { ...OPTIONS.code, optimize: false } }));
}

/** The shared instance, created on first use, with the meta-schemas and ajv-formats (any schema that names a `format` needs them). */
export function getAjv(): AjvInstance {
  if (ajv === undefined) {
    ajv = new (ajvModules().Ajv2020)(OPTIONS);
    ajvModules().addFormats(ajv);
  }
  return ajv;
}

export type CompiledSchema = { ok: true; validate: ValidateFunction } | { ok: false; error: string };

const cache = new Map<string, CompiledSchema>();
const MAX_CACHE = 4096;

/**
 * Compiles a JSON Schema with the shared instance, cached by its JSON text so identical
 * schemas (common across generated packs) compile once. Never throws. A schema's `$id`
 * is not left registered, so packs cannot collide through it.
 */
export function compileSchema(schema: unknown): CompiledSchema {
  const key = JSON.stringify(schema) ?? "undefined";
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  // A plain schema is valid against the meta-schema (isPlainSchema), and without `format` needs no formats.
  const plain = isPlainSchema(schema);
  const instance = plain && !key.includes('"format"') ? plainOnlyAjv() : getAjv();
  let result: CompiledSchema;
  try {
    if (!plain) instance.validateSchema(schema as object, true); // throws "schema is invalid: …", as compile would
    result = { ok: true, validate: instance.compile(schema as object) };
  } catch (e) {
    result = { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  const id = typeof schema === "object" && schema !== null ? (schema as { $id?: unknown }).$id : undefined;
  if (typeof id === "string") {
    try {
      instance.removeSchema(id);
    } catch {
      // nothing registered
    }
  }
  if (cache.size >= MAX_CACHE) cache.clear();
  cache.set(key, result);
  return result;
}

/**
 * Checks a verb `args` schema: the fast path for the plain vocabulary packs use, else Ajv's
 * 2020-12 meta-schema and then a full compile (cached), since compile refuses schemas the
 * meta-schema allows (an empty `enum`, `nullable` without `type`, `id`, unresolved `$ref`…).
 * Never throws; returns the error text or null.
 */
export function checkSchema(schema: object): string | null {
  if (isPlainSchema(schema)) return null;
  const instance = getAjv();
  let valid: boolean;
  try {
    valid = instance.validateSchema(schema) as boolean;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  if (!valid) return instance.errorsText(instance.errors, { dataVar: "args" });
  const compiled = compileSchema(schema);
  return compiled.ok ? null : compiled.error;
}

/**
 * Whether `schema` accepts `{}` (a call without arguments), known without Ajv: a plain schema
 * (isPlainSchema) whose top level allows an object and names nothing an empty object lacks (no
 * `required` names, `minProperties`, `enum` or `const`). The rest of the plain vocabulary constrains
 * members, strings, numbers or arrays, of which `{}` has none. False when it cannot tell.
 */
export function acceptsEmptyObject(schema: unknown): boolean {
  if (schema === true) return true;
  if (!isObject(schema) || !isPlainSchema(schema)) return false;
  const type = schema.type;
  if (type !== undefined && type !== "object" && !(Array.isArray(type) && type.includes("object"))) return false;
  if (Array.isArray(schema.required) && schema.required.length > 0) return false;
  if (typeof schema.minProperties === "number" && schema.minProperties > 0) return false;
  return !Object.hasOwn(schema, "enum") && !Object.hasOwn(schema, "const");
}

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isNumber = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v);

/**
 * A `pattern` both checks accept: ajv-formats' `regex` format, which the meta-schema applies
 * (no `\Z` anchor, `new RegExp` accepts it), and Ajv's compile, which adds the `u` flag and
 * refuses a pattern it cannot match in linear time (linear-regexp.ts).
 */
const Z_ANCHOR = /[^\\]\\Z/;
function isRegex(v: unknown): boolean {
  if (typeof v !== "string" || Z_ANCHOR.test(v)) return false;
  try {
    return RegExp(v) instanceof RegExp && RegExp(v, "u") instanceof RegExp && linearRefusal(v) === undefined;
  } catch {
    return false;
  }
}

/** `type`: one simple type, or a non-empty array of distinct ones. */
function isType(v: unknown): boolean {
  if (typeof v === "string") return TYPES.has(v);
  return Array.isArray(v) && v.length > 0 && v.every((t) => typeof t === "string" && TYPES.has(t)) && new Set(v).size === v.length;
}

/**
 * The fast path: a schema built only from the plain vocabulary generated and hand-written packs use —
 * type, properties, required, additionalProperties, items, the numeric, string, array and object bounds,
 * pattern, enum, const, format and the annotations — each with a value the 2020-12 meta-schema (with
 * ajv-formats) and Ajv's compile accept. Anything else goes to Ajv. Never accepts what Ajv rejects.
 */
export function isPlainSchema(s: unknown): boolean {
  if (typeof s === "boolean") return true;
  if (!isObject(s)) return false;
  for (const k in s) {
    if (!Object.hasOwn(s, k)) continue;
    const v = s[k];
    switch (k) {
      case "type":
        if (!isType(v)) return false;
        break;
      case "properties":
        if (!isObject(v)) return false;
        for (const p in v) if (Object.hasOwn(v, p) && !isPlainSchema(v[p])) return false;
        break;
      case "required":
        if (!Array.isArray(v) || !v.every((x) => typeof x === "string") || new Set(v).size !== v.length) return false;
        break;
      case "additionalProperties":
      case "items":
        if (!isPlainSchema(v)) return false;
        break;
      case "minItems":
      case "maxItems":
      case "minLength":
      case "maxLength":
      case "minProperties":
      case "maxProperties":
        if (!isCount(v)) return false;
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (!isNumber(v)) return false;
        break;
      case "multipleOf":
        if (!isNumber(v) || (v as number) <= 0) return false;
        break;
      case "pattern":
        if (!isRegex(v)) return false;
        break;
      case "enum": // Ajv's compile refuses an empty enum, which the meta-schema allows
        if (!Array.isArray(v) || v.length === 0) return false;
        break;
      case "examples":
        if (!Array.isArray(v)) return false;
        break;
      case "const":
      case "default":
        break;
      case "uniqueItems":
      case "deprecated":
      case "readOnly":
      case "writeOnly":
        if (typeof v !== "boolean") return false;
        break;
      case "description":
      case "title":
      case "format":
        if (typeof v !== "string") return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
