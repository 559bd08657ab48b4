// Ajv's errors on verb arguments in words that name the argument (§6.3): `argument "x": must be string`. Pure.

import type { ErrorObject } from "ajv";
import { firstAndMore } from "../listing.js";
import { isObject } from "../pack/issues.js";
import { closestNames } from "./verb-names.js";

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

/** How many unknown arguments of one call are told what was likely meant (an agent may send thousands). */
const HINTED = 8;

function describe(e: ErrorObject, schema: unknown, hinted: { count: number }): string {
  const at = argumentPath(e.instancePath);
  const where = at === "" ? "" : `${at}.`;
  switch (e.keyword) {
    case "additionalProperties": {
      const name = String(e.params["additionalProperty"]);
      const object = subschema(schema, e.schemaPath.replace(/\/additionalProperties$/, ""));
      const hint = object === undefined || hinted.count++ >= HINTED ? "" : knownNames(name, object, where);
      return `unknown argument ${JSON.stringify(where + name)}${hint}`;
    }
    case "required":
      return `argument ${JSON.stringify(where + String(e.params["missingProperty"]))} is required`;
    case "enum": {
      const allowed = (e.params["allowedValues"] as unknown[]).map((v) => JSON.stringify(v)).join(", ");
      return `argument ${JSON.stringify(at)}: must be one of ${allowed}`;
    }
    case "not": {
      // `not: {enum: […]}`: the values it may not be, named (Ajv only says "must NOT be valid"); else what it says of them.
      const not = subschema(schema, e.schemaPath) as { enum?: unknown; description?: unknown } | undefined;
      if (Array.isArray(not?.enum)) return `argument ${JSON.stringify(at)}: must not be ${not.enum.map((v) => JSON.stringify(v)).join(", ")}`;
      if (typeof not?.description === "string" && at !== "") return `argument ${JSON.stringify(at)}: must not be ${not.description}`;
      return at === "" ? `the arguments ${e.message ?? "are invalid"}` : `argument ${JSON.stringify(at)}: ${e.message ?? "is invalid"}`;
    }
    default:
      return at === "" ? `the arguments ${e.message ?? "are invalid"}` : `argument ${JSON.stringify(at)}: ${e.message ?? "is invalid"}`;
  }
}

/** How many names an unknown argument's error lists, when none is close to it. */
const NAMES_SHOWN = 12;

/**
 * What the caller may have meant by an unknown argument: the nearest name (`show_labels` for `show-labels`, a few
 * letters off, or one containing it), else the names there are.
 */
function knownNames(given: string, object: unknown, where: string): string {
  const properties = isObject(object) && isObject(object["properties"]) ? Object.keys(object["properties"]) : [];
  if (properties.length === 0) return where === "" ? " (the verb takes no arguments)" : "";
  const [close] = closestNames(properties, given);
  if (close !== undefined) return ` (did you mean ${JSON.stringify(where + close)}?)`;
  return ` (${where === "" ? "its arguments" : `the fields of ${JSON.stringify(where.slice(0, -1))}`}: ${firstAndMore(properties, NAMES_SHOWN)})`;
}

/** One message per distinct problem, in Ajv's order; `schema` is the schema that found them. */
export function argumentErrors(errors: readonly ErrorObject[], schema?: unknown): string[] {
  const hinted = { count: 0 };
  return [...new Set(errors.map((e) => describe(e, schema, hinted)))];
}
