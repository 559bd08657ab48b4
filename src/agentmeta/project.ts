// fromManifest: Go rungrad's agentmeta.FromManifest, the pure projection of a manifest into a rungrad-agentmeta/1 document.

import { goFields, goQuote } from "../json/goquote.js";
import { ManifestError } from "../manifest/errors.js";
import { cloneExtensionSet } from "../manifest/extensions.js";
import { SPEC_VERSION, type Flag, type Manifest, type ValidCommand } from "../manifest/types.js";
import { pathLabel, validateManifest } from "../manifest/validate.js";
import {
  AGENTMETA_SCHEMA_VERSION,
  CONFIRMATION_NOTE,
  type AgentCommand,
  type AgentFlag,
  type AgentMetaDocument,
} from "./types.js";

/**
 * A manifest that validates but cannot be projected: an unsupported spec
 * version, a root that is not first, or a malformed use line. Messages are Go's.
 */
export class AgentMetaError extends ManifestError {
  override name = "AgentMetaError";
}

/** The framework global flags whose canonical form the templates rely on. */
export type CanonicalGlobal = "json" | "no-prompt" | "dry-run";

const CANONICAL_NAMES: ReadonlySet<string> = new Set<CanonicalGlobal>(["json", "no-prompt", "dry-run"]);

/**
 * The canonical machine globals present in a flag list: a bool flag with default
 * "false" named json, no-prompt or dry-run. Renamed, retyped or defaulted-true flags do not count.
 */
export function canonicalGlobals(flags: readonly Pick<Flag, "name" | "type" | "default">[]): ReadonlySet<CanonicalGlobal> {
  const out = new Set<CanonicalGlobal>();
  for (const f of flags) {
    if (f.type === "bool" && f.default === "false" && CANONICAL_NAMES.has(f.name)) out.add(f.name as CanonicalGlobal);
  }
  return out;
}

/**
 * Projects a manifest into an agent metadata document. Throws the validation
 * error unchanged (UnsupportedVersionError stays typed), or AgentMetaError.
 * Never mutates its input; the document shares no objects with it.
 */
export function fromManifest(m: Manifest): AgentMetaDocument {
  validateManifest(m);
  if (m.spec_version !== SPEC_VERSION) {
    throw new AgentMetaError(`unsupported manifest spec version ${goQuote(m.spec_version)}`);
  }
  const first = m.commands[0]!;
  if (first.path.length !== 0) {
    throw new AgentMetaError(`manifest command at index 0 is not root: ${pathLabel(first.path)}`);
  }

  const canonical = canonicalGlobals(m.global_flags);
  const machineGlobals = canonical.has("json") && canonical.has("no-prompt");
  const parents = parentKeys(m.commands);
  const commands = m.commands.map((c): AgentCommand => {
    const { commandTemplate, usageTemplate } = templates(m.tool_name, c);
    const declaresJSON = c.output_modes.includes("json");
    const head: Omit<AgentCommand, TailField> = {
      path: c.path.slice(),
      use: c.use,
      short: c.short,
      examples: c.examples.slice(),
      related: c.related.slice(),
      output_modes: c.output_modes.slice(),
      local_flags: c.local_flags.map(cloneFlag),
      required_local_flags: c.local_flags.filter((f) => f.required).map(cloneFlag),
      requires_auth: c.requires_auth,
      mutates: c.mutates,
      supports_dry_run: c.supports_dry_run,
      destructive: c.destructive,
      requires_confirmation: c.requires_confirmation,
      supports_meta: c.supports_meta,
    };
    // Go's omitempty drops both a nil and an empty extension set; the key goes here in wire order.
    if (hasExtensions(c)) head.extensions = cloneExtensionSet(c.extensions);
    const tail: Pick<AgentCommand, TailField> = {
      is_root: c.path.length === 0,
      has_children: parents.has(pathKey(c.path)),
      command_template: commandTemplate,
      usage_template: usageTemplate,
      machine_usage_template: declaresJSON && machineGlobals && !c.mutates && !c.destructive ? usageTemplate + " --json --no-prompt" : "",
      dry_run_usage_template:
        c.supports_dry_run && canonical.has("dry-run") ? usageTemplate + " --dry-run" + (declaresJSON && machineGlobals ? " --json --no-prompt" : "") : "",
      confirmation_note: c.requires_confirmation ? CONFIRMATION_NOTE : "",
    };
    return Object.assign(head, tail);
  });

  return {
    schema_version: AGENTMETA_SCHEMA_VERSION,
    spec_version: m.spec_version,
    tool_name: m.tool_name,
    tool_version: m.tool_version,
    global_flags: m.global_flags.map(cloneFlag),
    commands,
  };
}

function hasExtensions(c: ValidCommand): c is ValidCommand & { extensions: NonNullable<ValidCommand["extensions"]> } {
  if (c.extensions === undefined || c.extensions === null) return false;
  for (const ns in c.extensions) if (Object.hasOwn(c.extensions, ns)) return true;
  return false;
}

/** The command fields after `extensions` in wire order. */
type TailField =
  | "is_root"
  | "has_children"
  | "command_template"
  | "usage_template"
  | "machine_usage_template"
  | "dry_run_usage_template"
  | "confirmation_note";

/** command_template (tool + path) and usage_template (plus the use fields after the first). */
function templates(toolName: string, c: ValidCommand): { commandTemplate: string; usageTemplate: string } {
  const fields = goFields(c.use);
  if (fields.length === 0) throw new AgentMetaError(`manifest command ${pathLabel(c.path)} has empty use`);
  const expected = c.path.length === 0 ? toolName : c.path[c.path.length - 1]!;
  if (fields[0] !== expected) {
    throw new AgentMetaError(`manifest command ${pathLabel(c.path)} use first field ${goQuote(fields[0]!)} does not match ${goQuote(expected)}`);
  }
  let commandTemplate = toolName;
  for (const seg of c.path) commandTemplate += " " + seg;
  let usageTemplate = commandTemplate;
  for (let i = 1; i < fields.length; i++) usageTemplate += " " + fields[i]!;
  return { commandTemplate, usageTemplate };
}

/**
 * Keys of every strict prefix of every command path: a command has children
 * exactly when its own key is among them (Go's hasChildren, in linear time).
 */
function parentKeys(commands: readonly ValidCommand[]): Set<string> {
  const keys = new Set<string>();
  for (const c of commands) {
    let key = "";
    for (const seg of c.path) {
      keys.add(key);
      key += segmentKey(seg);
    }
  }
  return keys;
}

function pathKey(path: readonly string[]): string {
  let key = "";
  for (const seg of path) key += segmentKey(seg);
  return key;
}

/**
 * One segment's part of a path key. Length-prefixed rather than NUL-joined:
 * a segment may itself contain NUL, and Go compares segment by segment.
 */
function segmentKey(seg: string): string {
  return `${seg.length}\0${seg}`;
}

function cloneFlag(f: Flag): AgentFlag {
  return {
    name: f.name,
    shorthand: f.shorthand,
    usage: f.usage,
    default: f.default,
    type: f.type,
    required: f.required,
  };
}
