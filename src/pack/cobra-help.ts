// What a cobra CLI says of itself (hcp init --from-cobra): the entries of its shell completion (`PROGRAM __complete
// PATH… ""`), and, from a command's `--help`, its usage line, its summary, its own flags (pflag's layout, kubectl's
// `--name=default:` and etcdctl's `--name=default<tab>text`), its inherited flags, whether it lists subcommands, and
// its aliases; the flags of every command that kubectl and rclone list apart (`kubectl options`, `rclone help flags`);
// the variables a flag's text names. Pure.

import type { Flag } from "../manifest/types.js";

/** One entry of a completion: a name and its description. */
export interface Completion {
  name: string;
  description: string;
}

/** `__complete`'s answer: one entry a line (name, tab, description), then `:DIRECTIVE`. Undefined when it is not that. */
export function parseCompletions(text: string): Completion[] | undefined {
  const lines = text.split("\n").filter((l) => l !== "");
  if (lines.length === 0 || !/^:\d+$/.test(lines.at(-1)!)) return undefined;
  return lines
    .slice(0, -1)
    .filter((l) => !l.startsWith("_activeHelp_"))
    .map((l) => {
      const tab = l.indexOf("\t");
      return tab < 0 ? { name: l, description: "" } : { name: l.slice(0, tab), description: l.slice(tab + 1).trim() };
    });
}

/** What a command's help says: its usage line, the first line of its text, its own flags, its subcommands' heading, its aliases. */
export interface CobraHelp {
  /** `docker container rm [OPTIONS] CONTAINER [CONTAINER...]`; "" when the help has none. */
  usage: string;
  /** The first line of the text that is not the usage. */
  summary: string;
  /**
   * The text from the summary to the next heading, on one line (rclone's `test info`: "… It will write test files into
   * the remote:path passed in.").
   */
  description: string;
  flags: Flag[];
  /**
   * Its inherited flags (`Global Flags:`, cobra; `INHERITED FLAGS`, gh; `Global Options:`, docker): the root's, which
   * are the whole CLI's (a server, a config file, a token), and a group's (gh's `pr --repo`), which are its commands'.
   */
  inherited: Flag[];
  /** A heading of subcommands: `Available Commands:` (cobra, kubectl), `Commands:` (docker), `AVAILABLE COMMANDS` (gh). */
  listsCommands: boolean;
  /** The `Aliases:` section's entries: names (cobra's `rm, remove`) or whole command lines (docker's `docker container rm, docker rm`). */
  aliases: string[];
  /**
   * The command of its own it sends the reader to for the flags of every command, as words after the program's name:
   * `["options"]` (`Use "kubectl options" for a list of global command-line options`), `["help", "flags"]` (`Use "rclone
   * help flags" for to see the global flags.`); undefined when it names none.
   */
  globalFlagsCommand: string[] | undefined;
}

export function parseHelp(text: string): CobraHelp {
  const lines = text.replaceAll("\r", "").split("\n");
  const at = summaryAt(lines);
  return {
    usage: usageLine(lines),
    summary: at < 0 ? "" : summaryFrom(lines, at),
    description: descriptionFrom(lines, at),
    flags: flagsIn(lines, OWN_FLAGS),
    inherited: flagsIn(lines, INHERITED_FLAGS),
    listsCommands: lines.some(isCommandsHeading),
    aliases: aliasesOf(lines),
    globalFlagsCommand: globalFlagsCommandOf(lines),
  };
}

/**
 * A help's line naming the command that lists the flags of every command: kubectl's `Use "kubectl options" for a list of
 * global command-line options (applies to all commands).`, rclone's `Use "rclone help flags" for to see the global flags.`
 * hcp init runs the command: only these sentences name one, and only one that ends in `options` or `flags` (a help's
 * `Use "tool config reset" for a clean global configuration` names a command that changes things).
 */
const GLOBAL_FLAGS_COMMAND = /^Use "\S+ ((?:[a-z][a-z-]* )?(?:options|flags))" (?:for a list of global command-line options|for to see the global flags|to see the global flags)\b/;
/** What `kubectl options` prints above them: `The following options can be passed to any command:`. */
const GLOBAL_OPTIONS = /^The following options can be passed to any command:?\s*$/i;

