// Where a schema has a pattern hcp cannot match in linear time (pattern-syntax.ts), by its JSON path: pack validation
// names each one. A pattern JavaScript does not compile is left to the schema check, which says so.

import { index, isObject, prop } from "./issues.js";
import { linearRefusal, parsePattern, refusalMessage } from "./pattern-syntax.js";

export interface PatternProblem {
  readonly path: string;
  readonly message: string;
}

/** Keywords whose value is a schema, an array of schemas, or a map of names to schemas (JSON Schema 2020-12, and draft 7's). */
export const SCHEMA = new Set(["additionalProperties", "items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "contentSchema"]);
export const SCHEMAS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
export const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
const MAX_DEPTH = 64;

/** A JSON path below `path`: each step a key (a name or keyword) or an array index. */
type Step = string | number;
const pathOf = (path: string, steps: readonly Step[]): string => steps.reduce<string>((at, step) => (typeof step === "number" ? index(at, step) : prop(at, step)), path);

/**
 * Calls `visit` with each pattern of `schema` (at `path`): its `pattern` and `patternProperties` names, at every level
 * a schema can be. The path is written only when asked for (pack loading walks every verb's schema).
 */
function eachPattern(schema: unknown, path: string, visit: (pattern: string, at: () => string, holder: Record<string, unknown>, key: string) => void): void {
  const steps: Step[] = [];
  const here = (...last: Step[]) => () => pathOf(path, [...steps, ...last]);
  const walk = (s: unknown, depth: number): void => {
    if (!isObject(s) || depth > MAX_DEPTH) return;
    for (const k in s) {
      if (!Object.hasOwn(s, k)) continue;
      const v = s[k];
      if (k === "pattern" && typeof v === "string") visit(v, here(k), s, k);
      else if (k === "patternProperties" && isObject(v)) for (const name of Object.keys(v)) visit(name, here(k, name), v, name);
      steps.push(k);
      if (SCHEMA.has(k)) walk(v, depth + 1);
      if (SCHEMAS.has(k) && Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          steps.push(i);
          walk(v[i], depth + 1);
          steps.pop();
        }
      }
      if (SCHEMA_MAPS.has(k) && isObject(v)) {
        for (const name in v) {
          if (!Object.hasOwn(v, name)) continue;
          steps.push(name);
          walk(v[name], depth + 1);
          steps.pop();
        }
      }
      steps.pop();
    }
  };
  walk(schema, 0);
}

/** The patterns of `schema` (at `path`) that hcp refuses. */
export function patternProblems(schema: unknown, path: string): PatternProblem[] {
  const out: PatternProblem[] = [];
  eachPattern(schema, path, (pattern, at) => {
    const why = linearRefusal(pattern);
    if (why !== undefined) out.push({ path: at(), message: refusalMessage(pattern, why) });
  });
  return out;
}

/** Why a generator leaves a pattern out: hcp cannot match it in linear time, or JavaScript does not compile it (u flag). */
function leftOutBecause(pattern: string): string | undefined {
  const parsed = parsePattern(pattern);
  if (parsed.ok) return undefined;
  return parsed.syntax ? `pattern ${JSON.stringify(pattern)} ${parsed.why}` : refusalMessage(pattern, parsed.why);
}

/**
 * `schema` (a copy of it when it changes) without the patterns hcp refuses or JavaScript does not compile (AWS's
 * documents have `\\-` and `\\:`, which the u flag JSON Schema's patterns take refuses): a `pattern` left out checks
 * less, a `patternProperties` entry left out lets `additionalProperties` judge those names. For a schema hcp writes from
 * another's (hcp init --from-openapi), which says what it left out.
 */
export function withoutRefusedPatterns(schema: Record<string, unknown>, path: string): { schema: Record<string, unknown>; removed: PatternProblem[] } {
  const removed: PatternProblem[] = [];
  // Each pattern is judged once: the copy drops those judged here.
  const refused = new Set<string>();
  eachPattern(schema, path, (pattern, at) => {
    const why = leftOutBecause(pattern);
    if (why === undefined) return;
    removed.push({ path: at(), message: why });
    refused.add(pattern);
  });
  if (removed.length === 0) return { schema, removed };
  const copy = structuredClone(schema);
  eachPattern(copy, path, (pattern, _at, holder, key) => {
    if (refused.has(pattern)) delete holder[key];
  });
  return { schema: copy, removed };
}
