// What a person is shown before trusting a pack (`hcp trust`, and `hcp run`'s terminal prompt):
// what the pack is (id, real folder, binding, the credentials it reads), what it does (each verb's program
// and argv template, or method and URL) and what the trust binds (the folder's files, each program outside it;
// programs found on PATH are said to be unbound), then, last, by the prompt, what policy.json lets run without a
// person and each program the verbs run (or where an API's requests go) with the verbs that run it. Control, bidi and
// invisible characters are escaped as in plans, and every other character outside ASCII too (look-alikes).

import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { POLICY_CLASSES, passThroughPolicy, policyClasses, type PolicyClass } from "../../pack/policy.js";
import type { LoadedPack, Surface } from "../../pack/types.js";
import { escapeForPerson } from "../approval/show.js";
import { bindingLoadsCredentials, credentialFilePath, readCredentialFile } from "../secrets/credentials.js";
import { boundVerb } from "../openapi/packs.js";
import { baseUrlOf } from "../openapi/request.js";
import type { ProgramBinding } from "./pack-programs.js";
import { resolveProgram } from "../resolve.js";
import type { PackBinding, TrustRecord } from "./trust.js";
import { commandOf } from "../verb-lookup.js";
import { workingFolder } from "../command.js";
import { addTo, firstAndMore } from "../../listing.js";

type Env = Readonly<Record<string, string | undefined>>;

/**
 * As a plan escapes text for a person, and every character outside ASCII too: a look-alike (Cyrillic `а`, Armenian
 * `ս` for `u`) in a program's or a file's name must not pass for the name the person reads.
 */
const shown = (text: string) => escapeForPerson(text).replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`);

const quoted = (items: readonly string[]) => `[${items.map((a) => shown(JSON.stringify(a))).join(", ")}]`;
const why = (err: unknown) => shown(err instanceof Error ? err.message : String(err));

/** The names the pack's credentials are read under: policy.json `credentials` for the keyring, the family's entries in the credential file. */
function credentialNames(pack: LoadedPack, surface: Surface, env: Env): string {
  if (!bindingLoadsCredentials(surface.binding)) return "none (it reads no credentials; what it runs still runs as you)";
  const family = surface.binding?.family ?? surface.id;
  if (surface.binding?.hub === "keyring") {
    const names = pack.policy?.credentials ?? [];
    return `the keyring entries ${quoted(names)} of service ${shown(JSON.stringify(`hcp:${family}`))}`;
  }
  const file = credentialFilePath(env);
  let names: string;
  try {
    const entry = readCredentialFile(file)?.[family];
    const of = (k: string) => {
      const v = entry !== null && typeof entry === "object" ? (entry as Record<string, unknown>)[k] : undefined;
      return v !== null && typeof v === "object" ? Object.keys(v) : [];
    };
    names = entry === undefined ? "none stored yet" : `variables ${quoted(of("env"))}, security schemes ${quoted(of("openapi"))}`;
  } catch (err) {
    names = `cannot be read: ${why(err)}`;
  }
  return `every value of family ${shown(JSON.stringify(family))} in ${shown(file)} (${names})`;
}

/** How the trust binds a program, after its path. */
function boundAs(b: ProgramBinding | undefined): string {
  if (b === undefined) return "";
  if (b.where === "pack") return " (in the pack folder: bound with it)";
  if (b.where === "path") return " (found on PATH: NOT bound, a change to it is not noticed)";
  return b.sha256 === null ? " (outside the pack folder; it does not exist: bound as absent)" : ` (outside the pack folder: bound by its sha256 ${b.sha256})`;
}

/**
 * A script's `#!` line (its first 256 bytes at most), else undefined: a bound script still runs an interpreter the
 * trust does not bind (found on PATH, or `env` finding it there), which the person must be told, not left to infer.
 */
function shebangOf(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK); // a FIFO never blocks the review
    if (!fstatSync(fd).isFile()) return undefined;
    const head = Buffer.alloc(256);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString("utf8");
    return text.startsWith("#!") ? text.split("\n", 1)[0]!.trimEnd() : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** For a bound script, that its `#!` interpreter is not bound; nothing for a binary or an unbound program. */
