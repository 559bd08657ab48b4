// fromManifest: Go rungrad's agentmeta.FromManifest, the pure projection of a manifest into a rungrad-agentmeta/1 document.

import { goQuote, isGoSpaceCode } from "../json/goquote.js";
import { ManifestError } from "../manifest/errors.js";
import { cloneExtensionSet, isEmptyRecord } from "../manifest/extensions.js";
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
  const dryRunGlobal = canonical.has("dry-run");
  const source = m.commands;
  const keys = pathKeys(source);
  const parents = parentKeys(source, keys);
  const toolName = m.tool_name;
  const commands: AgentCommand[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const commandTemplate = commandOf(toolName, c.path);
    const usageTemplate = usage(toolName, commandTemplate, c);
    const declaresJSON = c.output_modes.includes("json");
    const localFlags = c.local_flags;
    const required = localFlags.filter((f) => f.required).map(cloneFlag);
    const machine = declaresJSON && machineGlobals && !c.mutates && !c.destructive ? usageTemplate + " --json --no-prompt" : "";
    const dryRun = c.supports_dry_run && dryRunGlobal ? usageTemplate + " --dry-run" + (declaresJSON && machineGlobals ? " --json --no-prompt" : "") : "";
    const note = c.requires_confirmation ? CONFIRMATION_NOTE : "";
    // Wire order, built by assignment so that the optional member keeps its place without an
    // object spread (slow in a hot loop); Go's omitempty drops both a nil and an empty extension set.
    const command: Partial<AgentCommand> = {
      path: c.path.slice(),
      use: c.use,
      short: c.short,
      examples: c.examples.slice(),
      related: c.related.slice(),
      output_modes: c.output_modes.slice(),
      local_flags: localFlags.map(cloneFlag),
      required_local_flags: required,
      requires_auth: c.requires_auth,
      mutates: c.mutates,
      supports_dry_run: c.supports_dry_run,
      destructive: c.destructive,
      requires_confirmation: c.requires_confirmation,
      supports_meta: c.supports_meta,
    };
    const extensions = c.extensions;
    if (extensions && !isEmptyRecord(extensions)) command.extensions = cloneExtensionSet(extensions);
    command.is_root = c.path.length === 0;
    command.has_children = parents.has(keys[i]!);
    command.command_template = commandTemplate;
    command.usage_template = usageTemplate;
    command.machine_usage_template = machine;
    command.dry_run_usage_template = dryRun;
    command.confirmation_note = note;
    commands.push(command as AgentCommand);
  }

  return {
    schema_version: AGENTMETA_SCHEMA_VERSION,
    spec_version: m.spec_version,
    tool_name: m.tool_name,
    tool_version: m.tool_version,
    global_flags: m.global_flags.map(cloneFlag),
    commands,
  };
}

/**
 * usage_template: `commandTemplate` plus the use fields (Go's strings.Fields) after the first,
 * which must name the command (the tool name for root). One pass, no field array.
 */
function usage(toolName: string, commandTemplate: string, c: ValidCommand): string {
  const use = c.use;
  if (typeof use !== "string") throw new TypeError(`manifest command ${pathLabel(c.path)} use is not a string`);
  const n = use.length;
  let i = 0;
  while (i < n && isGoSpaceCode(use.charCodeAt(i))) i++;
  if (i === n) throw new AgentMetaError(`manifest command ${pathLabel(c.path)} has empty use`);
  let j = i;
  while (j < n && !isGoSpaceCode(use.charCodeAt(j))) j++;
  const first = use.slice(i, j);
  const expected = c.path.length === 0 ? toolName : c.path[c.path.length - 1]!;
  if (first !== expected) {
    throw new AgentMetaError(`manifest command ${pathLabel(c.path)} use first field ${goQuote(first)} does not match ${goQuote(expected)}`);
  }
  let out = commandTemplate;
  for (;;) {
    while (j < n && isGoSpaceCode(use.charCodeAt(j))) j++;
    if (j === n) return out;
    i = j;
    while (j < n && !isGoSpaceCode(use.charCodeAt(j))) j++;
    out += " " + use.slice(i, j);
  }
}

/** command_template: the tool name and the path, space-separated. */
function commandOf(toolName: string, path: readonly string[]): string {
  let out = toolName;
  for (let i = 0; i < path.length; i++) out += " " + path[i]!;
  return out;
}

/** Each command's path key (see segmentKey). */
function pathKeys(commands: readonly ValidCommand[]): string[] {
  const keys: string[] = [];
  for (const c of commands) {
    let key = "";
    for (const seg of c.path) key += segmentKey(seg);
    keys.push(key);
  }
  return keys;
}

/**
 * Keys of every strict prefix of every command path: a command has children
 * exactly when its own key is among them (Go's hasChildren, in linear time).
 */
function parentKeys(commands: readonly ValidCommand[], keys: readonly string[]): Set<string> {
  const parents = new Set<string>();
  for (let i = 0; i < commands.length; i++) {
    const path = commands[i]!.path;
    if (path.length === 0) continue;
    // The strict prefixes of a path are the prefixes of its parent's key, which ends one segment earlier.
    const key = keys[i]!;
    let end = key.length - segmentKey(path[path.length - 1]!).length;
    parents.add(key.slice(0, end));
    for (let k = path.length - 2; k >= 0; k--) {
      end -= segmentKey(path[k]!).length;
      parents.add(key.slice(0, end));
    }
  }
  return parents;
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
