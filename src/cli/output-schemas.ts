// JSON Schemas of every --json output of hcp and rungrad (and of the transports' answers), one entry per schema:
// `npm run docs` writes each to docs/schemas/<name>.json, and the tests validate the programs' real outputs against them.

import { FIELD_DEPTH } from "../pack/argument-line.js";
import { POLICY_CLASSES } from "../pack/policy.js";
import { HTTP_RESULT } from "../transports/http-output.js";
import { CLI_ERROR, DRY_RUN, EXEC_RESPONSE, EXEC_RESULT, object, STRUCTURED_CONTENT } from "../transports/output-schemas.js";

export interface OutputSchema {
  /** The file name under docs/schemas/, without `.json`. */
  name: string;
  /** What prints it. */
  outputs: string;
  schema: Record<string, unknown>;
}

const str = { type: "string" } as const;
const bool = { type: "boolean" } as const;
const count = { type: "integer", minimum: 0 } as const;
const strings = { type: "array", items: str } as const;
const nullable = (type: string) => ({ type: [type, "null"] });
const arrayOf = (items: unknown) => ({ type: "array", items });
/** A fixed shape: a new field must be added here too, or the schema test fails. */
const closed = (properties: Record<string, unknown>, optional: readonly string[] = []) => ({ ...object(properties, optional), additionalProperties: false });

/** An argument of `hcp describe`, with its fields (an object's properties) down to FIELD_DEPTH levels. */
const argument = (depth: number): Record<string, unknown> =>
  closed(
    { name: str, type: str, required: bool, description: str, enum: { type: "array" }, not: { type: "array" }, first_not: { type: "array" }, not_said: str, default: {}, secret: { const: true }, ...(depth < FIELD_DEPTH ? { fields: arrayOf(argument(depth + 1)) } : {}) },
    ["description", "enum", "not", "first_not", "not_said", "default", "secret", "fields"],
  );

const POLICY_LEVEL = { enum: ["read", "write", "deny"] };
const ISSUE = closed({ severity: { enum: ["error", "warning"] }, code: str, path: str, message: str, file: str });

/** The derived HarnessPackMeta (§3.6). */
const PACK_META = {
  ...object(
    {
      hcp: { const: 1 },
      pack_id: str,
      adapter_kind: { enum: ["wrap", "openapi", "composite"] },
      binding: { type: "object" },
      wrap: { type: "object" },
      openapi: { type: "object" },
      pass_through: { type: "object" },
      plane: str,
      transports: strings,
      skill_url: str,
    },
    ["binding", "wrap", "openapi", "pass_through", "plane", "transports", "skill_url"],
  ),
  additionalProperties: false,
};

const FLAG = closed({ name: str, shorthand: str, usage: str, default: str, type: str, required: bool });
const COMMAND_FIELDS = {
  path: strings,
  use: str,
  short: str,
  examples: strings,
  related: strings,
  output_modes: strings,
  requires_auth: bool,
  mutates: bool,
  supports_dry_run: bool,
  destructive: bool,
  requires_confirmation: bool,
  supports_meta: bool,
  local_flags: arrayOf(FLAG),
  extensions: { type: "object" },
};
const DOCUMENT_HEAD = { schema_version: str, spec_version: str, tool_name: str, tool_version: str, global_flags: arrayOf(FLAG) };

const orNull = (schema: unknown) => ({ anyOf: [{ type: "null" }, schema] });
const nullLists = (names: readonly (keyof typeof COMMAND_FIELDS)[]) => Object.fromEntries(names.map((n) => [n, orNull(COMMAND_FIELDS[n])]));

const CREDENTIAL = (more: Record<string, unknown>, optional: readonly string[] = []) => closed({ family: str, name: str, where: str, ...more }, optional);

/** A trust record (hcp trust): the pack's real folder and the digests of what it runs. */
const TRUST_RECORD = {
  root: str,
  id: str,
  surface_sha256: str,
  policy_sha256: nullable("string"),
  document_sha256: nullable("string"),
  tree_sha256: str,
  files: { type: "object", additionalProperties: str },
  programs: { type: "object", additionalProperties: nullable("string") },
  verbs: { type: "object", additionalProperties: { enum: POLICY_CLASSES } },
  trusted_at: str,
};

