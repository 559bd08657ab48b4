// Cobra's dynamic completion protocol: the hidden `__complete` (and `__completeNoDesc`) command.
//
// `<tool> __complete <words…> <partial>` prints one candidate per line (`name<TAB>description`),
// then `:<directive>` (a ShellCompDirective bit set), and on stderr
// `Completion ended with directive: <names>`. The shell scripts of `<tool> completion <shell>`
// (completion.ts) call it on every TAB; other tools that speak Cobra's protocol can too.
// What is completed, as Cobra does for a program without custom completion functions: the words
// are resolved to a command as Cobra's Find does (flags stripped, hidden commands reachable), then
// subcommand names, or flag names after `-`, or required flags; a flag's value gets nothing and the
// shell's default (file) completion. Errors are reported on stderr and still end with a directive.

import { appendFileSync } from "node:fs";
import { compareBytes } from "../json/stable.js";
import { parseGoBool } from "./argv.js";
import type { CommandNode } from "./command.js";
import { toFlagDef, type FlagDef } from "./flags.js";

/** The hidden command names (Cobra's ShellCompRequestCmd and ShellCompNoDescRequestCmd). */
export const COMPLETE_COMMAND = "__complete";
export const COMPLETE_NO_DESC_COMMAND = "__completeNoDesc";

/** ShellCompDirective bits. */
export const Directive = { Error: 1, NoSpace: 2, NoFileComp: 4, FilterFileExt: 8, FilterDirs: 16, KeepOrder: 32, Default: 0 } as const;

const DIRECTIVE_NAMES: [number, string][] = [
  [Directive.Error, "ShellCompDirectiveError"],
  [Directive.NoSpace, "ShellCompDirectiveNoSpace"],
  [Directive.NoFileComp, "ShellCompDirectiveNoFileComp"],
  [Directive.FilterFileExt, "ShellCompDirectiveFilterFileExt"],
  [Directive.FilterDirs, "ShellCompDirectiveFilterDirs"],
  [Directive.KeepOrder, "ShellCompDirectiveKeepOrder"],
];

function directiveString(d: number): string {
  const names = DIRECTIVE_NAMES.filter(([bit]) => (d & bit) !== 0).map(([, name]) => name);
  return names.length > 0 ? names.join(", ") : "ShellCompDirectiveDefault";
}

export interface CompleteOptions {
  /** Called as __completeNoDesc. */
  noDescriptions: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** The root has Cobra's --version flag. */
  version: boolean;
}

export interface CompleteResult {
  stdout: string;
  stderr: string;
}

/** A command's flags as pflag sees them while completing. */
interface FlagView {
  /** Everything the command accepts (local, its help/version, inherited). */
  all: FlagDef[];
  /** Cobra's InheritedFlags: the root's persistent flags a non-root command inherits. */
  inherited: FlagDef[];
  /** Cobra's NonInheritedFlags (LocalFlags): own flags, the root's persistent ones on the root. */
  local: FlagDef[];
  /** Flags that are not persistent: what Cobra's LocalNonPersistentFlags holds. */
  localNonPersistent: FlagDef[];
}

const byName = (a: FlagDef, b: FlagDef) => compareBytes(a.name, b.name);
const sortedChildren = (node: CommandNode) => [...node.children].sort((a, b) => compareBytes(a.name, b.name));

/** The flags of `node` before Cobra adds -h/-v (what Find sees on the way down). */
function plainFlags(node: CommandNode): FlagDef[] {
  const persistent = node.parent ? node.inherited().filter((p) => !node.flags.some((f) => f.name === p.name)) : node.shownGlobals();
  return [...node.flags, ...persistent];
}

/** The flags of the command being completed, with Cobra's -h/--help and the root's -v/--version added. */
function flagView(node: CommandNode, version: boolean): FlagView {
  const own = [...node.flags];
  const taken = (short: string) => [...own, ...(node.parent ? node.inherited() : node.shownGlobals())].some((f) => f.shorthand === short);
  if (!own.some((f) => f.name === "help")) own.push(toFlagDef({ name: "help", shorthand: taken("h") ? "" : "h", usage: `help for ${node.name}`, type: "bool" }));
  if (!node.parent && version && !own.some((f) => f.name === "version")) {
    own.push(toFlagDef({ name: "version", shorthand: taken("v") ? "" : "v", usage: `version for ${node.name}`, type: "bool" }));
  }
  const inherited = node.parent ? node.inherited().filter((p) => !own.some((f) => f.name === p.name)) : [];
  const local = node.parent ? own : [...node.shownGlobals(), ...own];
  return { all: [...local, ...inherited], inherited, local, localNonPersistent: own };
}