function interpreterNote(file: string, b: ProgramBinding | undefined): string {
  if (b === undefined || b.where === "path" || (b.where !== "pack" && b.sha256 === null)) return "";
  const line = shebangOf(file);
  return line === undefined ? "" : `; a script: its interpreter (${shown(JSON.stringify(line))}) is NOT bound, nor what the script reads or imports outside the pack folder`;
}

/** One entry of the folder as the review lists it. */
function entryLine([path, value]: [string, string]): string {
  const name = shown(JSON.stringify(path));
  if (value === "d") return `    ${name}/`;
  if (value.startsWith("l:")) return `    ${name} -> ${shown(JSON.stringify(value.slice(2)))} (a link: bound by where it points, not by what it points to)`;
  return `    ${name}${value.startsWith("x:") ? " (executable)" : ""}`;
}

/** A plain file or a folder (not executable, not a link). */
const plain = (e: [string, string]) => e[1].startsWith("f:") || e[1] === "d";

/** The folder's entries as bound: every one when few, else the executable files and links first, up to a screenful. */
function fileLines(binding: PackBinding): string[] {
  const MAX = 40;
  const entries = Object.entries(binding.tree.entries);
  if (entries.length <= MAX) return entries.map(entryLine);
  const first = [...entries.filter((e) => !plain(e)), ...entries.filter(plain)];
  return [...first.slice(0, MAX).map(entryLine), `    … and ${entries.length - MAX} more (hcp trust --list --json lists every one once trusted)`];
}

/** What the review says of a pack's verbs: a line for each, and what they run (or send) all told. */
interface VerbsShown {
  lines: string[];
  summary: string[];
}

/** Up to three names, quoted and escaped, then how many more: `("a", "b", "c" and 9 more)`. */
function someNames(names: readonly string[]): string {
  return `(${firstAndMore(names.map((n) => shown(JSON.stringify(n))), 3)})`;
}

const METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"];
/** Reads first, then writes from the mildest; a method not listed last. */
function methodRank(method: string): number {
  const rank = METHODS.indexOf(method);
  return rank < 0 ? METHODS.length : rank;
}

const verbCount = (n: number) => `${n} verb${n === 1 ? "" : "s"}`;

/**
 * One line per verb (its program and argv template, with how the trust binds the program, or its method and URL),
 * and the summary a person reads last: each program the verbs run with the verbs that run it, or where an API's
 * requests go, by method. A verb among hundreds that runs another program than the rest cannot hide in their lines.
 */
