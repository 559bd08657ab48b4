// Shared test helpers for pack tests: fixture reading and issue lookup.

import { readFileSync } from "node:fs";
import type { Issue } from "../../src/pack/index.js";
import { fixture } from "../e2e/helpers.js";
import fc from "fast-check";

export { fixture };

export function readFixtureJson(rel: string): unknown {
  return JSON.parse(readFileSync(fixture(rel), "utf8"));
}

/** The ledger example surface (§3.8), a fresh copy each call. */
export function ledger(): Record<string, unknown> {
  return readFixtureJson("examples/hcp/ledger/surface.json") as Record<string, unknown>;
}

export function errors(issues: readonly Issue[]): Issue[] {
  return issues.filter((i) => i.severity === "error");
}

/** [code, path] of every issue, for compact deep-equal assertions. */
export function codes(issues: readonly Issue[], severity?: Issue["severity"]): [string, string][] {
  return issues.filter((i) => severity === undefined || i.severity === severity).map((i) => [i.code, i.path]);
}

/** Values of every JSON kind, some awkward for a schema keyword. */
export const value = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, 0, -1, 1.5, 1e300, "", "string", "integer", "^[a-z]+$", "a\\Z", "\\-", "(", "[", "\\d+", "date-time", [], {}, ["a"], ["a", "a"], ["string", "null"]),
  fc.string({ maxLength: 6 }),
  fc.integer({ min: -3, max: 5 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const keyword = fc.constantFrom(
  "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems", "minLength", "maxLength",
  "minProperties", "maxProperties", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "pattern",
  "enum", "examples", "const", "default", "uniqueItems", "deprecated", "readOnly", "writeOnly", "description", "title", "format",
  "$ref", "anyOf", "unknownKeyword",
);
/** Schemas of every keyword of the plain vocabulary and some beyond it, with awkward values. */
export const anySchema: fc.Arbitrary<unknown> = fc.letrec<{ s: unknown }>((tie) => ({
  s: fc.oneof(
    { depthSize: "small" },
    fc.boolean(),
    fc.dictionary(
      keyword,
      fc.oneof(value, tie("s"), fc.dictionary(fc.constantFrom("a", "b", "$ref"), tie("s"), { maxKeys: 2 })),
      { maxKeys: 4 },
    ),
  ),
})).s;
