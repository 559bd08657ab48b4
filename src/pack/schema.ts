// The shared lazily-created Ajv (JSON Schema 2020-12) instance and a cache of compiled verb `args` schemas.

import { createRequire } from "node:module";
import type Ajv2020Module from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import type addFormatsModule from "ajv-formats";

type AjvInstance = InstanceType<typeof Ajv2020Module.default>;

let ajv: AjvInstance | undefined;

/** The one Ajv 2020-12 instance (with ajv-formats), loaded and created on first use (Ajv costs ~150 ms to load). */
export function getAjv(): AjvInstance {
  if (ajv === undefined) {
    const require = createRequire(import.meta.url);
    // Both packages are CommonJS with `exports.default`.
    const Ajv2020 = (require("ajv/dist/2020.js") as typeof Ajv2020Module).default;
    const addFormats = (require("ajv-formats") as typeof addFormatsModule).default;
    ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
    addFormats(ajv);
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
  const instance = getAjv();
  let result: CompiledSchema;
  try {
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

const NEEDS_COMPILE = /"\$(?:ref|dynamicRef|id|anchor|dynamicAnchor)"/;

/**
 * Checks a verb `args` schema cheaply: against the 2020-12 meta-schema (one compiled validator
 * for all schemas), and by a full compile only when it uses references or ids — the
 * parts the meta-schema cannot vouch for. Never throws; returns the error text or null.
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
  const text = JSON.stringify(schema);
  if (!NEEDS_COMPILE.test(text)) return null;
  const compiled = compileSchema(schema);
  return compiled.ok ? null : compiled.error;
}

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * The fast path: a schema built only from the plain vocabulary generated packs use
 * (type, properties, required, additionalProperties, items, minItems, maxItems, description, title),
 * each with a value the 2020-12 meta-schema accepts. Anything else goes to Ajv.
 */
function isPlainSchema(s: unknown): boolean {
  if (typeof s === "boolean") return true;
  if (typeof s !== "object" || s === null || Array.isArray(s)) return false;
  for (const [k, v] of Object.entries(s)) {
    switch (k) {
      case "type":
        if (typeof v === "string" ? !TYPES.has(v) : true) return false;
        break;
      case "properties":
        if (typeof v !== "object" || v === null || Array.isArray(v) || !Object.values(v).every(isPlainSchema)) return false;
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
        if (!isCount(v)) return false;
        break;
      case "description":
      case "title":
        if (typeof v !== "string") return false;
        break;
      default:
        return false;
    }
  }
  return true;
}
