// Ajv's errors on verb arguments in words that name the argument (§6.3): `argument "x": must be string`. Pure.

import type { ErrorObject } from "ajv";

/** `/tags/0` as `tags[0]`, `/opts/a` as `opts.a` (JSON Pointer unescaped). */
function argumentPath(pointer: string): string {
  const segments = pointer.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  return segments.map((s, i) => (i === 0 ? s : /^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join("");
}

function describe(e: ErrorObject): string {
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
    default:
      return at === "" ? `the arguments ${e.message ?? "are invalid"}` : `argument ${JSON.stringify(at)}: ${e.message ?? "is invalid"}`;
  }
}

/** One message per distinct problem, in Ajv's order. */
export function argumentErrors(errors: readonly ErrorObject[]): string[] {
  return [...new Set(errors.map(describe))];
}
