// A harness pack (surface.json, policy.json, HARNESS.md) generated from a rungrad-agentmeta/1 document (hcp.md §10). Pure.

import type { AgentCommand, AgentFlag, AgentMetaDocument } from "../agentmeta/types.js";
import { addTo, firstAndMore } from "../listing.js";
import { isVerbKey } from "./fields.js";
import { renderPackHarness } from "./harness-render.js";
import { MCP_CONTROL_ARGUMENTS, cutToolNames, mcpToolProblems } from "./mcp-names.js";
import { packToolsNote } from "./mcp-weight.js";
import { isPlaceholderName } from "./placeholders.js";
import { COUNT_OR_TEXT } from "./cobra-help.js";
import { GENERATED_MAX_OUTPUT_BYTES, type JsonSchema, type PolicyDocument, type PolicyVerbEntry, type SurfaceVerb } from "./types.js";
import { PACK_POLICY_NAMESPACE, packPolicyOf } from "./person-gate.js";
import { namedSecret } from "./secret-arguments.js";
import { fileChoices, refusingChoices } from "./file-flags.js";
import { REMOTE_OPTIONS, namesRemotes } from "./remote-operands.js";

/** surface.json as written: the Surface fields a generator sets (no defaults filled in). */
export interface SurfaceDocument {
  id: string;
  name: string;
  cliBin: string;
  kind: "wrap";
  binding: { mode: "user"; hub: "none" } | { mode: "user"; hub: "local-credential"; family: string };
  wrap: { bin: string };
  verbs: Record<string, SurfaceVerb>;
}

export interface GeneratedPack {
  surface: SurfaceDocument;
  policy: PolicyDocument;
  /** HARNESS.md's text for a policy: the generated one, or the person's (hcp init --keep-policy). */
  harness: (policy: PolicyDocument) => string;
  /** What the generator changed or left out (renamed segments, skipped commands), one line each. */
  notes: string[];
}

export interface FromAgentMetaOptions {
  /** The executable, as wrap.bin (a `.`-prefixed path resolves against the pack root). */
  bin: string;
  /**
   * The variable holding the CLI's credential when a command requires auth; default `<TOOL>_TOKEN`. For a foreign CLI
   * (which says nothing of its credentials: restic's RESTIC_PASSWORD), every verb is given it from the credential file.
   */
  credentialEnv?: string;
  /** The pack id; default the tool name in id form (packIdOf). */
  id?: string;
  /**
   * A CLI not built on rungrad (hcp init --from-cobra): its `--json`, `--dry-run` and `--confirm` are flags of its own,
   * arguments like any other; and since it does not say which of its commands are destructive, every write verb needs
   * a person's approval.
   */
  foreign?: boolean;
}

/** rungrad's flags that the pack renders itself (literal tokens) or that belong to hcp's runtime, never agent arguments. */
const RUNTIME_FLAGS = new Set(["json", "no-prompt", "dry-run", "confirm"]);
const CANONICAL = ["--json", "--no-prompt"];

/** One verb to write, before its key is checked. */
interface VerbDraft {
  key: string;
  verb: SurfaceVerb;
  confirm: boolean;
}

