// A harness pack (surface.json, policy.json, HARNESS.md) generated from a rungrad-agentmeta/1 document (hcp.md §10). Pure.

import { parseDocument, stringify } from "yaml";
import type { AgentCommand, AgentFlag, AgentMetaDocument } from "../agentmeta/types.js";
import { isVerbKey } from "./fields.js";
import { SKILL_NAME, splitFrontmatter } from "./harness.js";
import { isObject } from "./issues.js";
import { isPlaceholderName } from "./placeholders.js";
import type { JsonSchema, PolicyDocument, PolicyVerbEntry, SurfaceVerb } from "./types.js";

/** surface.json as written: the Surface fields a generator sets (no defaults filled in). */
export interface SurfaceDocument {
  id: string;
  name: string;
  cliBin: string;
  kind: "wrap";
  binding: { mode: "user"; hub: "none" };
  wrap: { bin: string };
  verbs: Record<string, SurfaceVerb>;
}

export interface GeneratedPack {
  surface: SurfaceDocument;
  policy: PolicyDocument;
  /** HARNESS.md text. */
  harness: string;
  /** What the generator changed or left out (renamed segments, skipped commands), one line each. */
  notes: string[];
}

export interface FromAgentMetaOptions {
  /** The executable, as wrap.bin (a `.`-prefixed path resolves against the pack root). */
  bin: string;
  /** The generated SKILL.md text; its body becomes the HARNESS.md body. */
  skill?: string;
}

/** Flags the pack renders itself (literal tokens) or that belong to the runtime, never agent arguments. */
const RUNTIME_FLAGS = new Set(["json", "no-prompt", "dry-run", "confirm"]);
const CANONICAL = ["--json", "--no-prompt"];

/** Builds a pack for the wrapped CLI. The result validates with no error for any valid agentmeta document. */
export function packFromAgentMeta(doc: AgentMetaDocument, options: FromAgentMetaOptions): GeneratedPack {
  const notes: string[] = [];
  const id = packIdOf(doc.tool_name);
  const cliBin = doc.tool_name;
  const leaves = doc.commands.filter((c) => !c.has_children && !c.is_root);
  const commands = leaves.length > 0 ? leaves : doc.commands.filter((c) => c.is_root);

  const verbs: Record<string, SurfaceVerb> = {};
  const policyVerbs: Record<string, PolicyVerbEntry | "read" | "write"> = {};
  for (const c of commands) {
    const key = verbKeyOf(c, id, notes);
    if (key === null) continue;
    if (Object.hasOwn(verbs, key)) {
      notes.push(`skipped command "${c.path.join(" ")}": verb key "${key}" is already taken`);
      continue;
    }
    const { cli, args } = commandLine(c, cliBin, notes);
    const confirm = c.destructive || c.requires_confirmation;
    const verb: SurfaceVerb = { description: c.short, cli, args, policy: c.mutates || confirm ? "write" : "read" };
    verbs[key] = verb;
    policyVerbs[key] = confirm ? { policy: "write", confirm: true } : verb.policy!;
  }

  const surface: SurfaceDocument = {
    id,
    name: doc.tool_name,
    cliBin,
    kind: "wrap",
    binding: { mode: "user", hub: "none" },
    wrap: { bin: options.bin },
    verbs,
  };
  const policy: PolicyDocument = { surface_id: id, default: "deny", verbs: policyVerbs };
  return { surface, policy, harness: harnessText(doc, id, verbs, options.skill), notes };
}

/** The tool name as a pack_id: lower-cased, other characters as `-`, at most 128 characters. */
export function packIdOf(toolName: string): string {
  const id = toolName.toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[^a-z0-9]+/, "").slice(0, 128);
  return id === "" ? "pack" : id;
}

function verbKeyOf(c: AgentCommand, id: string, notes: string[]): string | null {
  if (c.path.length === 0) return id.replace(/[^a-z0-9_-]+/g, "-");
  const segments = c.path.map((s) => s.toLowerCase().replace(/[^a-z0-9_-]+/g, "-").replace(/^[^a-z0-9]+/, ""));
  const key = segments.join(".");
  if (segments.some((s) => s === "") || !isVerbKey(key)) {
    notes.push(`skipped command "${c.path.join(" ")}": no verb key fits ^[a-z0-9][a-z0-9_-]*(\\.[a-z0-9][a-z0-9_-]*)*$`);
    return null;
  }
  if (key !== c.path.join(".")) notes.push(`command "${c.path.join(" ")}" is verb "${key}"`);
  return key;
}

