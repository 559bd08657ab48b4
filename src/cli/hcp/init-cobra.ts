// `hcp init --from-cobra PROGRAM`: reads a CLI built with cobra (kubectl, docker, gh, helm…) from what it says of
// itself, its shell completion (`PROGRAM __complete PATH… ""`, what a shell runs on TAB) and each command's `--help`,
// and the command its root's help names for the flags of every command (kubectl's `options`, rclone's `help flags`),
// and describes it as a rungrad-agentmeta/1 document for the pack generator. Nothing else of the program is run.
//
// A completion's entries are a command's subcommands, or values of its operands (a dynamic completion may list
// pods or containers): an entry is a subcommand only when its own help's usage line names it as one. A command is
// completed only when its help lists subcommands: a leaf's completion is its operands' values, which a CLI may ask its
// server for (kubectl's cluster, gh's GitHub), once per command, for nothing. A command that runs has a flag's name
// completed instead (`PROGRAM __complete PATH… -`), which cobra answers from its own flags, to learn which it requires.
// Every call runs in an empty folder of its own, removed afterwards.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { AgentCommand, AgentMetaDocument } from "../../agentmeta/types.js";
import type { Flag } from "../../manifest/types.js";
import { parseCompletions, parseGlobalFlags, parseHelp, variablesNamed, type CobraHelp } from "../../pack/cobra-help.js";
import { opensBrowser, opensFile, runsProgram } from "../../pack/file-flags.js";
import { ExitCode } from "../../framework/errors.js";
import { CliError } from "../errors.js";
import { runNamedProgram } from "../input.js";
import { Limiter } from "../../runtime/limiter.js";
import { addTo, firstAndMore } from "../../listing.js";
import { BASE_ENV_NAMES } from "../../runtime/env.js";

const CALL_TIMEOUT_MS = 10_000;
const CALL_MAX_BYTES = 4 << 20;
/** How many of its processes run at once (in all), how deep and how many commands are read: a CLI of any size ends. */
const AT_ONCE = 8;
const MAX_DEPTH = 6;
const MAX_COMMANDS = 2000;
/** Commands of cobra itself, not of the CLI. */
const NOT_VERBS = new Set(["help", "completion"]);
/**
 * A command's last word that only reads; any other command is a write that a person approves (policy.json). rclone's
 * listings and sums, restic's snapshots and stats, etcdctl's endpoint health, podman's and docker's port, exists and
 * system df, buildah's containers (as images) among them; not `cat` (restic's prints the repository's master key),
 * `check` (etcdctl's `check perf` writes), nor `env` (kubectl's `set env` writes).
 */
const READS = new Set([
  "get", "list", "ls", "view", "show", "describe", "status", "inspect", "logs", "log", "top", "version", "explain", "search", "info", "history",
  "events", "ps", "images", "api-resources", "api-versions", "cluster-info", "current-context", "whoami", "diff", "checks",
  "lsd", "lsf", "lsl", "lsjson", "listremotes", "tree", "size", "about", "md5sum", "sha1sum", "hashsum", "snapshots", "stats", "health",
  "port", "exists", "df", "containers", "can-i",
]);
const READ_PREFIX = /^(get|list|show|describe|view)-/;
/**
 * A group whose commands only read, each named by what it reads (gh `search issues`, helm `search repo`, kubectl `top
 * pod`). Not `list` (hugo's `list drafts` reads, but a `list` group is as often one of lists: `list delete NAME`).
 */
const READ_GROUPS = new Set(["search", "top"]);
/**
 * A text that says a command or flag prints a secret (gh `auth status --show-token`, "Display the auth token"; kubectl
 * `config view --raw`, "Display raw byte data and sensitive data"; rclone `config show`, "Print (decrypted) config
 * file"; pulumi `stack output --show-secrets`, "Display outputs which are marked as secret in plaintext"): hcp cannot
 * mask the CLI's own credentials, which it never sees.
 */
const SHOWS_SECRET = /\b(tokens?|passwords?|passphrases?|credentials?|(sensitive|secrets?) (data|information|values?)|private keys?|decrypted|in plain ?text|unmasked|unredacted)\b/i;
/** A flag's name that says so (`--show-token`, `--reveal`, `--show-secrets`; not gh's `gist list --secret`, a filter). */
const SECRET_FLAG_NAME = /token|passw|credential|sensitive|reveal|unmask|unredact|(show|print|display|include|with)-?secret/i;

/**
 * A flag's text that says it copies into the output the files the output refers to (kubectl `config view --flatten`:
 * "Flatten the resulting kubeconfig file into self-contained output", the client's key and token inline).
 */
const INLINES_FILES = /\bself-contained\b/i;

/** Whether a flag, by its name or its text, may make a command print a secret, and how hcp init says so. */
function secretShown(f: Flag): string | undefined {
  if (INLINES_FILES.test(f.usage)) return "it copies into the output the files it refers to, keys and certificates among them";
  return SECRET_FLAG_NAME.test(f.name) || SHOWS_SECRET.test(f.usage) ? "it may print a secret" : undefined;
}