/** Builds a pack for the wrapped CLI. The result validates with no error for any valid agentmeta document. */
export function packFromAgentMeta(doc: AgentMetaDocument, options: FromAgentMetaOptions): GeneratedPack {
  const notes: string[] = [];
  const toolId = packIdOf(doc.tool_name);
  const id = options.id ?? toolId;
  const cliBin = doc.tool_name;
  const runnable = doc.commands.filter((c) => !c.is_root && runsOnItsOwn(c));
  const root = doc.commands.find((c) => c.is_root);
  // The root is a verb when it runs on its own with operands or effects, or when it is all there is.
  if (root !== undefined && (runnable.length === 0 || operandsOf(root).length > 0 || root.mutates)) runnable.unshift(root);

  const verbs: Record<string, SurfaceVerb> = {};
  const policyVerbs: Record<string, PolicyVerbEntry | "read" | "write"> = {};
  const authVerbs: string[] = [];
  /** The verb of each command that has one, by its path. */
  const verbOf = new Map<string, string>();
  const refusals: Refusals = new Map();
  for (const c of runnable) {
    const key = verbKeyOf(c, toolId, notes);
    if (key === null) continue;
    for (const draft of draftsOf(c, childrenOf(doc, c), cliBin, key, notes, options.foreign === true, refusals)) {
      if (Object.hasOwn(verbs, draft.key)) {
        notes.push(`skipped command "${c.path.join(" ")}": verb key "${draft.key}" is already taken`);
        continue;
      }
      verbs[draft.key] = draft.verb;
      policyVerbs[draft.key] = draft.confirm ? { policy: "write", confirm: true } : draft.verb.policy!;
      // A CLI that says nothing of its credentials (cobra's) reads the one --credential-env names in every command.
      if (c.requires_auth || (options.foreign === true && options.credentialEnv !== undefined)) authVerbs.push(draft.key);
      if (draft.key === key) verbOf.set(c.path.join(" "), key);
    }
  }
  if (options.foreign === true) namingSubverbs(doc, verbs, verbOf);
  for (const [said, reads] of refusals) {
    const paths = reads.map((r) => r.path);
    const on = paths.length === 1 ? `on its read verb "${paths[0]}"` : `on the read verbs ${firstAndMore(paths.map((p) => `"${p}"`), 3)}`;
    notes.push(`${said} ${on}: ${reads[0]!.why}, and a read runs without a person`);
  }

  const auth = authVerbs.length > 0;
  const family = doc.tool_name.slice(0, 128);
  const credential = options.credentialEnv ?? tokenVariable(doc.tool_name);
  const surface: SurfaceDocument = {
    id,
    name: doc.tool_name,
    cliBin,
    kind: "wrap",
    binding: auth ? { mode: "user", hub: "local-credential", family } : { mode: "user", hub: "none" },
    wrap: { bin: options.bin },
    verbs,
  };
  const policy: PolicyDocument = { surface_id: id, default: "deny", verbs: policyVerbs, limits: { max_output_bytes: GENERATED_MAX_OUTPUT_BYTES } };
  if (auth) policy.credentials = [credential];
  if (root !== undefined) {
    const asked = packPolicyOf(root.extensions);
    if (asked.env.length > 0) policy.env = asked.env;
    for (const why of asked.ignored) notes.push(`root command "${root.path.join(" ")}": ${why}`);
  }
  notes.push(...secretArguments(verbs), ...mcpToolProblems(id, verbs), ...cutToolNames(id, Object.keys(verbs)), ...packToolsNote(surface, policy));
  const harness = (inForce: PolicyDocument) =>
    renderPackHarness({
      surface,
      policy: inForce,
      summary: root?.short ?? "",
      credentials: auth ? { family, variables: [credential], verbs: authVerbs } : undefined,
    });
  return { surface, policy, harness, notes };
}

/**
 * The arguments marked secret by their flags' names (namedSecret), said to the person who makes the pack: a value the
 * agent gives one is `***` in every output, in the plans the person approves too.
 */
function secretArguments(verbs: Readonly<Record<string, SurfaceVerb>>): string[] {
  const marked = Object.entries(verbs).flatMap(([key, v]) => Object.entries((v.args?.["properties"] ?? {}) as Record<string, JsonSchema>).flatMap(([name, schema]) => (schema.writeOnly === true ? [`${key} ${name}`] : [])));
  if (marked.length === 0) return [];
  return [`${marked.length} ${marked.length === 1 ? "argument takes" : "arguments take"} a secret by ${marked.length === 1 ? "its flag's name" : "their flags' names"} (${firstAndMore(marked, 5)}): masked as *** in every output, in the plans you approve too; hcp describe marks them. The CLI gets ${marked.length === 1 ? "it" : "each"} on its command line, which other users of this machine can read while it runs (ps)`];
}

/**
 * A group's verb names the verbs of its subcommands (kubectl `auth`: `auth.can-i`, `auth.whoami`, …): run alone, a
 * group of a CLI not built on rungrad may only print its help, which the agent would have a person approve for nothing.
 */