/** A placeholder name: `-` and other characters as `_`, a leading digit or a reserved name prefixed with `_`. */
export function placeholderName(s: string): string {
  let n = s.replace(/[^A-Za-z0-9_]/g, "_");
  if (!isPlaceholderName(n)) n = `_${n}`;
  return n;
}

const OPERAND = /^(<([^<>[\]]+?)(\.\.\.)?>|\[([^<>[\]]+?)(\.\.\.)?\])(\.\.\.)?$/;

function commandLine(c: AgentCommand, cliBin: string, notes: string[]): { cli: string[]; args: JsonSchema } {
  const cli = [cliBin];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const template = c.usage_template.split(/\s+/).filter((t) => t !== "");
  for (const tok of template.slice(1)) {
    const m = OPERAND.exec(tok);
    if (m === null) {
      cli.push(tok);
      continue;
    }
    const raw = m[2] ?? m[4]!;
    if (m[4] !== undefined && /^(flags|options)$/i.test(raw)) continue;
    const name = placeholderName(raw);
    const variadic = m[3] !== undefined || m[5] !== undefined || m[6] !== undefined;
    cli.push(`{{${name}}}`);
    properties[name] = variadic ? { type: "array", items: { type: "string" }, ...(m[2] ? { minItems: 1 } : {}) } : { type: "string" };
    if (m[2] !== undefined) required.push(name);
  }
  const extra = [c.machine_usage_template, c.dry_run_usage_template].flatMap((t) => t.split(/\s+/));
  for (const flag of CANONICAL) if (extra.includes(flag)) cli.push(flag);
  if (c.destructive || c.requires_confirmation) cli.push("--confirm");

  for (const f of c.local_flags) {
    if (RUNTIME_FLAGS.has(f.name)) continue;
    let name = placeholderName(f.name);
    if (Object.hasOwn(properties, name)) {
      notes.push(`flag --${f.name} of "${c.path.join(" ")}" is argument "flag_${name}"`);
      name = `flag_${name}`;
    }
    cli.push(`--${f.name}={{${name}}}`);
    properties[name] = flagSchema(f);
    if (f.required) required.push(name);
  }
  const args: JsonSchema = { type: "object", properties };
  if (required.length > 0) args.required = required;
  args.additionalProperties = false;
  return { cli, args };
}

function flagSchema(f: AgentFlag): JsonSchema {
  const described = f.usage === "" ? {} : { description: f.usage };
  switch (f.type) {
    case "bool":
      return { type: "boolean", ...described };
    case "int": case "int8": case "int16": case "int32": case "int64":
    case "uint": case "uint8": case "uint16": case "uint32": case "uint64":
      return { type: "integer", ...described };
    case "float32": case "float64":
      return { type: "number", ...described };
    case "stringArray": case "stringSlice":
      return { type: "array", items: { type: "string" }, ...described };
    default:
      return { type: "string", ...described };
  }
}

/** An Agent Skills name from the pack id. */
function skillName(id: string): string {
  const n = id.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64).replace(/-+$/, "");
  return SKILL_NAME.test(n) ? n : "pack";
}

function harnessText(doc: AgentMetaDocument, id: string, verbs: Record<string, SurfaceVerb>, skill: string | undefined): string {
  const root = doc.commands.find((c) => c.is_root);
  let description = `Run the ${doc.tool_name} CLI through its HCP pack${root?.short ? `: ${root.short}` : ""}.`;
  let body: string;
  if (skill !== undefined) {
    const split = splitFrontmatter(skill);
    body = split?.body ?? skill;
    if (split !== null) description = frontmatterDescription(split.yaml) ?? description;
  } else {
    const lines = [`# ${doc.tool_name}`, "", description, "", "## Verbs", ""];
    for (const [key, v] of Object.entries(verbs)) lines.push(`- \`${key}\` (${v.policy}): ${v.description ?? ""}`);
    body = lines.join("\n") + "\n";
  }
  const frontmatter = stringify({ name: skillName(id), description: description.slice(0, 1024) }, { lineWidth: 0 });
  return `---\n${frontmatter}---\n\n${body.replace(/^\n+/, "")}`;
}

function frontmatterDescription(yaml: string): string | undefined {
  try {
    const fm: unknown = parseDocument(yaml).toJS();
    const d = isObject(fm) ? fm["description"] : undefined;
    return typeof d === "string" && d.trim() !== "" ? d : undefined;
  } catch {
    return undefined;
  }
}
