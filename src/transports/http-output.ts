// The MCP outputSchema of an openapi verb's tool: the §6.7 result, or a dry run's plan, or an error.

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

const HTTP_ERROR = { type: "object", required: ["error"], properties: { error: { type: "object", required: ["code", "message"], properties: { code: str, message: str } } } } as const;

/** What structuredContent of an openapi tool holds: the result, a dry run `{plan, plan_id}`, or `{error: {code, message}}`. */
export const HTTP_OUTPUT_SCHEMA = {
  type: "object",
  anyOf: [HTTP_RESULT, { type: "object", required: ["plan", "plan_id"], properties: { plan: { type: "object" }, plan_id: str } }, HTTP_ERROR],
} as const;

/** The same for a tool that takes no `dry_run` (a read that needs no confirmation): it never answers a plan. */
export const HTTP_PLAIN_OUTPUT = { type: "object", anyOf: [HTTP_RESULT, HTTP_ERROR] } as const;