const lookup = (flags: readonly FlagDef[], name: string) => flags.find((f) => f.name === name);
const lookupShort = (flags: readonly FlagDef[], short: string) => flags.find((f) => f.shorthand === short);
const isBool = (f: FlagDef | undefined) => f?.type === "bool";

/** Cobra's stripFlags: the words that are not flags or their values (an unknown `--x` takes a value). */
function stripFlags(args: readonly string[], flags: readonly FlagDef[]): string[] {
  const commands: string[] = [];
  let rest = [...args];
  while (rest.length > 0) {
    const s = rest[0]!;
    rest = rest.slice(1);
    if (s === "--") break;
    const longValue = s.startsWith("--") && !s.includes("=") && !isBool(lookup(flags, s.slice(2)));
    const shortValue = s.startsWith("-") && !s.includes("=") && s.length === 2 && !isBool(lookupShort(flags, s.slice(1)));
    if (longValue || shortValue) {
      if (rest.length <= 1) break;
      rest = rest.slice(1);
    } else if (s !== "" && !s.startsWith("-")) {
      commands.push(s);
    }
  }
  return commands;
}

/** Cobra's argsMinusFirstX: `args` without the first non-flag word equal to `x`. */
function argsMinusFirst(args: readonly string[], x: string, flags: readonly FlagDef[]): string[] {
  for (let pos = 0; pos < args.length; pos++) {
    const s = args[pos]!;
    if (s === "--") break;
    const longValue = s.startsWith("--") && !s.includes("=") && !isBool(lookup(flags, s.slice(2)));
    const shortValue = s.startsWith("-") && !s.includes("=") && s.length === 2 && !isBool(lookupShort(flags, s.slice(1)));
    if (longValue || shortValue) pos++;
    else if (!s.startsWith("-") && s === x) return [...args.slice(0, pos), ...args.slice(pos + 1)];
  }
  return [...args];
}

/** Cobra's Find: the deepest command the words name, the words left over, or the root's "unknown command" error. */
export function findCommand(root: CommandNode, args: readonly string[]): { node: CommandNode; args: string[] } | null {
  let node = root;
  let rest = [...args];
  for (;;) {
    const words = stripFlags(rest, plainFlags(node));
    if (words.length === 0) break;
    const next = node.children.find((c) => c.name === words[0]);
    if (!next) break;
    rest = argsMinusFirst(rest, words[0]!, plainFlags(node));
    node = next;
  }
  // legacyArgs: the root (whose Args are unset) refuses a word that names no subcommand.
  if (node === root && root.children.length > 0 && stripFlags(rest, plainFlags(root)).length > 0) return null;
  return { node, args: rest };
}

/** Go's %v of a []string. */
const goList = (args: readonly string[]) => `[${args.join(" ")}]`;

/** What pflag's parse of the command's arguments leaves: positional words, changed flags, whether `--` ended the flags. */
interface Parsed {
  positional: string[];
  changed: Set<string>;
  dashed: boolean;
}

/** pflag's ParseFlags (interspersed) for the completion: Go's error texts for unknown flags, missing and bad values. */
function parseFlags(args: readonly string[], flags: readonly FlagDef[]): Parsed {
  const parsed: Parsed = { positional: [], changed: new Set(), dashed: false };
  const set = (f: FlagDef, value: string) => {
    const label = f.shorthand ? `-${f.shorthand}, --${f.name}` : `--${f.name}`;
    if (f.type === "bool" && parseGoBool(value) === undefined) throw new Error(`invalid argument "${value}" for "${label}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`);
    if (f.type === "int" && !/^[+-]?(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]*|[1-9][0-9_]*)$/.test(value)) {
      throw new Error(`invalid argument "${value}" for "${label}" flag: strconv.ParseInt: parsing "${value}": invalid syntax`);
    }
    parsed.changed.add(f.name);
  };
  let rest = [...args];
  while (rest.length > 0) {
    const s = rest.shift()!;
    if (s.length < 2 || s[0] !== "-") {
      parsed.positional.push(s);
      continue;
    }
    if (s === "--") {
      parsed.dashed = true;
      parsed.positional.push(...rest);
      break;
    }
    if (s[1] === "-") {
      const body = s.slice(2);
      if (body.startsWith("-") || body.startsWith("=")) throw new Error(`bad flag syntax: ${s}`);
      const eq = body.indexOf("=");
      const name = eq < 0 ? body : body.slice(0, eq);
      const f = lookup(flags, name);
      if (!f) throw new Error(`unknown flag: --${name}`);
      if (eq >= 0) set(f, body.slice(eq + 1));
      else if (f.type === "bool") set(f, "true");
      else if (rest.length > 0) set(f, rest.shift()!);
      else throw new Error(`flag needs an argument: ${s}`);
      continue;
    }
    let shorts = s.slice(1);
    while (shorts.length > 0) {
      const c = shorts[0]!;
      const f = lookupShort(flags, c);
      if (!f) throw new Error(`unknown shorthand flag: '${c}' in -${shorts}`);
      if (shorts.length > 2 && shorts[1] === "=") {
        set(f, shorts.slice(2));
        shorts = "";
      } else if (f.type === "bool") {
        set(f, "true");
        shorts = shorts.slice(1);
      } else if (shorts.length > 1) {
        set(f, shorts.slice(1));
        shorts = "";
      } else if (rest.length > 0) {
        set(f, rest.shift()!);
        shorts = "";
      } else {
        throw new Error(`flag needs an argument: '${c}' in -${shorts}`);
      }
    }
  }
  return parsed;
}