/** Whether a command, by its last word (or its group's), only reads. */
export function readsByName(path: readonly string[]): boolean {
  const last = path.at(-1) ?? "";
  return READS.has(last) || READ_PREFIX.test(last) || READ_GROUPS.has(path.at(-2) ?? "");
}

/**
 * The whole CLI's flags each command has, as it inherits them, and why the agent may choose them (a predicate of the
 * flag): they only narrow what a command acts on within what the CLI's configuration reaches (kubectl's and helm's
 * `--namespace`, lxc's `--project`, rclone's filters), only choose how it prints (restic's `--json`, etcdctl's `-w, --write-out`), or only
 * keep it from changing anything (rclone's `-n, --dry-run`). Never one that chooses where its requests go, as whom or
 * with which files (`--server`, `--context`, `--as`, `--token`, `--kubeconfig`, rclone's `--files-from` and `--config`):
 * the person's configuration does.
 */
interface VerbsGlobalFlag {
  /** Why the agent may choose it, as a predicate of the flag. */
  why: (cli: string) => string;
  /** Which commands have it, as hcp init says it ("each verb's"), and the test of one. */
  whose: string;
  to: (n: Node) => boolean;
}
const EVERY = { whose: "each verb's", to: () => true };
// Filters mean something only to a command given files: a verb with a path among its operands (rclone's `remote:path`).
const NARROWS_FILES = { why: () => "only narrows which files a command acts on", whose: "each verb's whose operands name a path", to: (n: Node) => /path/i.test(operandsOf(n)) };
const PRINTS = { why: () => "only chooses how a command prints", ...EVERY };
// kubectl's and helm's namespaces, lxc's projects: parts of what the person's configuration reaches.
const SCOPE = { why: (cli: string) => `only narrows what a command acts on, within what ${cli}'s configuration reaches`, ...EVERY };
const VERBS_GLOBAL_FLAGS = new Map<string, VerbsGlobalFlag>([
  ["namespace", SCOPE],
  ["project", SCOPE],
  ["json", PRINTS],
  ["write-out", PRINTS],
  ...["include", "exclude", "filter", "max-depth", "min-size", "max-size", "min-age", "max-age"].map((f) => [f, NARROWS_FILES] as const),
  // A read changes nothing already.
  ["dry-run", { why: () => "only keeps a command from changing anything", whose: "each write verb's", to: (n: Node) => !readsByName(n.path) }],
]);
/** Flags of every command that say nothing of the CLI's (cobra's `--help`, the root's `--version`). */
const NOT_THE_CLIS = new Set(["help", "version"]);

/** A usage line's bracketed words that only stand for flags: `[flags]`, `[OPTIONS]`, skopeo's `[command options]`. */
const FLAG_GROUP = /\[(?:(?:command|global)\s+)?(?:flags|options)\]/gi;
/** A usage line's bare word that only stands for flags. */
const NOT_OPERANDS = /^(flags|options)$/i;
/** A usage line's word for a subcommand: `[command]` (cobra), `SUBCOMMAND` (kubectl), `COMMAND` (docker), `<command>` (gh). */
const SUBCOMMAND = /^[[<]?(sub)?command[\]>]?$/i;

interface Node {
  path: string[];
  short: string;
  help: CobraHelp;
  /** The names of its subcommands. */
  children: string[];
  /** A group that runs only to print its help (printsOnlyHelp): no verb. */
  helpOnly?: boolean;
  /** The root of a CLI of commands that does something of its own (rootRunsItself): a verb. */
  runsItself?: boolean;
}

/** The program's own commands (its completion, a help), run at most AT_ONCE at a time, whoever asks. */
type Caller = (args: string[]) => Promise<{ stdout: string; stderr: string }>;

/**
 * A caller, and the calls that were killed at CALL_TIMEOUT_MS (what they would have said is missing from the pack). Each
 * runs in `cwd`, an empty folder of its own: a CLI's help may write where it runs (`hugo mod get --help` makes
 * `public/` and `resources/`), and the pack should not depend on the folder hcp init ran in.
 */
function caller(program: string, cwd: string): { call: Caller; timedOut: string[][] } {
  const slots = new Limiter(AT_ONCE);
  const timedOut: string[][] = [];
  const call: Caller = async (args) => {
    const r = await slots.run(() => runNamedProgram(program, args, { cwd, timeoutMs: CALL_TIMEOUT_MS, maxOutputBytes: CALL_MAX_BYTES }, ExitCode.API));
    if (r.timed_out) timedOut.push(args);
    return r;
  };
  return { call, timedOut };
}

/** A command's help: on stdout, as cobra prints it, or on stderr, where some CLIs print it. */
async function helpOf(call: Caller, path: readonly string[]): Promise<CobraHelp> {
  const r = await call([...path, "--help"]);
  return parseHelp(r.stdout.trim() !== "" ? r.stdout : r.stderr);
}

/** True when the usage line starts with the program's name and this path: the help is that command's own. */
function usageNames(help: CobraHelp, name: string, path: readonly string[]): boolean {
  const words = help.usage.split(/\s+/);
  return [name, ...path].every((w, i) => words[i] === w);
}

/**
 * Whether a command's usage line has a word for a subcommand (`kubectl config SUBCOMMAND`), or names its subcommands
 * as its operand (`kubectl create secret (docker-registry | generic | tls)`).
 */
