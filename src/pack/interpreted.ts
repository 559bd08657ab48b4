// Arguments judged once without compiling a validator: a process that validates one call (a one-shot `hcp run`)
// asks @cfworker/json-schema, which interprets a schema instead of generating code, whether a plain schema accepts
// the arguments. Only "yes" is trusted: on "no" (or "cannot tell") the caller compiles with Ajv as always, so a
// refusal's words and exit code are Ajv's. The two must never disagree where the interpreter says yes; the schemas
// and values on which they can (below) are left to Ajv (test/pack/interpreted.test.ts compares them).

import { interpreterClass } from "./lazy-modules.js";
import { isObject } from "./issues.js";
import { isPlainSchema } from "./schema.js";

/**
 * Whether `schema` accepts `value`, known without Ajv: true only when the schema and the value are of the kinds
 * both validators judge alike (interpretable, isJsonData) and the interpreter accepts the value. False when it
 * cannot tell; never throws.
 */
export function acceptsWithoutCompiling(schema: unknown, value: unknown): boolean {
  try {
    if (!isPlainSchema(schema) || !interpretable(schema) || !isJsonData(value)) return false;
    // The interpreter marks the schema objects it reads (non-enumerable properties): it reads a copy.
    return new (interpreterClass())(structuredClone(schema) as object, "2020-12").validate(value).valid;
  } catch {
    return false; // too deep to walk, or anything else unforeseen: Ajv judges
  }
}

/** Ajv compares objects and arrays with fast-deep-equal, which reads an object's own `constructor` and calls its `valueOf`. */
const holdsObject = (v: unknown): boolean => (Array.isArray(v) ? v.some(holdsObject) : typeof v === "object" && v !== null);

/** A name Ajv's generated code finds on every object (`data.constructor !== undefined`, `__proto__` skipped). */
const inherited = (name: string): boolean => name in Object.prototype;

/**
 * A plain schema (isPlainSchema) on which the interpreter and Ajv agree, at every level, without:
 * - `pattern`: the interpreter matches it with JavaScript's backtracking RegExp, in which an agent's value can take
 *   exponential time; Ajv matches it in linear time (linear-regexp.ts);
 * - `format` (ajv-formats' formats are not the interpreter's) and `multipleOf` (Ajv divides in floating point:
 *   0.3 is not a multiple of 0.1 for Ajv, 1e21 not one of 1; the interpreter counts in decimal);
 * - `uniqueItems: true`, and `const` or `enum` holding an object (Ajv compares with fast-deep-equal: an own
 *   `constructor` key makes equal objects differ, an own `valueOf` makes it throw);
 * - a `properties` name every object inherits (`constructor`, `__proto__`, `toString`…): Ajv's code reads
 *   `data.name`, inherited or not, and leaves `__proto__` out of `properties`; the interpreter asks whether the
 *   name is the object's own. (For such a name in `required` the interpreter refuses `{}` where Ajv accepts it:
 *   a no, which Ajv then decides.)
 */
function interpretable(s: unknown): boolean {
  if (typeof s === "boolean") return true;
  if (!isObject(s)) return false;
  if (Object.hasOwn(s, "pattern") || Object.hasOwn(s, "format") || Object.hasOwn(s, "multipleOf") || s["uniqueItems"] === true) return false;
  if (Object.hasOwn(s, "const") && holdsObject(s["const"])) return false;
  if (Array.isArray(s["enum"]) && s["enum"].some(holdsObject)) return false;
  const properties = s["properties"];
  if (isObject(properties)) {
    for (const name of Object.keys(properties)) if (inherited(name) || !interpretable(properties[name])) return false;
  }
  return interpretable(s["additionalProperties"] ?? true) && interpretable(s["items"] ?? true);
}

/**
 * A value as JSON.parse makes it: null, booleans, strings, finite numbers, arrays and objects whose prototypes are
 * the usual ones. Not an object with another prototype, whose names Ajv reads as the object's and the interpreter
 * does not (the transports make none: `--arg __proto__:=…` is an own key); nor Infinity (`1e309`), an integer for Ajv.
 */
export function isJsonData(v: unknown): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v);
    case "object":
      if (v === null) return true;
      if (Array.isArray(v)) {
        if (Object.getPrototypeOf(v) !== Array.prototype) return false;
        for (let i = 0; i < v.length; i++) if (!isJsonData(v[i])) return false; // a hole reads as undefined
        return true;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype) return false;
      for (const k of Object.keys(v)) if (!isJsonData((v as Record<string, unknown>)[k])) return false;
      return true;
    default:
      return false;
  }
}