function namingSubverbs(doc: AgentMetaDocument, verbs: Record<string, SurfaceVerb>, verbOf: ReadonlyMap<string, string>): void {
  for (const c of doc.commands) {
    const key = verbOf.get(c.path.join(" "));
    if (key === undefined || !c.has_children) continue;
    const subverbs = childrenOf(doc, c).flatMap((name) => verbOf.get([...c.path, name].join(" ")) ?? []);
    if (subverbs.length === 0) continue;
    const verb = verbs[key]!;
    verbs[key] = { ...verb, description: `${verb.description!.replace(/[.\s]+$/, "")}; its subcommands are verbs of their own: ${firstAndMore(subverbs, 5)}` };
  }
}

/** `<TOOL>_TOKEN`, rungrad's credential variable convention (the framework's toolEnvVar(name, "TOKEN")). */
function tokenVariable(toolName: string): string {
  const base = toolName.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  const name = base === "" ? "TOKEN" : `${base}_TOKEN`;
  return isPlaceholderName(name) ? name : `_${name}`;
}

/**
 * A leaf runs; a command with children runs on its own when its usage has operands, it mutates,
 * or it declares output modes of its own (a pure group declares none).
 */
function runsOnItsOwn(c: AgentCommand): boolean {
  return !c.has_children || operandsOf(c).length > 0 || c.mutates || c.output_modes.length > 0;
}

/** The tool name as a pack_id: lower-cased, other characters as `-`, at most 128 characters. */
export function packIdOf(toolName: string): string {
  const id = toolName.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[^a-z0-9]+/, "").slice(0, 128);
  return id === "" ? "pack" : id;
}

/** A command's verb key; the root's is the tool's id (`toolId`), whatever the pack's id. */
function verbKeyOf(c: AgentCommand, toolId: string, notes: string[]): string | null {
  if (c.path.length === 0) return toolId.replace(/[^a-z0-9_-]+/g, "-");
  const segments = c.path.map((s) => s.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[^a-z0-9]+/, ""));
  const key = segments.join(".");
  if (segments.some((s) => s === "") || !isVerbKey(key)) {
    notes.push(`skipped command "${c.path.join(" ")}": no verb key fits ^[a-z0-9][a-z0-9_-]*(\\.[a-z0-9][a-z0-9_-]*)*$`);
    return null;
  }
  if (key !== c.path.join(".")) notes.push(`command "${c.path.join(" ")}" is verb "${key}"`);
  return key;
}

/** The names of a command's subcommands, and `help`, which a command with subcommands also answers to. */
function childrenOf(doc: AgentMetaDocument, c: AgentCommand): string[] {
  if (!c.has_children) return [];
  const names = doc.commands.filter((o) => o.path.length === c.path.length + 1 && c.path.every((s, i) => o.path[i] === s)).map((o) => o.path.at(-1)!);
  return [...new Set([...names, "help"])];
}

/**
 * What a read refuses that a write would take, as hcp init says it (`flag --output refuses jsonpath-file`): each read
 * that refuses it, by its path, with why.
 */
type Refusals = Map<string, { why: string; path: string }[]>;

/** The verbs of one command: one, or two for rungrad's self-update (`update.check` reads, `update` writes). */
function draftsOf(c: AgentCommand, children: readonly string[], cliBin: string, key: string, notes: string[], foreign: boolean, refusals: Refusals): VerbDraft[] {
  const asked = packPolicyOf(c.extensions);
  if (!c.is_root && (asked.env.length > 0 || asked.ignored.length > 0)) notes.push(`command "${c.path.join(" ")}": "${PACK_POLICY_NAMESPACE}" env left out: it is read on the root command only`);
  const confirm = c.destructive || c.requires_confirmation || asked.confirm || (foreign && (c.mutates || asked.write));
  const runtime: ReadonlySet<string> = foreign ? new Set() : RUNTIME_FLAGS;
  const operandNote = foreign ? FOREIGN_OPERANDS : undefined;
  const check = c.path.length === 1 && c.path[0] === "update" ? c.local_flags.find((f) => f.name === "check" && f.type === "bool") : undefined;
  const description = c.short.trim() === "" ? `Runs \`${c.command_template}\`` : c.short;
  if (check === undefined) {
    const writes = c.mutates || confirm || asked.write;
    const { cli, args } = commandLine(c, children, cliBin, notes, { skip: runtime, operandNote, refusals: foreign && !writes ? refusals : undefined });
    return [{ key, confirm, verb: { description, cli, args, policy: writes ? "write" : "read" } }];
  }
  const skip = new Set([...runtime, check.name]);
  const read = commandLine(c, children, cliBin, notes, { skip, fixed: ["--check"], operandNote });
  const write = commandLine(c, children, cliBin, notes, { skip, operandNote });
  const checkDescription = check.usage.trim() === "" ? `Checks for an update of ${cliBin} without installing it` : check.usage;
  return [
    { key: `${key}.check`, confirm: false, verb: { description: checkDescription, cli: read.cli, args: read.args, policy: "read" } },
    { key, confirm, verb: { description, cli: write.cli, args: write.args, policy: "write" } },
  ];
}