function usageTakesSubcommand(n: Node): boolean {
  // `(use | rename)`, `[list]`, etcdctl's `<enable or disable>`: a word naming a subcommand, its brackets aside.
  return usageWords(n).some((w) => SUBCOMMAND.test(w) || n.children.includes(w.replace(/^[([{<]+|[)\]}>]+$/g, "")));
}

/**
 * The operands of a usage line: what follows the command's path, but for the words that stand for flags, and, in a
 * group's, for a subcommand. A command's own `COMMAND` is an operand: docker's `run IMAGE [COMMAND] [ARG...]`.
 */
function operandsOf(n: Node): string {
  return usageWords(n)
    .filter((w) => !(n.children.length > 0 && SUBCOMMAND.test(w)))
    .join(" ");
}

/**
 * The words of a command's usage line after its path, but for those that only stand for flags (a group of them is
 * left out whole: docker's `top CONTAINER [ps OPTIONS]` keeps `[ps OPTIONS]`, ps's options being its operands).
 */
function usageWords(n: Node): string[] {
  return n.help.usage
    .replace(FLAG_GROUP, " ")
    .trim()
    .split(/\s+/)
    .slice(1 + n.path.length)
    .filter((w) => w !== "" && !NOT_OPERANDS.test(w));
}

/** The program's command tree, read from its completion and help; refuses a program that does not answer as cobra does. */
export async function readCobraCli(program: string): Promise<{ doc: AgentMetaDocument; notes: string[] }> {
  const cwd = mkdtempSync(join(tmpdir(), "hcp-init-"));
  try {
    return await readCobraTree(program, cwd);
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/**
 * Gives a command the flags it inherits from a group (gh's `pr` gives each of its commands `--repo`) as its own, and those
 * of the whole CLI's (`wholeCli`: the root's, which its help shows, and `anyCommand`, kubectl's `options`, rclone's `help flags`) that are
 * VERBS_GLOBAL_FLAGS; not the whole CLI's others (a server, a config file, a token). Copies: a flag is one command's.
 * Records in `given` each of the whole CLI's it gave.
 */
function withInheritedFlags(n: Node, wholeCli: ReadonlySet<string>, anyCommand: readonly Flag[], given: Set<string>): void {
  const has = new Set(n.help.flags.map((f) => f.name));
  for (const f of [...n.help.inherited, ...anyCommand]) {
    const kind = VERBS_GLOBAL_FLAGS.get(f.name);
    if (has.has(f.name) || (wholeCli.has(f.name) && (kind === undefined || !kind.to(n)))) continue;
    has.add(f.name);
    n.help.flags.push({ ...f });
    if (kind !== undefined) given.add(f.name);
  }
}

/**
 * What hcp init says of the whole CLI's flags: the VERBS_GLOBAL_FLAGS it gave verbs (`given`), by why; those it could
 * give none (podman's `--namespace`: no command's help shows it, and nothing lists the flags every command takes); and
 * the others, which no verb has.
 */
function wholeCliNote(name: string, flags: ReadonlySet<string>, given: ReadonlySet<string>): string | undefined {
  const named = [...flags].filter((f) => !NOT_THE_CLIS.has(f)).sort();
  const byKind = new Map<VerbsGlobalFlag, string[]>();
  for (const f of named) {
    const kind = VERBS_GLOBAL_FLAGS.get(f);
    if (kind !== undefined && given.has(f)) addTo(byKind, kind, `--${f}`);
  }
  const unseen = named.filter((f) => VERBS_GLOBAL_FLAGS.has(f) && !given.has(f)).map((f) => `--${f}`);
  const others = named.filter((f) => !VERBS_GLOBAL_FLAGS.has(f)).map((f) => `--${f}`);
  const said = [
    ...[...byKind].map(([kind, flagged]) =>
      flagged.length === 1 ? `${name}'s global flag ${flagged[0]} is ${kind.whose} (it ${kind.why(name)})` : `${name}'s global flags ${flagged.join(", ")} are ${kind.whose} (each ${kind.why(name)})`,
    ),
    ...(unseen.length === 0 ? [] : [`${name}'s global ${unseen.length === 1 ? `flag ${unseen[0]} is` : `flags ${unseen.join(", ")} are`} no verb's: no command's help shows ${unseen.length === 1 ? "it" : "them"}, and ${name} names no command that lists the flags every command takes`]),
    ...(others.length === 0 ? [] : [`${byKind.size + unseen.length === 0 ? `${name}'s global flags` : "its other global flags"} (${firstAndMore(others, 4)}) are no verb's: ${name} runs as the person set it up (where its requests go, as whom, with which files); add one to a verb (its cli and args) yourself if the agent may choose it (again after each hcp init --force, which makes surface.json anew)`]),
  ];
  return said.length === 0 ? undefined : said.join("; ");
}

/**
 * What hcp init says of the variables the CLI's flags name (restic's `(default: $RESTIC_REPOSITORY)`): hcp passes a
 * program none but BASE_ENV_NAMES and policy.json's `env`, so without them restic has no repository.
 */
function variablesNote(name: string, flags: readonly Flag[]): string | undefined {
  const passed = new Set<string>(BASE_ENV_NAMES);
  // In the order of the flags: the whole CLI's first, which every command reads.
  const named = [...new Set(flags.flatMap((f) => variablesNamed(f.usage)))].filter((v) => !passed.has(v));
  if (named.length === 0) return undefined;
  const base = `${BASE_ENV_NAMES.slice(0, -1).join(", ")} and ${BASE_ENV_NAMES.at(-1)}`;
  return `${name}'s help names variables of its environment (${firstAndMore(named, 6)}): hcp runs it with ${base} only, so list in policy.json "env" those it needs from the environment hcp runs in`;
}

async function readCobraTree(program: string, cwd: string): Promise<{ doc: AgentMetaDocument; notes: string[] }> {
  const notes: string[] = [];
  const { call, timedOut } = caller(program, cwd);
  const rootHelp = await helpOf(call, []);
  const first = await call(["__complete", ""]);
  if (parseCompletions(first.stdout) === undefined) {
    throw new CliError(
      `${program} __complete: printed no shell completion (is it a CLI built with cobra, such as kubectl, docker, gh or helm?); for any other CLI, write its pack by hand: docs/packs.md, "Writing a pack by hand, for any other CLI"`,
      ExitCode.API,
    );
  }
  const name = rootHelp.usage.split(/\s+/)[0] || basename(program);
  const root: Node = { path: [], short: rootHelp.summary, help: rootHelp, children: [] };
  const nodes: Node[] = [root];
  let level: Node[] = [root];
  let truncated = false;
  /**
   * Commands its completion lists whose help names none of the program's commands (git-lfs's manual pages), but the one
   * that lists its global flags (kubectl's options).
   */
  const unread: string[][] = [];
  for (let depth = 0; depth < MAX_DEPTH && level.length > 0; depth++) {
    const found = await Promise.all(
      level.map(async (parent) => {
        if (parent !== root && !parent.help.listsCommands) return [];
        const answer = parent === root ? first : await call(["__complete", ...parent.path, ""]);
        const completions = parseCompletions(answer.stdout) ?? [];
        // Each once: a completion may list a command twice (mender-cli's lists them again without their descriptions).
        const candidates = completions.filter((c, i) => /^[A-Za-z0-9][\w.:-]*$/.test(c.name) && !NOT_VERBS.has(c.name) && completions.findIndex((o) => o.name === c.name) === i);
        const read = await Promise.all(
          candidates.map(async (c) => {
            const path = [...parent.path, c.name];
            const help = await helpOf(call, path);
            if (usageNames(help, name, path)) return { path, short: c.description, help, children: [] };
            // A help that names another of its commands is another's (an operand's value, an alias): this one's is no help.
            if (help.usage.split(/\s+/)[0] !== name && path.join(" ") !== rootHelp.globalFlagsCommand?.join(" ")) unread.push(path);
            return undefined;
          }),
        );
        const children = read.filter((n) => n !== undefined);
        parent.children = children.map((n) => n.path.at(-1)!);
        return children;
      }),
    );
    level = found.flat();
    if (nodes.length + level.length > MAX_COMMANDS) {
      level = level.slice(0, MAX_COMMANDS - nodes.length);
      truncated = true;
    }
    nodes.push(...level);
  }
  if (unread.length > 0) {
    const listed = quotedLines(name, unread.toSorted());
    const why = `${unread.length === 1 ? "its help does" : "the help of each does"} not read as cobra's (a Usage: line naming the command, flags under Flags: or Options:)`;
    // Nothing read but the root: a pack of it alone would be a verb that prints the root's help.
    if (nodes.length === 1) {
      throw new CliError(
        `${program}: its completion lists ${unread.length} ${unread.length === 1 ? "command" : "commands"} (${listed}), but ${why}, so hcp init --from-cobra cannot read ${unread.length === 1 ? "it" : "them"}; write its pack by hand: docs/packs.md, "Writing a pack by hand, for any other CLI"`,
        ExitCode.API,
      );
    }
    notes.push(`${unread.length} of the commands its completion lists ${unread.length === 1 ? "is" : "are"} no verb (${listed}): ${why}`);
  }
  const kept = withoutAliases(nodes, name, notes);
  const inherited = new Set(kept.flatMap((n) => n.help.inherited.map((f) => f.name)));
  root.runsItself = rootRunsItself(root, inherited);
  // Its flags its commands inherit are the whole CLI's, given to it as to them (not --config, where it reads from).
  if (root.runsItself) root.help = { ...rootHelp, flags: rootHelp.flags.filter((f) => !inherited.has(f.name)), inherited: [...rootHelp.inherited, ...rootHelp.flags.filter((f) => inherited.has(f.name))] };
  // Before the whole CLI's flags are given: a group's own flags say whether it does more than print its help.
  const helpOnly = kept.filter(printsOnlyHelp);
  for (const n of helpOnly) n.helpOnly = true;
  if (helpOnly.length > 0) {
    const listed = quotedLines(name, helpOnly.map((n) => n.path));
    const one = helpOnly.length === 1;
    notes.push(`${helpOnly.length} of its groups ${one ? "is" : "are"} no verb (${listed}): ${one ? "it takes" : "each takes"} no operand and no flag of its own, so a verb could only run ${one ? "it" : "one"} bare, which prints its help (or waits for answers at a terminal, as rclone's config); ${one ? "its" : "their"} commands are verbs`);
  }
  // Which flags a command requires, of its own: what its completion lists is compared with those.
  await Promise.all(kept.filter(runs).map((n) => markRequired(call, n)));
  const listing = rootHelp.globalFlagsCommand;
  const anyCommand = listing === undefined ? [] : parseGlobalFlags((await call(listing)).stdout);
  // A CLI of one command: its root's flags are that command's own (a root that runs itself: those it keeps).
  const cliFlags = [...(runs(root) ? [] : rootHelp.flags), ...root.help.inherited, ...anyCommand];
  const wholeCli = new Set(cliFlags.map((f) => f.name));
  const given = new Set<string>();
  for (const n of kept) withInheritedFlags(n, wholeCli, anyCommand, given);
  const everyFlag = [...cliFlags, ...kept.flatMap((n) => [...n.help.flags, ...n.help.inherited])];
  for (const said of [wholeCliNote(name, wholeCli, given), variablesNote(name, everyFlag)]) if (said !== undefined) notes.push(said);
  if (timedOut.length > 0) {
    const shown = timedOut.slice(0, 3).map((args) => `"${lineOf(name, args)}"`).join(", ");
    notes.push(`${timedOut.length} of its commands did not answer within ${CALL_TIMEOUT_MS / 1000} s and ${timedOut.length === 1 ? "was" : "were"} killed (${shown}${timedOut.length > 3 ? " and more" : ""}): what they would have said is not in the pack; run hcp init again once ${name} answers`);
  }
  if (truncated || level.length > 0) notes.push(`read ${nodes.length} commands: the CLI has more (deeper than ${MAX_DEPTH} words, or over ${MAX_COMMANDS} commands), left out`);
  const opening: Opening = new Map();
  const commands = kept.map((n) => commandOf(n, name, notes, opening));
  notes.push(...openingNotes(name, opening));
  return { doc: { schema_version: "rungrad-agentmeta/1", spec_version: "", tool_name: name, tool_version: "", global_flags: [], commands }, notes };
}

/**
 * The commands but those another one stands for: a command whose help's `Aliases:` names another command line first
 * (docker's `docker rm` is `docker container rm, docker container remove, docker rm`) is that command, one verb under
 * its first name, not two tools for one thing.
 */
function withoutAliases(nodes: readonly Node[], name: string, notes: string[]): Node[] {
  const lines = new Set(nodes.map((n) => lineOf(name, n.path)));
  const isAlias = (n: Node) => {
    const [first] = n.help.aliases;
    const own = lineOf(name, n.path);
    return n.children.length === 0 && first !== undefined && first !== own && n.help.aliases.includes(own) && lines.has(first);
  };
  const aliases = nodes.filter(isAlias);
  if (aliases.length > 0) {
    const shown = firstAndMore(aliases.map((n) => `"${n.path.join(" ")}" is "${n.help.aliases[0]!.slice(name.length + 1)}"`), 3);
    notes.push(`${aliases.length} of its commands ${aliases.length === 1 ? "is" : "are"} another's alias (their help's Aliases:), one verb each under its first name: ${shown}`);
  }
  const named = nodes.filter((n) => !isAlias(n));
  // podman's `attach` is its `container attach`, though neither's help says so: the same help under the same last word.
  const shortcuts = new Map<Node, Node>();
  const byHelp = new Map<string, Node[]>();
  for (const n of named.filter((m) => m.children.length === 0)) addTo(byHelp, helpKey(n), n);
  for (const same of byHelp.values()) {
    const longest = same.reduce((a, b) => (b.path.length > a.path.length ? b : a));
    for (const n of same) if (n.path.length < longest.path.length) shortcuts.set(n, longest);
  }
  if (shortcuts.size > 0) {
    const shown = firstAndMore([...shortcuts].map(([n, of]) => `"${n.path.join(" ")}" is "${of.path.join(" ")}"`), 3);
    notes.push(`${shortcuts.size} of its commands ${shortcuts.size === 1 ? "is a shortcut" : "are shortcuts"} of a group's command by the same name and with the same help (though no help names an alias), one verb each under the group's name: ${shown}`);
  }
  return named.filter((n) => !shortcuts.has(n));
}

/**
 * What makes two leaves one command under two names: their last word, what their completion and help say they do,
 * their operands and own flags (not the help's first line alone: lxc's is `Description:` for every command).
 */
function helpKey(n: Node): string {
  const flags = n.help.flags.map((f) => [f.name, f.shorthand, f.type, f.default, f.usage]).sort();
  return JSON.stringify([n.path.at(-1), n.short, n.help.summary, operandsOf(n), flags]);
}

/** The first three commands' lines, quoted, and how many more: `"lxc alias", "lxc cluster", "lxc config" and 22 more`. */
function quotedLines(name: string, paths: readonly (readonly string[])[]): string {
  return firstAndMore(paths.map((p) => `"${lineOf(name, p)}"`), 3);
}

/** A command's line as its help writes it: `docker container ls`. */
function lineOf(name: string, path: readonly string[]): string {
  return [name, ...path].join(" ");
}

/**
 * Whether a command runs: a leaf, the root of a CLI of one command among them (gdu's `gdu [directory_to_scan]`), or a
 * group whose usage line has no word for a subcommand (`kubectl apply -f FILENAME`, not `kubectl config SUBCOMMAND`) and
 * that does more than print its help. The root of a CLI of commands is no verb, its flags the whole CLI's, unless it
 * runs itself (hugo's, which builds the site).
 */
function runs(n: Node): boolean {
  if (n.children.length === 0) return true;
  return n.path.length === 0 ? n.runsItself === true : n.helpOnly !== true && !usageTakesSubcommand(n);
}

/**
 * Whether the root of a CLI of commands does something of its own: its usage line runs it (`hugo [flags]`, not podman's
 * `podman [options] [command]`) and it has flags none of its commands inherits (hugo's `--minify`, `--destination`:
 * it builds the site). rclone's and etcdctl's roots run too, but their flags are all their commands' as well: the
 * whole CLI's, and the root itself only prints its help. `inherited`: the names of the flags its commands inherit.
 */
function rootRunsItself(root: Node, inherited: ReadonlySet<string>): boolean {
  return root.children.length > 0 && !usageTakesSubcommand(root) && ownFlags(root).some((f) => f.name !== "help" && !inherited.has(f.name));
}

/** A command's own flags: the root's `--version` says nothing of what it does. */
function ownFlags(n: Node): Flag[] {
  return n.path.length === 0 ? n.help.flags.filter((f) => !NOT_THE_CLIS.has(f.name)) : n.help.flags;
}

/**
 * A group that cobra calls runnable but that takes no operand and no flag of its own, and whose name does not say it
 * reads: running it can only print its help (lxc's `network [flags]`, kubectl's `auth`, gh's `extension`), or start a
 * session a verb cannot answer (rclone's `config`). As a verb it would be a write a person approves, to see a help. A
 * group that reads by its name stays a verb (kubectl's `cluster-info` prints the cluster's addresses), but for one whose
 * commands are the reads (kubectl's `top`, gh's `search`), which itself only lists them.
 */
function printsOnlyHelp(n: Node): boolean {
  const name = n.path.at(-1) ?? "";
  return runs(n) && n.children.length > 0 && operandsOf(n) === "" && n.help.flags.every((f) => f.name === "help") && (!readsByName(n.path) || READ_GROUPS.has(name));
}

/**
 * The flags a command must be given, as its completion of a flag's name says: `PROGRAM __complete PATH… -` lists the
 * required flags not yet given, or every flag when there is none: `--help` among them, or, where the CLI hides its help
 * flag (docker), every flag of the command's own not yet given (a command all of whose flags are required is read as
 * one with none: wrongly optional, a flag costs a CLI's error; wrongly required, the verb cannot run). Cobra 1.8 lists
 * there also each flag of a group one of which is required (MarkFlagsOneRequired) while none of it is given; so, of two
 * or more listed, one is required only when it is still listed with any other of them given (a completion each). A
 * completion that fails (a value its flag does not parse) confirms none: a flag wrongly required would make the verb
 * impossible to run. Dynamic completions (a CLI's server) are never asked for: cobra answers a flag's name from its own flags.
 */
async function markRequired(call: Caller, n: Node): Promise<void> {
  if (n.help.flags.length === 0) return;
  const listed = await requiredNow(call, n);
  const candidates = n.help.flags.filter((f) => listed.has(f.name));
  if (candidates.length >= 2) {
    const withEach = await Promise.all(candidates.map((f) => requiredNow(call, n, f)));
    for (const f of candidates) f.required = candidates.every((other, i) => other === f || withEach[i]!.has(f.name));
  } else for (const f of candidates) f.required = true;
}

/**
 * The long names of the required flags a completion of a flag's name lists for command `n` (with flag `given` given);
 * none when it lists every flag (`--help`, or each of the command's own but `given`) or fails.
 */
async function requiredNow(call: Caller, n: Node, given?: Flag): Promise<Set<string>> {
  const r = await call(["__complete", ...n.path, ...(given === undefined ? [] : [givenFlag(given)]), "-"]);
  const names = new Set((parseCompletions(r.stdout) ?? []).map((c) => c.name).filter((c) => c.startsWith("--")).map((c) => c.slice(2)));
  const everyOwn = n.help.flags.every((f) => f === given || f.name === "help" || names.has(f.name));
  return names.has("help") || everyOwn ? new Set() : names;
}

/** A flag as given with a value its type parses (a bool without one), for a completion that sees it given. */
function givenFlag(f: Flag): string {
  if (f.type === "bool") return `--${f.name}`;
  if (/^(u?int|float)/.test(f.type)) return `--${f.name}=1`;
  if (f.type === "duration") return `--${f.name}=1s`;
  if (f.type.startsWith("stringTo")) return `--${f.name}=a=1`;
  return `--${f.name}=x`;
}

/**
 * A command as the pack generator reads it: one that runs has its operands as one optional list after `--` (their
 * names as its usage line gives them, in its description) and its own flags, and is a write unless its name says it reads.
 */
function commandOf(n: Node, name: string, notes: string[], opening: Opening): AgentCommand {
  const running = runs(n);
  const operands = running ? operandsOf(n) : "";
  const line = lineOf(name, n.path);
  const summary = n.short !== "" ? n.short : n.help.summary;
  const byName = running && readsByName(n.path);
  const notRead = byName ? whyNotRead(n) : undefined;
  if (notRead !== undefined) notes.push(`command "${line}" is a write that a person approves, not a read: ${notRead}`);
  const mutates = running && (!byName || notRead !== undefined);
  const once = running && !mutates ? streamingOff(n) : undefined;
  // The agent reads this description: a read pinned to print once says so (docker's stats "Display a live stream…").
  const short = once === undefined ? summary : `${summary.replace(/\.$/, "")} (printed once: the verb gives ${once.given})`;
  if (once !== undefined) {
    notes.push(`flag --${once.flag.name} ("${once.flag.usage}") always given to its read verb "${line}", as ${once.given}: without it the command prints until it is stopped, so a call would end only at its timeout; take ${once.given} out of the verb's cli in surface.json if the agent should watch it, with the timeout_ms such a call may take`);
  }
  return {
    path: n.path,
    use: n.help.usage,
    short: operands === "" ? short : `${short.replace(/\.$/, "")} (operands, in args: ${operands})`,
    examples: [],
    related: [],
    // A group that runs says so to the generator as one with output of its own does.
    output_modes: running && n.children.length > 0 ? ["text"] : [],
    local_flags: running && !mutates ? flagsOfRead(n, notes, opening).filter((f) => f !== once?.flag) : ownFlags(n),
    required_local_flags: [],
    requires_auth: false,
    mutates,
    supports_dry_run: false,
    destructive: false,
    requires_confirmation: false,
    supports_meta: false,
    is_root: n.path.length === 0,
    has_children: n.children.length > 0,
    command_template: line,
    // A word of the usage line that is no operand is given as written: the switch that stops streaming.
    usage_template: [line, once?.given, operands === "" ? undefined : "[args...]"].filter((w) => w !== undefined).join(" "),
    machine_usage_template: "",
    dry_run_usage_template: "",
    confirmation_note: "",
  };
}

/**
 * A group of the CLI's own configuration, whose `get KEY` prints the value of any key the agent names: there a CLI
 * may keep its credentials (gh's and glab's `config get oauth_token`/`token`, pulumi's `config get` of a secret).
 */
const CONFIG_GROUP = /^config(uration)?$/;

/**
 * A name of credentials: a group whose reads print them (doctl's `kubernetes cluster kubeconfig show`, k3d's
 * `kubeconfig get`: a cluster's token and keys), or what a read's name says it gets (kubelogin's `get-token`).
 */
const CREDENTIALS = /^(kubeconfigs?|credentials?|tokens?|passwords?|api-?keys?)$/;
/**
 * A help's words that say the command changes something, whatever its name: rclone's `test info`, "It will write test
 * files into the remote:path passed in" (and "this can create undeletable files").
 */
const SAYS_IT_WRITES = /\b(will|may|can|does) (also )?(write|create|delete|overwrite|modify|upload)\b/i;

/**
 * Why a command its name calls a read is a write a person approves, as hcp init says it; undefined when it reads. Its
 * help says it prints a secret (rclone `config show`: "Print (decrypted) config file", OAuth tokens and all); it or
 * its group is named for credentials; it prints the value of the configuration key the agent names (`gh config get
 * KEY`); its help says it writes.
 */
function whyNotRead(n: Node): string | undefined {
  const said = [n.short, n.help.summary].find((t) => SHOWS_SECRET.test(t));
  if (said !== undefined) return `its help says it may print a secret ("${said}"), which hcp cannot mask; make it a read in policy.json if the agent may see it`;
  // Its groups' names, and what its own name gets after `get-`, `show-`… (`get-access-token`: access-token, token).
  const gets = (n.path.at(-1) ?? "").split("-").slice(1);
  const named = [...n.path.slice(0, -1), gets.join("-"), ...gets].find((w) => CREDENTIALS.test(w));
  if (named !== undefined) return `what it prints is "${named}" (a cluster's token and keys, a password), which hcp cannot mask; make it a read in policy.json if the agent may see it`;
  if (n.path.at(-1) === "get" && CONFIG_GROUP.test(n.path.at(-2) ?? "")) {
    return "it prints the value of any key of the configuration the agent names, and a CLI may keep its credentials there (gh config get oauth_token prints gh's token), which hcp cannot mask; make it a read in policy.json if the agent may see them";
  }
  const writes = SAYS_IT_WRITES.exec(n.help.description);
  if (writes !== null) return `its help says it changes things ("${sentenceAround(n.help.description, writes.index)}"); make it a read in policy.json if it does not`;
  // A flag its usage line asks for that a read leaves out (kubectl's `diff -f FILENAME`): as a read it could never run.
  for (const word of usageWords(n).filter((w) => /^-[\w-]/.test(w))) {
    const name = word.replace(/^-+/, "").replace(/[=[].*$/, "");
    const flag = ownFlags(n).find((f) => (word.startsWith("--") ? f.name === name : f.shorthand === name));
    if (flag !== undefined && whyLeftOut(flag) !== undefined) {
      return `its usage line asks for ${word} (--${flag.name}), which a read leaves out (the agent would choose what it opens), so as a read it could never run; as a write it keeps the flag`;
    }
  }
  return undefined;
}

/** The sentence of `text` that holds the character at `at`. */
function sentenceAround(text: string, at: number): string {
  const start = text.slice(0, at).search(/[^.!?]*$/);
  const end = text.slice(at).search(/[.!?](\s|$)/);
  return text.slice(start, end < 0 ? undefined : at + end + 1).trim();
}

/**
 * A read's flags but those that say they print a secret, and those whose value is a file, folder or URL the command
 * opens, a program it runs or the person's browser it starts (`opening`, by flag: kubectl's `--filename`, rclone's
 * `--output-file`, gh's `--web`): a read runs without a person, the CLI's own secrets (its token, the cluster's keys)
 * are not hcp's to mask, and the agent would choose which of the person's files the command prints or overwrites, or
 * what it runs; and a switch that makes it print until stopped (`--follow`, `--watch`), whose call ends only at its
 * timeout. A write keeps them: a person approves each of its runs.
 */
function flagsOfRead(n: Node, notes: string[], opening: Opening): Flag[] {
  return ownFlags(n).filter((f) => {
    const why = whyLeftOut(f);
    if (why !== undefined) {
      addTo(opening, f.name, { flag: f, why, read: n });
      return false;
    }
    const shown = secretShown(f);
    if (shown === undefined) return true;
    notes.push(`flag --${f.name} of "${n.path.join(" ")}" left out of its read verb: ${shown} ("${f.usage}"), which hcp cannot mask; add it to the verb yourself, or make the verb a write that a person approves, if the agent may see it`);
    return false;
  });
}

/** What hcp init tells the person they can do with a flag left out of a read for what the agent would choose by it. */
const UNLESS_PERSON = "add it to a verb yourself, or make the verb a write that a person approves, if the agent may";

/**
 * Why a read leaves a flag out, as hcp init says it, with what the person can do: its value is a file, folder, URL or
 * program, it starts a browser, or it makes the command print until stopped; undefined when none.
 */
function whyLeftOut(f: Flag): string | undefined {
  if (opensFile(f)) return `its value is a file, folder or URL the command opens, and a read runs without a person, so the agent would choose which of your files it prints or writes; ${UNLESS_PERSON}`;
  if (runsProgram(f)) return `its value is a program the command runs, and a read runs without a person, so the agent would choose what runs as you; ${UNLESS_PERSON}`;
  if (opensBrowser(f)) return `it makes the command start your web browser, and a read runs without a person, so the agent would choose what your browser opens; ${UNLESS_PERSON}`;
  if (streamsUntilStopped(f)) {
    return "it makes the command go on printing until it is stopped, so a call would end only at its timeout, holding one of the pack's calls at once (limits.concurrency) until then; add it to a verb yourself, with the timeout_ms such a call may take";
  }
  return undefined;
}

/**
 * A switch, off unless given, that makes a command print until it is stopped: kubectl's `logs --follow` ("Specify if
 * the logs should be streamed") and `get --watch`/`--watch-only`, docker's `logs --follow` ("Follow log output"), gh's
 * `pr checks --watch`; or a `--watch` or `--follow` that takes an interval, unset by default (podman's `ps --watch uint`,
 * "Watch the ps output on an interval in seconds"). Not one on by default (kubectl's `rollout status --watch`, which
 * ends when the rollout does: left out, it could not be turned off), nor one that turns streaming off (docker's
 * `stats --no-stream`).
 */
function streamsUntilStopped(f: Flag): boolean {
  if (f.type !== "bool") return /^(follow|watch)$/.test(f.name) && /^(0s?)?$/.test(f.default);
  return f.default !== "true" && (/^(follow|watch|watch-only)$/.test(f.name) || /^(follow|watch|stream)\b/i.test(f.usage));
}

/**
 * The switch that makes a read that streams by default print once, and how it is given: docker's and podman's `stats
 * --no-stream` ("Disable streaming stats and only pull the first result"), podman's `events --stream` (on by default):
 * without it the call ends only at its timeout, with what came until then.
 */
function streamingOff(n: Node): { flag: Flag; given: string } | undefined {
  for (const flag of ownFlags(n)) {
    if (flag.type !== "bool") continue;
    if (flag.name === "no-stream" && flag.default !== "true") return { flag, given: "--no-stream" };
    if (flag.name === "stream" && flag.default === "true") return { flag, given: "--stream=false" };
  }
  return undefined;
}

/** The flags flagsOfRead left out (whyLeftOut), by name: each read that had one, with the flag as it had it. */
type Opening = Map<string, { flag: Flag; why: string; read: Node }[]>;

/** What hcp init says of them: one note each, in the words of the first read that had it. */
function openingNotes(name: string, opening: Opening): string[] {
  return [...opening.values()].map((uses) => {
    const { flag, why } = uses[0]!;
    const which = uses.length === 1 ? `its read verb ${quotedLines(name, [uses[0]!.read.path])}` : `the read verbs ${quotedLines(name, uses.map((u) => u.read.path))}`;
    return `flag --${flag.name} ("${flag.usage}") left out of ${which}: ${why}`;
  });
}
