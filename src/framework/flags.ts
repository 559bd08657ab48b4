// Flag declarations with pflag's type names and DefValue strings, the framework's global flags, and pflag's usage layout.

import { goQuote } from "../json/goquote.js";
import { compareBytes } from "../json/stable.js";

export type FlagType = "bool" | "string" | "int" | "stringArray";

/** A flag as a command declares it. */
export interface FlagSpec {
  name: string;
  shorthand?: string;
  usage: string;
  type: FlagType;
  default?: boolean | string | number | string[];
  required?: boolean;
  hidden?: boolean;
}

/** A flag as the framework holds it: pflag's view plus where it lives. */
export interface FlagDef {
  /** Global identity (json, dry-run, …, or `service:<name>`); absent for command flags. */
  id?: string;
  name: string;
  shorthand: string;
  usage: string;
  type: FlagType;
  /** pflag DefValue: bool "false", string "", int "0", stringArray "[]". */
  defValue: string;
  defaultValue: boolean | string | number | string[];
  required: boolean;
  hidden: boolean;
}

export function toFlagDef(spec: FlagSpec, id?: string): FlagDef {
  const defaultValue = spec.default ?? zeroValue(spec.type);
  const def: FlagDef = {
    name: spec.name,
    shorthand: spec.shorthand ?? "",
    usage: spec.usage,
    type: spec.type,
    defValue: defValueString(spec.type, defaultValue),
    defaultValue,
    required: spec.required ?? false,
    hidden: spec.hidden ?? false,
  };
  if (id !== undefined) def.id = id;
  return def;
}

function zeroValue(type: FlagType): boolean | string | number | string[] {
  switch (type) {
    case "bool":
      return false;
    case "int":
      return 0;
    case "stringArray":
      return [];
    default:
      return "";
  }
}

function defValueString(type: FlagType, v: boolean | string | number | string[]): string {
  if (type === "stringArray") return "[" + (v as string[]).join(",") + "]";
  return String(v);
}

/** pflag prints `(default …)` unless DefValue is the type's zero value. */
function isZeroDefault(f: FlagDef): boolean {
  return f.defValue === defValueString(f.type, zeroValue(f.type));
}

/**
 * pflag's UnquoteUsage: a back-quoted word in the usage names the value (and loses its quotes);
 * otherwise the value's type name does (none for bool; our types keep their own names).
 */
function unquoteUsage(f: FlagDef): [varname: string, usage: string] {
  const open = f.usage.indexOf("`");
  const close = open < 0 ? -1 : f.usage.indexOf("`", open + 1);
  if (close >= 0) {
    const name = f.usage.slice(open + 1, close);
    return [name, f.usage.slice(0, open) + name + f.usage.slice(close + 1)];
  }
  return [f.type === "bool" ? "" : f.type, f.usage];
}

/** pflag's FlagUsages: sorted by name, aligned, hidden flags omitted, trailing whitespace trimmed per block. */
export function flagUsages(flags: readonly FlagDef[]): string {
  const visible = flags.filter((f) => !f.hidden).sort((a, b) => compareBytes(a.name, b.name));
  const lines: [string, string][] = [];
  let maxlen = 0;
  for (const f of visible) {
    let head = f.shorthand ? `  -${f.shorthand}, --${f.name}` : `      --${f.name}`;
    const [varname, text] = unquoteUsage(f);
    if (varname) head += " " + varname;
    maxlen = Math.max(maxlen, head.length + 1);
    let usage = text;
    if (!isZeroDefault(f)) usage += f.type === "string" ? ` (default ${goQuote(f.defValue)})` : ` (default ${f.defValue})`;
    lines.push([head, usage]);
  }
  // A newline in a usage continues under the usage column (pflag's wrap with no width).
  return lines
    .map(([head, usage]) => `${head} ${" ".repeat(maxlen - head.length)} ${usage.replaceAll("\n", "\n" + " ".repeat(maxlen + 2))}`.replace(/\s+$/, ""))
    .join("\n");
}

/** Exact usage strings of the framework's global flags (rgref_reference.json). */
export const GLOBAL_USAGE = {
  json: "Output stable JSON instead of the human view",
  "dry-run": "Preview changes without performing them",
  "no-prompt": "Never block on an interactive prompt",
  quiet: "Suppress non-essential output",
  config: "Path to the config file",
  plain: "Print unstyled, copy-safe text (commands with human output)",
  jq: "Transform stable JSON output with a jq expression (commands with machine output)",
  // Not Go's text/template: see src/framework/README.md ("--template language").
  template: "Render stable JSON output through a rungrad template, not Go text/template (commands with machine output)",
  "include-meta": "Wrap machine output as {data, meta} (commands that expose request metadata)",
  "no-color": "Disable color in human output",
  "no-ansi": "Disable all ANSI/control sequences in human output",
  "no-pager": "Never use a pager for long human output",
  profile: "Profile to use for config and credentials",
  "auth-file": "Path to the credentials file",
} as const;

export type GlobalId = keyof typeof GLOBAL_USAGE;

const STRING_IDS: ReadonlySet<string> = new Set(["config", "jq", "template", "profile", "auth-file"]);

/** Base, advanced-output and resolution identities, in registration order. */
export const BASE_IDS: readonly GlobalId[] = ["json", "dry-run", "no-prompt", "quiet", "config"];
export const ADVANCED_IDS: readonly GlobalId[] = ["plain", "jq", "template", "include-meta", "no-color", "no-ansi", "no-pager"];

/** The framework's FlagDef for a global identity under a (possibly host-chosen) name. */
export function globalFlagDef(id: GlobalId, name: string = id, usage?: string, shorthand = "", hidden = false): FlagDef {
  const type: FlagType = STRING_IDS.has(id) ? "string" : "bool";
  return toFlagDef({ name, usage: usage || GLOBAL_USAGE[id], type, shorthand, hidden }, id);
}