/**
 * A foreign CLI's usage line mixes operands with flags (`kubectl apply (-f FILENAME | -k DIRECTORY)`), and the
 * verb's description quotes it: its operands' schemas say that a flag has an argument of its own.
 */
const FOREIGN_OPERANDS = "The operands the description names, passed after -- so that none is read as a flag: give a flag it shows (such as -f FILENAME) by its own argument, not here";

/** Names a generated argument does not take: `{{verb}}` belongs to wrap.argv_template, the others to MCP tools. */
const TAKEN_NAMES: ReadonlySet<string> = new Set(["verb", ...MCP_CONTROL_ARGUMENTS]);

/** A placeholder name: `-` and other characters as `_`, a leading digit or a reserved or taken name prefixed with `_`. */
export function placeholderName(s: string): string {
  let n = s.replace(/[^A-Za-z0-9_]/g, "_");
  if (!isPlaceholderName(n) || TAKEN_NAMES.has(n)) n = `_${n}`;
  return n;
}

/** One operand of a usage line: `<x>` required, `[x]` optional, `x...` an array, `a|b|c` a choice. */
interface Operand {
  /** The usage token's index among the template tokens after the program. */
  index: number;
  raw: string;
  required: boolean;
  variadic: boolean;
  choices?: string[];
}

const OPERAND = /^(<([^<>[\]]+?)(\.\.\.)?>|\[([^<>[\]]+?)(\.\.\.)?\])(\.\.\.)?$/;

/** The tokens of the usage template after the program name; an optional group of several words (`[-- args...]`) is one. */
function usageTokens(c: AgentCommand): string[] {
  const out: string[] = [];
  let group: string[] | undefined;
  for (const tok of c.usage_template.split(/\s+/).filter((t) => t !== "").slice(1)) {
    if (group === undefined && tok.startsWith("[") && !tok.includes("]")) group = [tok];
    else if (group !== undefined) group.push(tok);
    else out.push(tok);
    if (group !== undefined && tok.includes("]")) {
      out.push(group.join(" "));
      group = undefined;
    }
  }
  if (group !== undefined) out.push(...group);
  return out;
}

function operandsOf(c: AgentCommand): Operand[] {
  const out: Operand[] = [];
  usageTokens(c).forEach((tok, index) => {
    const m = OPERAND.exec(tok);
    if (m === null) return;
    const raw = m[2] ?? m[4]!;
    // `[flags]`, and an optional group of words (`[-- subcommand...]`): not one argument, left out.
    if (m[4] !== undefined && (/^(flags|options)$/i.test(raw) || /\s/.test(raw))) return;
    const choices = raw.includes("|") ? raw.split("|").filter((s) => s !== "") : undefined;
    out.push({ index, raw, required: m[2] !== undefined, variadic: m[3] !== undefined || m[5] !== undefined || m[6] !== undefined, choices });
  });
  return out;
}

/**
 * The operands with an optional one before a required one made required: dropping it would shift
 * the required one into its place (hcp validate refuses such a template, §6.2).
 */
function positional(c: AgentCommand, notes: string[]): Operand[] {
  const ops = operandsOf(c);
  const lastRequired = ops.findLastIndex((op) => op.required);
  return ops.map((op, i) => {
    if (op.required || i > lastRequired) return op;
    notes.push(`operand [${op.raw}] of "${c.path.join(" ")}" is required: a required operand follows it`);
    return { ...op, required: true };
  });
}

