// JSON Schemas of what the transports answer: a verb's result, a dry run's plan, an error, an `hcp exec` response
// and an MCP tool's structuredContent. The one definition: tools/list's outputSchema and docs/schemas/ both come from here.

import { HTTP_OUTPUT_SCHEMA, HTTP_RESULT, onceAsJson } from "./http-output.js";

const str = { type: "string" } as const;
const bool = { type: "boolean" } as const;
const count = { type: "integer", minimum: 0 } as const;
const nullable = (type: string) => ({ type: [type, "null"] });

/** An object with these properties, all required but the `optional` ones; results may grow fields, so it stays open. */
export function object(properties: Record<string, unknown>, optional: readonly string[] = []): { type: "object"; required: string[]; [k: string]: unknown } {
  return { type: "object", required: Object.keys(properties).filter((k) => !optional.includes(k)), properties };
}

/**
 * `{code, message}`: a machine code of docs/reference/error-codes.md and a sentence for a person; an approval error
 * (approval_required…) also names its plan, `plan_id`.
 */
export const ERROR_OBJECT = object({ code: str, message: str, plan_id: str }, ["plan_id"]);

/** A failure as the transports answer it: `{error: {code, message}}`. */
export const ERROR_RESULT = object({ error: ERROR_OBJECT });

/** The §6.5 result of a program's run: how it ended, and its output (secrets masked, each stream capped). */
export const EXEC_RESULT = object(
  {
    pack: str,
    verb: nullable("string"),
    argv: { type: "array", items: str },
    exit_code: nullable("integer"),
    signal: nullable("string"),
    timed_out: bool,
    duration_ms: { type: "number", minimum: 0 },
    stdout: str,
    stderr: str,
    stdout_bytes: count,
    stderr_bytes: count,
    stdout_truncated: bool,
    stderr_truncated: bool,
    json: { description: "stdout parsed, when it is one JSON value (big integers keep their exact value)" },
  },
  ["json"],
);

const POLICY = object({ policy: { enum: ["read", "write"] }, confirm: { enum: [false, "person", "plan"] }, timeout_ms: count, max_output_bytes: count });

/** A program verb's plan: the argv as it would run, with its stdin, environment and folder. */
const PROGRAM_PLAN = object({ pack: str, verb: nullable("string"), argv: { type: "array", items: str }, policy: POLICY, stdin: nullable("string"), env: { type: "object", additionalProperties: str }, cwd: str });

/** A dry run: the plan as it would run, its id and when the id expires. */
const dryRun = (plan: unknown) => object({ plan, plan_id: str, expires_at: { type: "string", format: "date-time" } });

/** A dry run of any verb: a program's argv, or an openapi verb's request. */
export const DRY_RUN = dryRun({ anyOf: [PROGRAM_PLAN, object({ pack: str, verb: str, method: str, url: str, policy: POLICY })] });

/** The result as MCP's structuredContent carries it: stdout left out where `json` holds it (mcp.ts structuredOf). */
const RESULT_PART = { title: "result", ...onceAsJson(EXEC_RESULT, "stdout") };
const ERROR_PART = { title: "error", ...ERROR_RESULT };

/** MCP structuredContent of a program verb's tool: the result, a dry run, or an error (an openapi verb's: HTTP_OUTPUT_SCHEMA). */
export const TOOL_OUTPUT: { type: "object"; [k: string]: unknown } = { type: "object", anyOf: [RESULT_PART, { title: "dry run", ...dryRun(PROGRAM_PLAN) }, ERROR_PART] };

/**
 * The same for a tool that takes no `dry_run` (a read that needs no confirmation): it never answers a plan. A client
 * compiles each tool's outputSchema (the official SDK's, with Ajv), and the plan's part was most of that work.
 */
export const PLAIN_TOOL_OUTPUT: { type: "object"; [k: string]: unknown } = { type: "object", anyOf: [RESULT_PART, ERROR_PART] };

/** Any tool's structuredContent: a program verb's or an openapi verb's. */
export const STRUCTURED_CONTENT = { anyOf: [TOOL_OUTPUT, HTTP_OUTPUT_SCHEMA] };

const ID = { description: "The request's id as sent, any JSON value (null when it could not be read)" };

/** One `hcp exec` response line: `{id, ok: true, result}` (a run's result or a dry run) or `{id, ok: false, error}`. */
export const EXEC_RESPONSE = {
  anyOf: [
    { ...object({ id: ID, ok: { const: true }, result: { anyOf: [EXEC_RESULT, HTTP_RESULT, DRY_RUN] } }), additionalProperties: false },
    { ...object({ id: ID, ok: { const: false }, error: ERROR_OBJECT }), additionalProperties: false },
  ],
};

/** What a failing command prints on stderr under --json: the message, the exit code and (hcp) the machine code. */
export const CLI_ERROR = object({ error: str, exit_code: count, code: str, plan_id: str }, ["code", "plan_id"]);