/** `--name<TAB>usage` and `-s<TAB>usage` for a flag whose names start with `prefix` (hidden flags: none). */
function flagNameCompletions(f: FlagDef, prefix: string): string[] {
  if (f.hidden) return [];
  const out: string[] = [];
  if (`--${f.name}`.startsWith(prefix)) out.push(`--${f.name}\t${f.usage}`);
  if (f.shorthand && `-${f.shorthand}`.startsWith(prefix)) out.push(`-${f.shorthand}\t${f.usage}`);
  return out;
}

/** Required flags not given yet, inherited ones first, each group by name. */
function requiredFlagCompletions(view: FlagView, parsed: Parsed, prefix: string): string[] {
  return [...[...view.inherited].sort(byName), ...[...view.local].sort(byName)]
    .filter((f) => f.required && !parsed.changed.has(f.name))
    .flatMap((f) => flagNameCompletions(f, prefix));
}

/** Subcommands Cobra offers: available ones and `help`, by name. */
function subcommandCompletions(node: CommandNode, prefix: string): string[] {
  return sortedChildren(node)
    .filter((c) => c.available() || c.kind === "help")
    .filter((c) => c.name.startsWith(prefix))
    .map((c) => `${c.name}\t${c.spec.short}`);
}

/** Cobra's getCompletions: the candidates and the directive for `args` (the last one being completed). */
function completions(root: CommandNode, args: readonly string[], version: boolean): { candidates: string[]; directive: number; error?: string } {
  let toComplete = args[args.length - 1]!;
  const found = findCommand(root, args.slice(0, -1));
  if (!found) return { candidates: [], directive: Directive.Default, error: `unable to find a command for arguments: ${goList(args.slice(0, -1))}` };
  const { node } = found;
  let finalArgs = found.args;
  const view = flagView(node, version);

  // Completing a flag's value: `--flag=<TAB>` or `--flag <TAB>`.
  let flag: FlagDef | undefined;
  let flagError: string | undefined;
  let flagName = "";
  let withEqual = false;
  let trimmed = finalArgs;
  if (toComplete.startsWith("-")) {
    const eq = toComplete.indexOf("=");
    if (eq >= 0) {
      flagName = toComplete.startsWith("--") && eq >= 2 ? toComplete.slice(2, eq) : toComplete.slice(eq - 1, eq);
      toComplete = toComplete.slice(eq + 1);
      withEqual = true;
    }
  } else if (finalArgs.length > 0) {
    const prev = finalArgs[finalArgs.length - 1]!;
    const isFlagArg = (prev.length >= 3 && prev.startsWith("--")) || (prev.length >= 2 && prev[0] === "-" && prev[1] !== "-");
    if (isFlagArg && !prev.includes("=")) {
      flagName = prev.startsWith("--") ? prev.slice(2) : prev.slice(-1);
      trimmed = finalArgs.slice(0, -1);
    }
  }
  if (flagName !== "") {
    flag = flagName.length === 1 ? lookupShort(view.all, flagName) : lookup(view.all, flagName);
    if (!flag) {
      flagError = `Subcommand '${node.name}' does not support flag '${flagName}'`;
      trimmed = finalArgs;
      if (withEqual) toComplete = args[args.length - 1]!;
    } else if (!withEqual && flag.type === "bool") {
      trimmed = finalArgs;
      flag = undefined;
    }
  }
  finalArgs = trimmed;

  let parsed: Parsed;
  try {
    parsed = parseFlags(finalArgs, view.all);
  } catch (err) {
    return { candidates: [], directive: Directive.Default, error: `Error while parsing flags from args ${goList(finalArgs)}: ${(err as Error).message}` };
  }
  const flagCompletion = !parsed.dashed;
  if (flagError !== undefined && flagCompletion) return { candidates: [], directive: Directive.Default, error: flagError };
  if (parsed.changed.has("help") || (!node.parent && version && parsed.changed.has("version"))) return { candidates: [], directive: Directive.NoFileComp };
  finalArgs = parsed.positional;

  if (!flag && toComplete.startsWith("-") && !toComplete.includes("=") && flagCompletion) {
    let candidates = requiredFlagCompletions(view, parsed, toComplete);
    if (candidates.length === 0) {
      const offer = (f: FlagDef) => (!parsed.changed.has(f.name) || f.type === "stringArray" ? flagNameCompletions(f, toComplete) : []);
      candidates = [...[...view.inherited].sort(byName).flatMap(offer), ...[...view.local].sort(byName).flatMap(offer)];
    }
    const noSpace = candidates.length === 1 && candidates[0]!.endsWith("=");
    return { candidates, directive: noSpace ? Directive.NoSpace : Directive.NoFileComp };
  }
  if (flag && flagCompletion) return { candidates: [], directive: Directive.Default }; // no value completion: the shell's default

  let directive: number = Directive.Default;
  const candidates: string[] = [];
  const localGiven = view.localNonPersistent.some((f) => parsed.changed.has(f.name));
  if (finalArgs.length === 0 && !localGiven) {
    candidates.push(...subcommandCompletions(node, toComplete));
    if (node.children.some((c) => c.available() || c.kind === "help")) directive = Directive.NoFileComp;
  }
  candidates.push(...requiredFlagCompletions(view, parsed, toComplete));
  // Cobra's own commands complete their arguments themselves: help names commands, completion takes none.
  if (node.kind === "help") {
    const target = findCommand(root, finalArgs);
    return { candidates: target ? [...candidates, ...subcommandCompletions(target.node, toComplete)] : candidates, directive: Directive.NoFileComp };
  }
  if (node.kind === "completion") return { candidates, directive: Directive.NoFileComp };
  return { candidates, directive };
}