function reviewVerbs(pack: LoadedPack, surface: Surface, env: Env, binding: PackBinding): VerbsShown {
  /** A program as the review names it: its file, and how the trust binds it (the key of the summary's groups). */
  const programOf = (bin: string) => {
    const bound = binding.programs.find((b) => b.bin === bin);
    // Looked up as a run here would: not in the folder the verbs would run in (search-path.ts).
    const file = resolveProgram(bin, pack.root, env["PATH"], workingFolder(pack));
    return { file, bound, shownAs: shown(file) + boundAs(bound) };
  };
  const lines: string[] = [];
  const byProgram = new Map<string, string[]>();
  const byMethod = new Map<string, string[]>();
  const unrunnable: string[] = [];
  let base: string | undefined;
  for (const [key, verb] of Object.entries(surface.verbs)) {
    const name = shown(JSON.stringify(key));
    try {
      if (surface.kind === "openapi") {
        const { document, operation } = boundVerb(pack, key);
        base ??= shown(baseUrlOf(pack.policy, document, false).href.replace(/\/$/, ""));
        lines.push(`    ${name}: ${operation.method} ${base}${shown(operation.path)}`);
        addTo(byMethod, operation.method, key);
        continue;
      }
      const { bin, template } = commandOf(surface, key, verb);
      const { file, bound, shownAs } = programOf(bin);
      lines.push(`    ${name}: ${shown(file)} ${quoted(template)}${boundAs(bound)}${interpreterNote(file, bound)}`);
      addTo(byProgram, shownAs, key);
    } catch (err) {
      lines.push(`    ${name}: cannot run: ${why(err)}`);
      unrunnable.push(key);
    }
  }
  // "Now": a program not on PATH today is looked up there again at each run, and run unbound once it is there.
  const cannot = unrunnable.length === 0 ? [] : [`    ${verbCount(unrunnable.length)} ${someNames(unrunnable)} cannot run now (the verb's line above says why)`];
  if (surface.kind === "openapi") {
    const methods = [...byMethod].sort(([a], [b]) => methodRank(a) - methodRank(b)).map(([method, names]) => `${method} for ${verbCount(names.length)}`);
    return { lines, summary: [`  requests:    ${base === undefined ? "none can be sent" : `to ${base} only: ${methods.join(", ")}`}`, ...cannot] };
  }
  let passThrough: string | undefined;
  if (surface.pass_through !== undefined && surface.wrap !== undefined) {
    try {
      passThrough = programOf(surface.wrap.bin).shownAs;
    } catch {
      // Its verbs' lines already say why the program cannot run.
    }
  }
  const programs = [...byProgram].map(([file, names]) => `    ${file} for ${verbCount(names.length)} ${someNames(names)}${file === passThrough ? " and the pass-through" : ""}`);
  if (passThrough !== undefined && !byProgram.has(passThrough)) programs.push(`    ${passThrough} for the pass-through`);
  return { lines, summary: [`  runs:        ${programs.length === 1 ? "1 program" : `${programs.length} programs`}`, ...programs, ...cannot] };
}

/**
 * What policy.json lets run, by the prompt: the verbs the agent runs whenever it calls them (reads, then writes once hcp
 * runs with --allow-write), those a person approves at each run, and those denied. An agent that made one write a read
 * in policy.json among hundreds of gated verbs cannot hide it in their lines.
 */
function policyLines(classes: Readonly<Record<string, PolicyClass>>): string[] {
  const groups: Record<PolicyClass, string[]> = { read: [], write: [], person: [], deny: [] };
  for (const [key, c] of Object.entries(classes)) groups[c].push(key);
  const lines = POLICY_CLASSES.filter((c) => groups[c].length > 0).map((c) => `${GROUP_WORDS[c]}: ${verbCount(groups[c].length)} ${someNames(groups[c])}`);
  return indented("  policy:      ", lines);
}

/** The lines under a label, the first beside it. */
const indented = (label: string, lines: readonly string[]) => lines.map((l, i) => `${i === 0 ? label : " ".repeat(label.length)}${l}`);

const GROUP_WORDS: Record<PolicyClass, string> = {
  read: "reads, run whenever the agent calls them",
  write: "writes, run whenever the agent calls them once hcp runs with --allow-write",
  person: "approved by a person at each run",
  deny: "denied, never run",
};
const VERB_WORDS: Record<PolicyClass, string> = {
  read: "a read, run whenever the agent calls it",
  write: "a write, run whenever the agent calls it under --allow-write",
  person: "approved by a person at each run",
  deny: "denied",
};

/** How freely the agent may run a verb of this class: 0 the most; a verb not there is as one denied. */
const freedom = (c: PolicyClass | undefined) => POLICY_CLASSES.indexOf(c ?? "deny");

/** The most changes of policy the review names one by one. */
const CHANGES_SHOWN = 10;

/**
 * What changed in the verbs' policy since the person last trusted the folder (their record's classes; nothing without
 * one): each verb the agent may now run more freely first, so that one loosened among many made stricter is named.
 * A verb that was not there counts as one denied, so any other policy loosens it.
 */