/** The schema of an operand: a string (or one of the choices), an array of them when variadic. */
function operandSchema(op: Operand): JsonSchema {
  const item: JsonSchema = op.choices !== undefined ? { type: "string", enum: op.choices } : { type: "string" };
  if (!op.variadic) return item;
  return { type: "array", items: item, ...(op.required ? { minItems: 1 } : {}) };
}

/**
 * The verb's argv template and args schema. Flags come first, then `--`, then the operands: a value starting with
 * `-` is then an operand, never a flag (and hcp accepts it: §6.2). On a command with subcommands the first operand
 * may not name one: earlier builds of this framework (commander) dispatched on it even after `--`, running that
 * subcommand instead, and a CLI built with one, or on another parser, may still (cobra and this framework stop at `--`).
 * `how`: the flags left out, words put after the command (`--check`), a description for every operand's schema, and,
 * for a foreign CLI's read, where to record the listed choices of a flag it refuses as they open a file (kubectl's
 * `-o jsonpath-file=PATH`).
 */
function commandLine(
  c: AgentCommand,
  children: readonly string[],
  cliBin: string,
  notes: string[],
  how: { skip: ReadonlySet<string>; fixed?: readonly string[]; operandNote?: string | undefined; refusals?: Refusals | undefined },
): { cli: string[]; args: JsonSchema } {
  const cli = [cliBin];
  /** The usage template's tokens from the first operand on, after the flags and `--`. */
  const tail: string[] = [];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  /** A free argument name: the wanted one, else with `_2`, `_3`… */
  const free = (wanted: string): string => {
    let name = wanted;
    for (let n = 2; Object.hasOwn(properties, name); n++) name = `${wanted}_${n}`;
    return name;
  };
  const operands = new Map(positional(c, notes).map((op) => [op.index, op]));
  usageTokens(c).forEach((tok, index) => {
    const op = operands.get(index);
    if (op === undefined) {
      if (!OPERAND.test(tok)) (tail.length === 0 ? cli : tail).push(tok); // `[flags]` is dropped, other words are literal
      return;
    }
    // A choice is named after the command (`completion [bash|zsh|fish]` takes `completion`).
    const name = free(placeholderName(op.choices !== undefined ? (c.path.at(-1) ?? cliBin) : op.raw));
    const first = tail.length === 0;
    tail.push(`{{${name}}}`);
    const operand = how.refusals === undefined ? operandSchema(op) : refusingRemoteOptions(operandSchema(op), c, how.refusals);
    const schema = first && children.length > 0 ? notASubcommand(operand, children) : operand;
    properties[name] = how.operandNote === undefined ? schema : { ...schema, description: how.operandNote };
    if (op.required) required.push(name);
  });
  cli.push(...(how.fixed ?? []));
  const extra = [c.machine_usage_template, c.dry_run_usage_template].flatMap((t) => t.split(/\s+/));
  for (const flag of CANONICAL) if (extra.includes(flag)) cli.push(flag);
  if (c.destructive || c.requires_confirmation) cli.push("--confirm");

  for (const f of c.local_flags) {
    if (how.skip.has(f.name)) continue;
    const wanted = placeholderName(f.name);
    const name = Object.hasOwn(properties, wanted) ? free(`flag_${wanted}`) : wanted;
    if (name !== wanted) notes.push(`flag --${f.name} of "${c.path.join(" ")}" is argument "${name}"`);
    cli.push(`--${f.name}={{${name}}}`);
    const schema = ownFlagOfControl(flagSchema(f, c.path), f);
    properties[name] = how.refusals === undefined ? schema : refusingFileChoices(schema, f, c.path, how.refusals);
    if (f.required) required.push(name);
  }
  if (tail.length > 0) cli.push("--", ...tail);
  const args: JsonSchema = { type: "object", properties };
  if (required.length > 0) args.required = required;
  args.additionalProperties = false;
  return { cli, args };
}

/** What hcp's own arguments of a gated tool do, for the description of a CLI's flag of the same name. */
const CONTROL_SAID: Readonly<Record<string, string>> = { dry_run: "which runs nothing and shows the plan", confirm: "which takes a plan_id" };

