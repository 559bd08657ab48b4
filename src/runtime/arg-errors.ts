// Ajv's errors on verb arguments in words that name the argument (§6.3): `argument "x": must be string`. Pure.

import type { ErrorObject } from "ajv";

/** `/tags/0` as `tags[0]`, `/opts/a` as `opts.a` (JSON Pointer unescaped). */
function argumentPath(pointer: string): string {
  const segments = pointer.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  return segments.map((s, i) => (i === 0 ? s : /^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join("");
}

/** The subschema at an error's schemaPath (`#/properties/x/not`) within `root`; undefined when it is not there. */
function subschema(root: unknown, schemaPath: string): unknown {
  let at = root;
  for (const s of schemaPath.split("/").slice(1)) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[s.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return at;
}

function describe(e: ErrorObject, schema: unknown): string {
  const at = argumentPath(e.instancePath);
  const where = at === "" ? "" : `${at}.`;
  switch (e.keyword) {
    case "additionalProperties":
      return `unknown argument ${JSON.stringify(where + String(e.params["additionalProperty"]))}`;
    case "required":
      return `argument ${JSON.stringify(where + String(e.params["missingProperty"]))} is required`;
    case "enum": {
      const allowed = (e.params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ");
      return `argument ${JSON.stringify(at)}: must be one of ${allowed}`;
    }
    case "not": {
      // `not: {enum: […]}`: the values it may not be, named (Ajv only says "must NOT be valid").
      const refused = (subschema(schema, e.schemaPath) as { enum?: unknown } | undefined)?.enum;
      if (Array.isArray(refused)) return `argument ${JSON.stringify(at)}: must not be ${refused.map((v) => JSON.stringify(v)).join(", ")}`;
      return at === "" ? `the arguments ${e.message ?? "are invalid"}` : `argument ${JSON.stringify(at)}: ${e.message ?? "is invalid"}`;
    }
    default:
      return at === "" ? `the arguments ${e.message ?? "are invalid"}` : `argument ${JSON.stringify(at)}: ${e.message ?? "is invalid"}`;
  }
}

/** One message per distinct problem, in Ajv's order; `schema` is the schema that found them. */
export function argumentErrors(errors: readonly ErrorObject[], schema?: unknown): string[] {
  return [...new Set(errors.map((e) => describe(e, schema)))];
}
