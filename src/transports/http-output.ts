// The MCP outputSchema of an openapi verb's tool: the §6.7 result (its body once, as `json` where it parses), or a dry
// run's plan, or an error.

const str = { type: "string" } as const;
const bool = { type: "boolean" } as const;
const count = { type: "integer", minimum: 0 } as const;

/** The §6.7 result (`json` is any value; `mock` only in mock mode). */
export const HTTP_RESULT = {
  type: "object",
  required: ["pack", "verb", "request", "status", "ok", "headers", "body", "body_bytes", "body_truncated", "duration_ms", "timed_out"],
  properties: {
    pack: str,
    verb: str,
    request: { type: "object", required: ["method", "url"], properties: { method: str, url: str } },
    status: { type: ["integer", "null"] },
    ok: bool,
    headers: { type: "object", additionalProperties: str },
    body: str,
    body_bytes: count,
    body_truncated: bool,
    duration_ms: count,
    timed_out: bool,
    json: {},
    mock: { const: true },
    note: str,
  },
} as const;

/** A schema that `name` is present in (declared too: Ajv's strict mode wants each required property declared). */
const present = (name: string) => ({ required: [name], properties: { [name]: {} } });

/**
 * `schema` as an MCP tool's structuredContent carries it: its required text `field` (stdout, a body) is left out where
 * `json` holds it parsed (mcp.ts structuredOf); one of the two is always there.
 */
export function onceAsJson<S extends { required: readonly string[] }>(schema: S, field: string): S & { anyOf: object[] } {
  return { ...schema, required: schema.required.filter((k) => k !== field), anyOf: [present(field), present("json")] };
}

/** The §6.7 result as structuredContent carries it. */
const HTTP_TOOL_RESULT = onceAsJson(HTTP_RESULT, "body");

const HTTP_ERROR = { type: "object", required: ["error"], properties: { error: { type: "object", required: ["code", "message"], properties: { code: str, message: str } } } } as const;

/** What structuredContent of an openapi tool holds: the result, a dry run `{plan, plan_id}`, or `{error: {code, message}}`. */
export const HTTP_OUTPUT_SCHEMA = {
  type: "object",
  anyOf: [HTTP_TOOL_RESULT, { type: "object", required: ["plan", "plan_id"], properties: { plan: { type: "object" }, plan_id: str } }, HTTP_ERROR],
} as const;

/** The same for a tool that takes no `dry_run` (a read that needs no confirmation): it never answers a plan. */
export const HTTP_PLAIN_OUTPUT = { type: "object", anyOf: [HTTP_TOOL_RESULT, HTTP_ERROR] } as const;
