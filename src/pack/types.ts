// Public model of an HCP/1.1 harness pack: issues, the normalised surface, meta, policy and a loaded pack.

export type Severity = "error" | "warning";

export type IssueCode =
  | "invalid_meta"
  | "missing_verb"
  | "binding"
  | "wrap"
  | "unknown_field"
  | "deprecated"
  | "not_conforming"
  | "policy"
  | "io";

/** The pack file an issue concerns, relative to the pack root. */
export type PackFile = "surface.json" | "policy.json" | "HARNESS.md";

/**
 * One validation finding. Text form: `<file>: <path>: <code>: <message>`, no path for the whole document (see formatIssue).
 * `path` is a JSON path (`id`, `binding.mode`, `verbs["setup.status"].cli[0]`) or "" for the whole document.
 */
export interface Issue {
  severity: Severity;
  code: IssueCode;
  path: string;
  message: string;
  file: PackFile;
}

export type AdapterKind = "composite" | "wrap" | "openapi" | "sense_only";
export type Plane = "runtime" | "control";
export type Transport = "cli" | "json_exec" | "mcp";
export type BindingMode = "user" | "mothership" | "local" | "public" | "mock";
export type BindingHub = "keyring" | "local-credential" | "public" | "none";

export interface HarnessBinding {
  mode?: BindingMode;
  hub?: BindingHub;
  family?: string;
  connect_provider_id?: string;
}

export interface HarnessWrapTarget {
  bin: string;
  argv_template?: string[];
  agent_env?: Record<string, string>;
}

export interface HarnessOpenApiRef {
  url?: string;
  path?: string;
}

export interface HarnessPassThrough {
  allowedSubcommands: string[];
  maxArgv: number;
}

/** A JSON Schema (draft 2020-12) object, as written in surface.json. */
export type JsonSchema = Record<string, unknown>;

export type VerbPolicyHint = "read" | "write";

/** One command entry of `verbs` (§3.4). */
export interface SurfaceVerb {
  description?: string;
  cli?: string[];
  args?: JsonSchema;
  policy?: VerbPolicyHint;
}

export interface StimulusTrigger {
  ref: string;
}

/**
 * surface.json after validation and normalisation: `adapter_kind` folded into `kind`
 * (default composite), `plane` defaulted to runtime, a control-plane binding given mode
 * mothership when it has none, unknown top-level fields dropped. `transports` absent means all three.
 */
export interface Surface {
  id: string;
  name?: string;
  cliBin?: string;
  kind: AdapterKind;
  plane: Plane;
  transports?: Transport[];
  binding?: HarnessBinding;
  wrap?: HarnessWrapTarget;
  openapi?: HarnessOpenApiRef;
  pass_through?: HarnessPassThrough;
  verbs: Record<string, SurfaceVerb>;
  stimulusTriggers: StimulusTrigger[];
  skill_url?: string;
  /** Inline Skill text (deprecated; HARNESS.md wins). */
  harness?: string;
}

/** §3.6 protocol metadata; key order is the wire order. */
export interface HarnessPackMeta {
  hcp: 1;
  pack_id: string;
  adapter_kind: AdapterKind;
  binding?: HarnessBinding;
  wrap?: HarnessWrapTarget;
  openapi?: HarnessOpenApiRef;
  pass_through?: HarnessPassThrough;
  plane?: Plane;
  transports?: Transport[];
  skill_url?: string;
}

export type PolicyLevel = "read" | "write" | "deny";

/**
 * What confirming a verb takes (§4, §7): `true` and "person", a person's approval of the exact plan;
 * "plan", restating the plan_id of a dry run (an intent check); `false`, nothing.
 */
export type ConfirmSetting = boolean | "person" | "plan";

/** A confirm setting as the runtime uses it: who must confirm, or false. */
export type ConfirmMode = "person" | "plan" | false;

export interface PolicyVerbEntry {
  policy: PolicyLevel;
  confirm?: ConfirmSetting;
  timeout_ms?: number;
  max_output_bytes?: number;
  /** Running it twice does no more than running it once (MCP idempotentHint). */
  idempotent?: boolean;
}

export interface PolicyLimits {
  timeout_ms?: number;
  max_output_bytes?: number;
  /** Children of this pack at once per server. */
  concurrency?: number;
  /** How long a plan_id stays valid, in seconds (§7). */
  approval_ttl_s?: number;
}

/** policy.json (hcp.md §4), validated strictly. */
export interface PolicyDocument {
  surface_id: string;
  default?: PolicyLevel;
  verbs?: Record<string, PolicyLevel | PolicyVerbEntry>;
  pass_through?: PolicyLevel;
  limits?: PolicyLimits;
  env?: string[];
  /** The child's working folder (§4): relative to the pack root, or absolute; absent, the runtime's own. */
  cwd?: string;
  /** openapi packs (§6.7): the base URL requests go to, instead of the document's first server. */
  openapi?: { base_url?: string };
  /** The variable or security-scheme names a keyring binding reads (§9). */
  credentials?: string[];
}

/** Where an effective policy level came from: a policy.json entry, its `default`, the verb's hint, or the fail-safe. */
export type PolicySource = "policy" | "default" | "hint" | "fallback";

export interface EffectivePolicy {
  policy: PolicyLevel;
  confirm: ConfirmMode;
  timeout_ms: number;
  max_output_bytes: number;
  approval_ttl_s: number;
  source: PolicySource;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 1_048_576;
/**
 * What the policy.json of a pack hcp init makes keeps of each stream: about what an MCP client takes in one answer
 * (Claude Code refuses one past 25,000 tokens, and gives the model structuredContent, which holds the output too). A
 * longer output is cut, with a note saying so, rather than the whole answer refused; a person raises it in policy.json.
 */
export const GENERATED_MAX_OUTPUT_BYTES = 65_536;
export const DEFAULT_CONCURRENCY = 8;
export const DEFAULT_APPROVAL_TTL_S = 900;

/** HARNESS.md frontmatter: `name` and `description` plus whatever else it carries. */
export interface HarnessFrontmatter {
  name: string;
  description: string;
  [key: string]: unknown;
}

export interface PackHarness {
  frontmatter: HarnessFrontmatter | null;
  body: string;
  /** "HARNESS.md", or "inline" for the deprecated surface.json `harness` text (frontmatter null). */
  source: "HARNESS.md" | "inline";
}

export interface LoadedPack {
  /** Absolute pack root. */
  root: string;
  /** Absolute path of surface.json. */
  surfacePath: string;
  /** Null when surface.json is unreadable or has any error. */
  surface: Surface | null;
  /** Derived HarnessPackMeta; null exactly when surface is. */
  meta: HarnessPackMeta | null;
  /** Null when policy.json is absent or has any error. */
  policy: PolicyDocument | null;
  /** SHA-256 (hex) of the bytes of surface.json and policy.json as loaded (computed when first read); null when the file was not read. */
  sha256?: { readonly surface: string | null; readonly policy: string | null };
  harness: PackHarness | null;
  /** Every issue of every file, in file order surface.json, policy.json, HARNESS.md. */
  issues: Issue[];
  /** True when no issue is an error. */
  ok: boolean;
}