/** Go's strings.TrimSpace (Unicode white space). */
const trimSpace = (s: string) => s.replace(/^[\s\u0085]+|[\s\u0085]+$/gu, "");

/** Cobra's __complete run: stdout (candidates, `:<directive>`) and stderr (errors, the directive's names). */
export function runComplete(root: CommandNode, args: readonly string[], opts: CompleteOptions): CompleteResult {
  const { candidates, directive, error } = completions(root, args, opts.version);
  let stderr = "";
  if (error !== undefined) {
    const message = `[Debug] [Error] ${error}\n`;
    const debugFile = opts.env["BASH_COMP_DEBUG_FILE"];
    if (debugFile) {
      try {
        appendFileSync(debugFile, message, { mode: 0o644 });
      } catch {
        // Cobra ignores a debug file it cannot open.
      }
    }
    stderr += message;
  }
  let noDescriptions = opts.noDescriptions;
  if (!noDescriptions) {
    const setting = descriptionsSetting(root.name, opts.env);
    if (setting !== undefined) noDescriptions = !setting;
  }
  let stdout = "";
  for (let c of candidates) {
    if (noDescriptions) c = c.split("\t")[0]!;
    stdout += trimSpace(c.split("\n")[0]!) + "\n";
  }
  stdout += `:${directive}\n`;
  stderr += `Completion ended with directive: ${directiveString(directive)}\n`;
  return { stdout, stderr };
}

/** <PROGRAM>_COMPLETION_DESCRIPTIONS, else COBRA_COMPLETION_DESCRIPTIONS, as Go's ParseBool reads it. */
function descriptionsSetting(program: string, env: Readonly<Record<string, string | undefined>>): boolean | undefined {
  const name = `${program}_COMPLETION_DESCRIPTIONS`.toUpperCase().replace(/[^A-Z0-9_]/g, "_");
  const value = env[name] || env["COBRA_COMPLETION_DESCRIPTIONS"] || "";
  return parseGoBool(value);
}
