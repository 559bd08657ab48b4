// A verb's arguments (§6.2, §6.3): the schema they are judged against, and judging them (compiled once per verb,
// or interpreted in a one-shot run).

import type { ValidateFunction } from "ajv";
import { isObject } from "../pack/issues.js";
import { MAX_JSON_DEPTH, tooDeep } from "../pack/load.js";
import { acceptsEmptyObject, compileSchema } from "../pack/schema.js";
import { acceptsWithoutCompiling } from "../pack/interpreted.js";
import type { LoadedPack, SurfaceVerb } from "../pack/types.js";
import { argumentErrors } from "./arg-errors.js";
import { deriveArgsSchema, type Args } from "./argv.js";
import { RuntimeError } from "./errors.js";
import { operationArgsSchema } from "./openapi/verb.js";
import { commandOf, notExecutable, usableSurface, verbOf } from "./verb-lookup.js";

/** Template-derived args schemas, made once per verb of a loaded pack (a call asks for it twice). */
const derivedSchemas = new WeakMap<SurfaceVerb, Record<string, unknown>>();

/** The JSON Schema a verb's arguments are validated against: its `args`, else the one derived from its template (§6.3). */
export function argsSchemaOf(pack: LoadedPack, verbKey: string): Record<string, unknown> {
  const surface = usableSurface(pack);
  const verb = verbOf(pack, surface, verbKey);
  if (verb.args !== undefined) return verb.args;
  const unrunnable = notExecutable(surface);
  if (unrunnable) return { type: "object" };
  if (surface.kind === "openapi") return operationArgsSchema(pack, verbKey);
  let derived = derivedSchemas.get(verb);
  if (derived === undefined) {
    const { template, allowVerb } = commandOf(surface, verbKey, verb);
    derived = deriveArgsSchema(template, { allowVerb });
    derivedSchemas.set(verb, derived);
  }
  return derived;
}

/** The argument names a schema requires: a placeholder outside them is optional (§6.2). */
export function requiredOf(schema: Record<string, unknown>): ReadonlySet<string> {
  const required = schema["required"];
  return new Set(Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : []);
}

const validators = new WeakMap<SurfaceVerb, ValidateFunction>();

/**
 * Whether the arguments pass. Ajv's own comparison (enum, const, uniqueItems) throws on an object with an own
 * `valueOf` that is not a function: such arguments cannot be judged, so they are refused as invalid, naming why.
 */
function judge(validate: ValidateFunction, args: unknown, verbKey: string): boolean {
  try {
    return validate(args);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new RuntimeError("invalid_args", `invalid arguments for verb ${JSON.stringify(verbKey)}: its schema cannot judge them (${why})`);
  }
}

export function validateArgs(pack: LoadedPack, verbKey: string, verb: SurfaceVerb, args: unknown, oneCall: boolean): Args {
  if (!isObject(args)) {
    throw new RuntimeError("invalid_args", `arguments of verb ${JSON.stringify(verbKey)} must be a JSON object`);
  }
  // Deeper, copying them into a plan or a request body would overflow the stack (an internal error, not the caller's).
  const deep = tooDeep(args, MAX_JSON_DEPTH);
  if (deep !== undefined) {
    throw new RuntimeError("invalid_args", `invalid arguments for verb ${JSON.stringify(verbKey)}: nested more than ${MAX_JSON_DEPTH} levels deep at ${deep}`);
  }
  let validate = validators.get(verb);
  if (validate === undefined) {
    const schema = argsSchemaOf(pack, verbKey);
    // A call without arguments to a verb whose schema plainly accepts none needs no compiled
    // validator: a one-shot run then never loads Ajv (~200 ms to load and compile).
    if (Object.keys(args).length === 0 && acceptsEmptyObject(schema)) return args;
    // Compiling costs a one-shot run more than interpreting the schema once (docs/performance.md).
    if (oneCall && acceptsWithoutCompiling(schema, args)) return args;
    const compiled = compileSchema(schema);
    if (!compiled.ok) throw new RuntimeError("invalid_args", `verb ${JSON.stringify(verbKey)}: its args schema does not compile: ${compiled.error}`);
    validate = compiled.validate;
    validators.set(verb, validate);
  }
  if (!judge(validate, args, verbKey)) {
    // An API's schema is its document's, which may be stricter than the API (Asana's custom fields take an array where it
    // says a string): the agent can only tell the person, who can loosen it.
    const whose = pack.surface?.kind === "openapi" && verb.args === undefined ? " (the schema is the OpenAPI document's: if the API takes what was sent, a person can loosen it in this verb's args in surface.json)" : "";
    throw new RuntimeError("invalid_args", `invalid arguments for verb ${JSON.stringify(verbKey)}: ${argumentErrors(validate.errors ?? [], validate.schema).join("; ")}${whose}`);
  }
  return args;
}
