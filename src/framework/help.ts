// Cobra's help layout (Long with Related/Output-modes sections, Usage, Examples, command lists, Flags, Global Flags).

import { goQuote } from "../json/goquote.js";
import { compareBytes } from "../json/stable.js";
import type { CommandNode } from "./command.js";
import { toFlagDef, flagUsages, type FlagDef } from "./flags.js";

/** A named help section commands can be sorted into (Cobra groups). */
export interface Group {
  id: string;
  title: string;
}

export interface HelpOptions {
  groups: readonly Group[];
  /** Root only: Cobra's `-v, --version` flag is shown. */
  version: boolean;
}

const MIN_NAME_PADDING = 11;

/** Cobra lists available commands and `help`. */
const listed = (c: CommandNode): boolean => c.available() || c.kind === "help";

/** Long (default Short) plus `Related commands:` and `Output modes:` sections, as the builder sets Cobra's Long. */
function describe(node: CommandNode): string {
  let long = node.spec.long || node.spec.short;
  const related = node.spec.related ?? [];
  if (related.length > 0) long += "\n\nRelated commands:\n" + related.map((r) => "  " + r).join("\n");
  if (node.outputModes.length > 0) long += "\n\nOutput modes:\n  " + node.outputModes.join(", ");
  return long;
}

/** The full `--help` text of a command, byte for byte as Cobra prints it. */
export function renderHelp(node: CommandNode, opts: HelpOptions): string {
  const long = describe(node).replace(/\s+$/, "");
  const head = long ? long + "\n\n" : "";
  if (!node.runnable && node.children.length === 0) return head;
  return head + usageString(node, opts);
}

/**
 * Cobra's help command for a topic that names no command: `Unknown help topic` with the words as
 * Go's %#q prints a []string, then the root's usage (not its help: no long text). Cobra adds the
 * -h and -v flags to a command only when it runs, so the root's usage here lists neither.
 */
export function unknownTopicHelp(root: CommandNode, topic: readonly string[], groups: readonly Group[]): string {
  return `Unknown help topic [${topic.map(backquoted).join(" ")}]\n` + usageString(root, { groups, version: false }, false);
}

/** Go's %#q of a string: back-quoted when strconv.CanBackquote allows, else %q. */
function backquoted(s: string): string {
  return /^[^\x00-\x08\x0a-\x1f`\x7f\ufeff\ud800-\udfff]*$/u.test(s) ? "`" + s + "`" : goQuote(s);
}

function usageString(node: CommandNode, opts: HelpOptions, defaultFlags = true): string {
  const examples = node.spec.examples ?? [];
  const subs = sortedChildren(node);
  const hasSubs = subs.some((c) => c.available());
  let s = "Usage:";
  if (node.runnable) s += "\n  " + useLine(node);
  if (hasSubs) s += `\n  ${node.commandPath()} [command]`;
  if (examples.length > 0) s += "\n\nExamples:\n" + examples.join("\n");
  if (hasSubs) s += commandList(node, subs, opts.groups);
  const local = localFlags(node, opts.version, defaultFlags);
  if (local.some((f) => !f.hidden)) s += "\n\nFlags:\n" + flagUsages(local);
  const inherited = node.inherited();
  if (inherited.some((f) => !f.hidden)) s += "\n\nGlobal Flags:\n" + flagUsages(inherited);
  if (hasSubs) s += `\n\nUse "${node.commandPath()} [command] --help" for more information about a command.`;
  return s + "\n";
}

function useLine(node: CommandNode): string {
  const use = node.parent ? `${node.parent.commandPath()} ${node.spec.use}` : node.spec.use;
  return use.includes("[flags]") || node.spec.disableFlagsInUseLine ? use : use + " [flags]";
}

function sortedChildren(node: CommandNode): CommandNode[] {
  return [...node.children].sort((a, b) => compareBytes(a.name, b.name));
}

function commandList(node: CommandNode, subs: CommandNode[], groups: readonly Group[]): string {
  const padding = Math.max(MIN_NAME_PADDING, ...node.children.map((c) => c.name.length));
  const line = (c: CommandNode): string => `\n  ${c.name.padEnd(padding)} ${c.spec.short}`;
  const useGroups = node.parent === null && groups.length > 0;
  if (!useGroups) return "\n\nAvailable Commands:" + subs.filter(listed).map(line).join("");
  let s = "";
  for (const g of groups) s += "\n\n" + g.title + subs.filter((c) => c.spec.group === g.id && listed(c)).map(line).join("");
  const ungrouped = subs.filter((c) => !c.spec.group && listed(c));
  if (ungrouped.length > 0) s += "\n\nAdditional Commands:" + ungrouped.map(line).join("");
  return s;
}

/** Cobra's LocalFlags: the root's persistent flags count as its own; a command that runs gets `-h, --help`. */
function localFlags(node: CommandNode, version: boolean, defaultFlags: boolean): FlagDef[] {
  const out = [...(node.parent ? [] : node.shownGlobals()), ...node.flags];
  if (!defaultFlags) return out;
  out.push(toFlagDef({ name: "help", shorthand: "h", usage: `help for ${node.name}`, type: "bool" }));
  if (!node.parent && version) out.push(toFlagDef({ name: "version", shorthand: "v", usage: `version for ${node.name}`, type: "bool" }));
  return out;
}