function globalFlagsCommandOf(lines: readonly string[]): string[] | undefined {
  for (const line of lines) {
    const m = GLOBAL_FLAGS_COMMAND.exec(line);
    if (m !== null) return m[1]!.split(" ");
  }
  return undefined;
}

/**
 * The flags of every command, as the command a help names for them lists them: `kubectl options` (kubectl's layout,
 * under `The following options can be passed to any command:`) or `rclone help flags` (a help whose `Global Flags:` are they).
 */
export function parseGlobalFlags(text: string): Flag[] {
  const lines = text.replaceAll("\r", "").split("\n");
  return lines.some((l) => GLOBAL_OPTIONS.test(l)) ? flagsIn(lines, GLOBAL_OPTIONS) : flagsIn(lines, INHERITED_FLAGS);
}

/**
 * Variables of its environment a flag's text says the CLI reads: `(default: $RESTIC_REPOSITORY)` (restic),
 * `${XDG_RUNTIME_DIR}/containers/auth.json`, `overrides DOCKER_HOST env var` (docker), `Use REGISTRY_AUTH_FILE
 * environment variable` (skopeo), `the environment variable KUBECONFIG`.
 */
const NAMED_VARIABLE = /\$\{?([A-Z][A-Z0-9_]{2,})\b|\b([A-Z][A-Z0-9_]{2,}) env(?:ironment)? var|\benv(?:ironment)? var(?:iable)?s? \$?([A-Z][A-Z0-9_]{2,})\b/g;

/** The variables a text names, as NAMED_VARIABLE finds them, in order. */
export function variablesNamed(text: string): string[] {
  return [...text.matchAll(NAMED_VARIABLE)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

function aliasesOf(lines: readonly string[]): string[] {
  const at = lines.findIndex((l) => /^aliases:?\s*$/i.test(l));
  const entries = at < 0 ? undefined : lines[at + 1];
  if (entries === undefined || !/^\s/.test(entries)) return [];
  return entries.split(",").map((e) => e.trim()).filter((e) => e !== "");
}

/** A line at the margin that names commands and ends with a colon or is upper case (a summary such as gh's "List installed extension commands" is neither). */
function isCommandsHeading(line: string): boolean {
  const l = line.trimEnd();
  return /^\S/.test(l) && /\b(sub)?commands\b/i.test(l) && (l.endsWith(":") || l === l.toUpperCase());
}

/** The usage heading: `Usage:` (cobra, kubectl), `Usage:  docker ps [OPTIONS]` (docker), `USAGE` (gh). */
const USAGE = /^usage(?::\s*(.*))?$/i;

/** The usage line: on the heading's line, or the line under it. */
function usageLine(lines: readonly string[]): string {
  const at = lines.findIndex((l) => USAGE.test(l.trim()));
  if (at < 0) return "";
  const rest = USAGE.exec(lines[at]!.trim())![1]?.trim() ?? "";
  if (rest !== "") return rest;
  return lines.slice(at + 1).find((l) => l.trim() !== "")?.trim() ?? "";
}

/** A heading of its own: lxc's help starts with `Description:`, its text on the lines under it. */
const HEADING = /^[A-Z][A-Za-z ]*:$/;

/** Where the help's first line of text is that is neither the usage line nor a heading; -1 when there is none. */
function summaryAt(lines: readonly string[]): number {
  let afterUsage = false;
  for (const [i, line] of lines.entries()) {
    const l = line.trim();
    const usage = USAGE.exec(l);
    if (usage !== null) {
      afterUsage = (usage[1] ?? "").trim() === "";
      continue;
    }
    if (l === "" || HEADING.test(l)) continue;
    if (afterUsage) {
      afterUsage = false;
      continue;
    }
    return i;
  }
  return -1;
}

/**
 * A heading at the margin, of three words at most: `Usage:`, `Global Flags:` (cobra, kubectl, docker), `USAGE`,
 * `INHERITED FLAGS` (gh), `OPTIONS:` (etcdctl).
 */
const SECTION = /^([A-Z][a-z]+( [A-Za-z]+){0,2}:(\s.*)?|[A-Z]+( [A-Z]+){0,2}:?)$/;

/**
 * The summary line (at `start`), with the lines its sentence runs on to when the help wraps it (restic's "… revisions of
 * files and" / "directories in an encrypted repository …"): up to a line that ends one, a blank line or a heading.
 */
function summaryFrom(lines: readonly string[], start: number): string {
  let text = lines[start]!.trim();
  for (let i = start + 1; i < lines.length && !/[.!?:]$/.test(text); i++) {
    const next = lines[i]!.trim();
    if (next === "" || SECTION.test(lines[i]!.trimEnd()) || USAGE.test(next)) break;
    text = `${text} ${next}`;
  }
  return text;
}

/** The summary line (at `start`) and the lines after it up to the next heading, as one line. */
function descriptionFrom(lines: readonly string[], start: number): string {
  if (start < 0) return "";
  const end = lines.findIndex((l, i) => i > start && SECTION.test(l.trimEnd()));
  return lines.slice(start, end < 0 ? undefined : end).map((l) => l.trim()).filter((l) => l !== "").join(" ");
}

/** The heading of a command's own flags: `Flags:` (cobra), `Options:` (kubectl, docker), `FLAGS` (gh). */
const OWN_FLAGS = /^(flags|options):?\s*$/i;
/** The heading of its inherited flags: `Global Flags:` (cobra), `INHERITED FLAGS` (gh), `Global Options:` (docker's root). */
const INHERITED_FLAGS = /^(global|inherited) (flags|options):?\s*$/i;

/** The lines of the section under `heading`. */
function flagSection(lines: readonly string[], heading: RegExp): string[] {
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && /^\S/.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/**
 * pflag: `  -n, --last int   Show n last created containers (default -1)`; a bool flag has no type word, and a flag
 * may name its value as it likes (`-R, --repo [HOST/]OWNER/REPO`), in words when its text quotes them (rclone's
 * `--vfs-used-is-size rclone size   Use the rclone size algorithm`, from "Use the `rclone size` algorithm").
 */
const PFLAG = /^\s+(?:-(\S), )?--([A-Za-z0-9][\w.-]*)(?:\[=[^\]]*\])?(?: (\S+(?: \S+)*?))?(?:\s{2,}(.*))?$/;
/** kubectl: `    -o, --output='yaml':`, its text on the lines under it. */
const KUBECTL = /^\s+(?:-(\S), )?--([A-Za-z0-9][\w.-]*)=(.*):$/;
/**
 * etcdctl: `      --limit=0\t\t\tMaximum number of results`, `  -w, --write-out="simple"\t\tset the output format`,
 * `      --prefix[=false]\tGet keys with matching prefix`: the default after `=` (a bool's in brackets), tabs, its text.
 */
const ETCDCTL = /^\s+(?:-(\S), )?--([A-Za-z0-9][\w.-]*)(?:\[=([^\]]*)\]|=(\S*))\t+(.*)$/;

function flagsIn(lines: readonly string[], heading: RegExp): Flag[] {
  const flags: Flag[] = [];
  let last: Flag | undefined;
  let kubectlStyle = false;
  for (const line of flagSection(lines, heading)) {
    // A flag with no long name: not one an argument can be made for.
    if (/^\s+-[^-\s](?:\s|$)/.test(line) && !/^\s+-\S, --/.test(line)) {
      last = undefined;
      continue;
    }
    const k = KUBECTL.exec(line);
    const e = k === null ? ETCDCTL.exec(line) : null;
    const p = k === null && e === null ? PFLAG.exec(line) : null;
    if (k !== null) {
      kubectlStyle = true;
      last = { name: k[2]!, shorthand: k[1] ?? "", usage: "", default: unquote(k[3]!), type: typeOfDefault(k[3]!), required: false };
    } else if (e !== null) {
      const value = e[3] ?? e[4]!;
      last = { name: e[2]!, shorthand: e[1] ?? "", usage: e[5]!.trim(), default: unquote(value), type: typeOfDefault(value), required: false };
    } else if (p !== null && !kubectlStyle) {
      last = { name: p[2]!, shorthand: p[1] ?? "", usage: (p[4] ?? "").trim(), default: "", type: pflagType(p[3]), required: false };
    } else {
      // A line of the last flag's text (kubectl's all are; pflag's long ones wrap).
      if (last !== undefined && line.trim() !== "") last.usage = `${last.usage} ${line.trim()}`.trim();
      continue;
    }
    if (last.name !== "help") flags.push(last);
  }
  for (const f of flags) {
    if (takesText(f.type) && REPEATABLE.test(f.usage)) f.type = "stringArray";
    if (kubectlStyle) continue;
    const d = /\s*\(default (.*)\)$/.exec(f.usage);
    // pflag's `(default -1)`, `(default "table")`; a text of the usage's own (`(default shows just running)`) stays.
    if (d !== null && /^(-?[\d.]+|true|false|".*"|\[.*\]|\S+)$/.test(d[1]!) && (f.type !== "bool" || /^(true|false)$/.test(d[1]!))) {
      f.default = unquote(d[1]!);
      f.usage = f.usage.slice(0, d.index);
    }
  }
  return flags;
}

/**
 * Type words of a flag given once per value, each adding one: pflag's slices and arrays (`strings`, `ints`,
 * `stringArray`, `intSlice`) and maps (`stringToString`: `--label a=1 --label b=2`), docker's `list` (`--env`,
 * `--volume`, `--publish`), `map` and `filter`.
 */
const LIST_TYPE = /^(bools|durations|(float|int|uint)(8|16|32|64)?s|\w+Slice|\w+Array|stringTo\w+|list|map|filter)$/;
/** A flag's text that says it may be given more than once (restic's `--tag taglist`: "(can be specified multiple times)"). */
const REPEATABLE = /\b(can|may) be (specified|given|used|passed|set) (multiple|several|many) times\b|\b(can|may) be repeated\b|\brepeatable\b/i;

/** pflag's type word as the manifest's type name: none is a bool; `strings` is a string slice, any other list a string array; `float` (pflag's word for float64) a float64. */
function pflagType(word: string | undefined): string {
  if (word === undefined) return "bool";
  // Words its text quoted (pflag's UnquoteUsage): no type said, a bool's or a string's; as text, either runs.
  if (word.includes(" ")) return "string";
  if (word === "strings") return "stringSlice";
  if (LIST_TYPE.test(word)) return "stringArray";
  if (word === "float") return "float64";
  // pflag's type word is the name its usage quotes (restic's "keep the last `n` snapshots"): a count, which a CLI
  // may also take as a word (restic's `unlimited`).
  if (COUNT_WORD.test(word)) return COUNT_OR_TEXT;
  return word;
}

const COUNT_WORD = /^(n|num|number|count)$/i;
/** The type of a flag whose usage names its value a count: an integer, or text. */
export const COUNT_OR_TEXT = "countOrText";

/** Whether a flag of this type takes one value that is text (not a bool, a number or a list). */
function takesText(type: string): boolean {
  return !["bool", "stringSlice", "stringArray", "float64", "float32"].includes(type) && !/^u?int\d*$/.test(type);
}

/** kubectl and etcdctl print a flag's default as Go does: `false`, `'text'`, `"text"`, `500`, `[]`, `0s`. */
function typeOfDefault(d: string): string {
  if (d === "true" || d === "false") return "bool";
  if (/^-?\d+$/.test(d)) return "int";
  if (/^-?\d+\.\d+$/.test(d)) return "float64";
  if (d.startsWith("[") && d.endsWith("]")) return "stringSlice";
  return "string";
}

function unquote(d: string): string {
  if (d.length >= 2 && ((d.startsWith("'") && d.endsWith("'")) || (d.startsWith('"') && d.endsWith('"')))) return d.slice(1, -1);
  return d === "[]" ? "" : d;
}