export const OUTPUT_SCHEMAS: readonly OutputSchema[] = [
  { name: "error", outputs: "any failing command under --json, on standard error", schema: CLI_ERROR },
  { name: "hcp-run", outputs: "`hcp run --json`: a program verb's result, an openapi verb's result, or (with --dry-run) the plan", schema: { anyOf: [EXEC_RESULT, HTTP_RESULT, DRY_RUN] } },
  { name: "hcp-exec-response", outputs: "each line `hcp exec` writes", schema: EXEC_RESPONSE },
  { name: "mcp-structured-content", outputs: "an MCP tool result's structuredContent (each tool's outputSchema is the part for its kind of verb)", schema: STRUCTURED_CONTENT },
  {
    name: "hcp-list",
    outputs: "`hcp list --json`",
    schema: closed({
      packs: arrayOf(
        closed({
          pack_id: str,
          root: str,
          kind: str,
          plane: str,
          binding_mode: nullable("string"),
          binding_hub: nullable("string"),
          binding_family: nullable("string"),
          transports: strings,
          verbs: arrayOf(closed({ verb: str, description: nullable("string"), policy: POLICY_LEVEL, confirm: { enum: [false, "person", "plan"] }, timeout_ms: count, max_output_bytes: count, source: str, runnable: bool })),
          pass_through: { anyOf: [{ type: "null" }, closed({ policy: str, allowedSubcommands: strings, maxArgv: count })] },
        }),
      ),
    }),
  },
  {
    name: "hcp-describe",
    outputs: "`hcp describe --json`",
    schema: closed({
      pack: str,
      name: str,
      verbs: arrayOf(
        closed({
          verb: str,
          tool: str,
          description: nullable("string"),
          policy: POLICY_LEVEL,
          approval: { enum: ["person", "plan", "none"] },
          argv_template: { anyOf: [{ type: "null" }, strings] },
          arguments: arrayOf(argument(1)),
        }),
      ),
    }),
  },
  {
    name: "hcp-validate",
    outputs: "`hcp validate --json`",
    schema: closed({ packs: arrayOf(closed({ path: str, ok: bool, pack_id: nullable("string"), issues: arrayOf(ISSUE), meta: { anyOf: [{ type: "null" }, PACK_META] } })) }),
  },
  { name: "hcp-meta", outputs: "`hcp meta` (always JSON)", schema: PACK_META },
  { name: "hcp-skill", outputs: "`hcp skill --json`", schema: closed({ pack_id: str, harness: str }) },
  { name: "hcp-init", outputs: "`hcp init --json`", schema: closed({ dry_run: bool, out: str, pack_id: str, files: strings, notes: strings }) },
  {
    name: "hcp-trust",
    outputs: "`hcp trust --list --json` (the trusted packs, and whether each still matches), `hcp trust PACK --json` (the person's answer), `hcp trust --revoke PACK --json`",
    schema: {
      anyOf: [
        closed({ packs: arrayOf(closed({ ...TRUST_RECORD, matches: bool, why: str }, ["why", "verbs"])), ignored_store: str }, ["ignored_store"]),
        closed({ ...TRUST_RECORD, trusted: { const: true } }, ["verbs"]),
        closed({ root: str, trusted: { const: false } }),
      ],
    },
  },
  {
    name: "hcp-mcp-config",
    outputs: "`hcp mcp-config --json`: a server the client starts (packs), or one it reaches over HTTP (`--url`)",
    schema: {
      anyOf: [
        closed({ client: str, name: str, command: str, args: strings, env: { type: "object", additionalProperties: str }, config: str }, ["env"]),
        closed({ client: str, name: str, url: str, token_env: str, config: str }, ["token_env"]),
      ],
    },
  },
  {
    name: "hcp-approve",
    outputs: "`hcp approve --list --json` (the pending plans), `hcp approve PLAN_ID --json` (the person's answer)",
    schema: {
      anyOf: [
        closed({ pending: arrayOf(closed({ plan_id: str, expires_at: str, subject: str, plan: { type: "object" }, stdin_preview: str, stdin_more_bytes: { type: "integer" } }, ["stdin_preview", "stdin_more_bytes"])) }),
        closed({ plan_id: str, approved: bool, expires_at: str }, ["expires_at"]),
      ],
    },
  },
  {
    name: "hcp-audit",
    outputs: "`hcp audit --json`; each entry is also one line of the audit log",
    schema: closed({
      log: str,
      entries: arrayOf(
        closed(
          {
            time: str,
            transport: { enum: ["cli", "json_exec", "mcp", "approve"] },
            pack: str,
            verb: nullable("string"),
            plan_id: nullable("string"),
            argv: strings,
            decision: { enum: ["refused", "dry_run", "approved", "declined", "ran", "failed"] },
            by: nullable("string"),
            exit_code: nullable("integer"),
            duration_ms: { type: ["number", "null"] },
            reason: str,
            client_address: str,
          },
          ["reason", "client_address"],
        ),
      ),
    }),
  },
  {
    name: "hcp-credentials",
    outputs: "`hcp credentials set|get|delete --json` (with --dry-run, what would change)",
    schema: { anyOf: [CREDENTIAL({ dry_run: { const: true } }), CREDENTIAL({ value: str }, ["value"]), CREDENTIAL({ deleted: { const: true } })] },
  },
  {
    name: "rungrad-manifest-validate",
    outputs: "`rungrad manifest validate --json`",
    schema: closed({ valid: { const: true }, schema_version: str, tool_name: str, tool_version: str, command_count: count }),
  },
  {
    name: "rungrad-manifest",
    outputs: "`rungrad manifest fmt` and a program's `__rungrad_manifest`: a rungrad-manifest/1 document",
    // Go writes an empty list as null: a manifest read from another program may hold null lists.
    schema: closed({
      ...DOCUMENT_HEAD,
      global_flags: orNull(arrayOf(FLAG)),
      commands: orNull(arrayOf(closed({ ...COMMAND_FIELDS, ...nullLists(["path", "examples", "related", "output_modes", "local_flags"]) }, ["extensions"]))),
    }),
  },
  {
    name: "rungrad-agentmeta",
    outputs: "`rungrad agentmeta`: a rungrad-agentmeta/1 document",
    schema: closed({
      ...DOCUMENT_HEAD,
      commands: arrayOf(
        closed(
          {
            ...COMMAND_FIELDS,
            required_local_flags: arrayOf(FLAG),
            is_root: bool,
            has_children: bool,
            command_template: str,
            usage_template: str,
            machine_usage_template: str,
            dry_run_usage_template: str,
            confirmation_note: str,
          },
          ["extensions"],
        ),
      ),
    }),
  },
  { name: "rungrad-skill", outputs: "`rungrad skill --json`", schema: closed({ dry_run: bool, files: arrayOf(closed({ path: str, action: { enum: ["create", "overwrite", "unchanged"] } })) }) },
  { name: "rungrad-new", outputs: "`rungrad new --json` (with --dry-run, the files it would write)", schema: { anyOf: [closed({ created: str }), closed({ dir: str, files: strings })] } },
  {
    name: "rungrad-score",
    outputs: "`rungrad score --json`",
    schema: closed({
      spec_version: str,
      overall: { type: "number", minimum: 0, maximum: 1 },
      passed: count,
      applicable: count,
      total: count,
      manifest: closed({ status: str, schema_version: str, tool_name: str, tool_version: str, command_count: count, reason: str, used_rule_count: count, used_rules: strings }),
      sections: arrayOf(closed({ section: str, passed: count, applicable: count, score: { type: "number", minimum: 0, maximum: 1 } })),
      rules: arrayOf(closed({ id: str, section: str, severity: str, result: { enum: ["pass", "fail", "not_applicable"] }, reason: str })),
    }),
  },
];