/**
 * A CLI's flag named as one of hcp's own arguments (rclone's and restic's `--dry-run`, beside hcp's `dry_run`): its
 * description says which it is, since the agent meets both (`_dry_run`, `dry_run`) and a CLI's dry run still runs the
 * CLI, a write's approval and all.
 */
function ownFlagOfControl(schema: JsonSchema, f: AgentFlag): JsonSchema {
  const control = f.name.replace(/-/g, "_");
  const said = CONTROL_SAID[control];
  if (said === undefined) return schema;
  const own = `The CLI's own --${f.name} (not hcp's ${control}, ${said})`;
  return { ...schema, description: typeof schema.description === "string" && schema.description !== "" ? `${own}: ${schema.description}` : `${own}.` };
}

/** The operand's schema, refusing the subcommands' names (as the value, or as the first element of an array). */
function notASubcommand(schema: JsonSchema, children: readonly string[]): JsonSchema {
  const not = { not: { enum: [...children] } };
  if (schema.type !== "array") return { ...schema, ...not };
  return { ...schema, prefixItems: [not] };
}

/** A read's flag schema that refuses the listed choices that open a file, recorded in `refusals`; as it is where none. */
function refusingFileChoices(schema: JsonSchema, f: AgentFlag, path: readonly string[], refusals: Refusals): JsonSchema {
  const opening = schema.type === "string" ? fileChoices(f.usage) : [];
  if (opening.length === 0) return schema;
  addTo(refusals, `flag --${f.name} refuses ${opening.join(", ")}`, { why: "each makes the command open a file the agent would name", path: path.join(" ") });
  return { ...schema, not: refusingChoices(opening) };
}

/**
 * A read's operands (a foreign CLI's: one array) refusing rclone's remotes made on the fly or given options, recorded in
 * `refusals`; as they are for another CLI. The array refuses any element that is one (`items` would not reach the first
 * element, which `prefixItems` may govern).
 */
function refusingRemoteOptions(schema: JsonSchema, c: AgentCommand, refusals: Refusals): JsonSchema {
  if (schema.type !== "array" || !namesRemotes(c.use)) return schema;
  addTo(refusals, 'operands refuse a remote made on the fly or given options (":backend,…:", "remote,…:")', { why: "an option can name a program rclone runs (webdav's bearer_token_command)", path: c.path.join(" ") });
  return { ...schema, not: { contains: { pattern: REMOTE_OPTIONS.pattern }, description: REMOTE_OPTIONS.description } };
}

const INTEGER_TYPES = new Set(["int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64"]);

/** A flag's argument: typed as pflag types it, its value masked in every output when it is a secret (namedSecret). */
function flagSchema(f: AgentFlag, path: readonly string[]): JsonSchema {
  const schema: JsonSchema = { type: "string" };
  if (f.type === "bool") schema.type = "boolean";
  else if (INTEGER_TYPES.has(f.type)) schema.type = "integer";
  else if (f.type === COUNT_OR_TEXT) schema.type = ["integer", "string"];
  else if (f.type === "float32" || f.type === "float64") schema.type = "number";
  // pflag's slices, arrays and maps (intSlice, stringToString): one value each time the flag is given, as text.
  else if (/(Slice|Array)$|^stringTo/.test(f.type)) Object.assign(schema, { type: "array", items: { type: "string" } });
  if (f.usage !== "") schema.description = f.usage;
  if (namedSecret(f.name, schema, path)) schema.writeOnly = true;
  const value = defaultOf(f, schema.type as string);
  if (value !== undefined) schema.default = value;
  return schema;
}

/** The flag's default as a JSON value, when it is not the type's zero value (which the program assumes anyway). */
function defaultOf(f: AgentFlag, type: string): unknown {
  const d = f.default;
  switch (type) {
    case "boolean":
      return d === "true" ? true : undefined;
    case "integer":
    case "number": {
      const n = Number(d);
      return d !== "" && Number.isFinite(n) && n !== 0 && (type === "number" || Number.isSafeInteger(n)) ? n : undefined;
    }
    case "string":
      return d === "" ? undefined : d;
    default:
      return undefined;
  }
}