function policyChanges(classes: Readonly<Record<string, PolicyClass>>, before: TrustRecord["verbs"]): string[] {
  if (before === undefined) return [];
  const changes: { loosened: boolean; now: number; line: string }[] = [];
  for (const [key, now] of Object.entries(classes)) {
    const was = Object.hasOwn(before, key) ? before[key] : undefined;
    if (was === now) continue;
    changes.push({ loosened: freedom(now) < freedom(was), now: freedom(now), line: `${shown(JSON.stringify(key))} ${was === undefined ? "is new" : `was ${VERB_WORDS[was]}`}, now ${VERB_WORDS[now]}` });
  }
  const removed = Object.keys(before).filter((k) => !Object.hasOwn(classes, k));
  if (removed.length > 0) changes.push({ loosened: false, now: freedom("deny"), line: `${verbCount(removed.length)} removed ${someNames(removed)}` });
  // The loosened first, the loosest of them first (a read before a write); the rest as they come.
  const lines = [...changes.filter((c) => c.loosened).sort((a, b) => a.now - b.now), ...changes.filter((c) => !c.loosened)].map((c) => c.line);
  if (lines.length > CHANGES_SHOWN) lines.splice(CHANGES_SHOWN, lines.length, `and ${lines.length - CHANGES_SHOWN} more changes (compare policy.json with what you trusted)`);
  return indented("  since you last trusted it: ", lines);
}

/**
 * The pack as a person reviews it before trusting it; the digests are of the files as loaded,
 * `binding` is what the trust will record of its folder and programs.
 */
export function trustReview(pack: LoadedPack, env: Env, binding: PackBinding, previous?: TrustRecord): string {
  const surface = pack.surface;
  if (surface === null) return `pack at ${shown(pack.root)}: it did not load`;
  const verbs = reviewVerbs(pack, surface, env, binding);
  const { tree } = binding;
  // The long lists first, what the trust comes down to last: a person reads the end of a long screen, by the prompt.
  const lines = [
    `pack ${shown(JSON.stringify(surface.id))}:`,
    "  verbs:",
    ...verbs.lines,
    `  bound files: everything in the folder, ${tree.files} files (${tree.bytes} bytes), sha256 ${tree.sha256}: a change to any of them, or a file added or removed, needs trust again`,
    ...fileLines(binding),
    `  surface.json sha256 ${pack.sha256?.surface ?? "-"}, policy.json ${pack.sha256?.policy ?? "absent"}`,
    `  folder:      ${shown(pack.root)}`,
  ];
  const b = surface.binding;
  lines.push(
    `  binding:     ${b === undefined ? "none (surface.json sets none)" : `hub ${shown(b.hub ?? "(not set)")}, family ${shown(JSON.stringify(b.family ?? surface.id))}, mode ${shown(b.mode ?? "(not set)")}`}`,
    `  credentials: ${credentialNames(pack, surface, env)}`,
  );
  if (surface.kind === "openapi") {
    const ref = surface.openapi;
    const fetched = ref?.path === undefined && ref?.url !== undefined ? " (as fetched now: bound by its text; served changed, it needs trust again)" : "";
    lines.push(`  document:    ${shown(ref?.path ?? ref?.url ?? "-")}${fetched}`);
    const base = pack.policy?.openapi?.base_url;
    lines.push(`  base URL:    ${base === undefined ? "the document's first server (policy.json sets no openapi.base_url)" : shown(base)}`);
  }
  if (surface.wrap?.agent_env !== undefined) lines.push(`  agent_env:   ${shown(JSON.stringify(surface.wrap.agent_env))}`);
  if (pack.policy?.env !== undefined) lines.push(`  passes env:  ${quoted(pack.policy.env)}`);
  if (pack.policy?.cwd !== undefined) lines.push(`  cwd:         ${shown(pack.policy.cwd)}`);
  if (surface.pass_through !== undefined) {
    // The arguments after the subcommand are the agent's, flags included: what they can make the program do is the person's to judge.
    const { allowedSubcommands, maxArgv } = surface.pass_through;
    lines.push(`  pass-through: ${quoted(allowedSubcommands)} of ${shown(surface.wrap?.bin ?? "-")}, followed by any arguments the agent writes (flags included, ${maxArgv} tokens at most), policy ${passThroughPolicy(pack).policy}`);
  }
  const classes = policyClasses(pack);
  lines.push(...policyChanges(classes, previous?.verbs), ...policyLines(classes), ...verbs.summary);
  return lines.join("\n");
}
