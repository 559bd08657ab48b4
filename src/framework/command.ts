// Command declarations (rungrad metadata) and the command tree that help, parsing and the manifest all read.

import type { ExtensionSet } from "../manifest/types.js";
import type { Context } from "./context.js";
import { toFlagDef, type FlagDef, type FlagSpec } from "./flags.js";

/** Output modes a command may declare; any other string is carried through verbatim. */
export const OutputMode = { Human: "human", JSON: "json", Plain: "plain", JQ: "jq", Template: "template" } as const;

/** Positional-argument rule with Cobra's error texts: exact, min, max, range, none, or any (default). */
export type ArgsRule = { exact: number } | { min: number } | { max: number } | { range: [number, number] } | "none" | "any";

export type Handler = (ctx: Context) => void | Promise<void>;

/** A command as a product declares it. */
export interface CommandSpec {
  /** Cobra `Use`: the name, then argument placeholders (`get <name>`). */
  use: string;
  short: string;
  long?: string;
  examples?: string[];
  related?: string[];
  outputModes?: string[];
  requiresAuth?: boolean;
  mutates?: boolean;
  destructive?: boolean;
  supportsMeta?: boolean;
  hidden?: boolean;
  /** Help group id (AppConfig.groups). */
  group?: string;
  /** Cobra `DisableFlagsInUseLine`: help's use line gets no ` [flags]`. */
  disableFlagsInUseLine?: boolean;
  flags?: FlagSpec[];
  /**
   * In an app with `scopedGlobals`: the global flags, besides `json` (shown where outputModes has json) and
   * `dry-run` (where the command mutates), that this command acts on (`no-prompt`, `quiet`, `config`, …).
   */
  globals?: string[];
  args?: ArgsRule;
  /** Product-owned namespaced metadata, emitted in the manifest through the canonical encoding. */
  extensions?: ExtensionSet;
  run?: Handler;
  commands?: CommandSpec[];
  /**
   * Not Cobra's: words added to an unknown flag's error on this command (`unknown flag: --name (…)`), given the flag
   * as the error names it (`--name`, without a value typed with it): what was likely meant.
   */
  unknownFlagHint?: (flag: string) => string;
  /**
   * Not Cobra's: words added to the error of an operand given to a command that takes none (`unknown command "x" for
   * "hcp init" (…)`), given the operand: what was likely meant.
   */
  unknownOperandHint?: (operand: string) => string;
  /**
   * Not Cobra's: the help shown for `-h`/`--help` after operands (`hcp run PACK VERB --help`: the verb's), given the
   * operands typed before the first flag; null for the command's own help. What it throws is rendered as an error.
   */
  operandHelp?: (operands: readonly string[]) => Promise<string | null>;
}

/**
 * Globals that only ask a command to do less (never prompt, print less): in a scoped app a command that has
 * nothing to hold back keeps the promise as it is, so they are accepted everywhere, and shown where they act.
 */
export const FEWER_EFFECTS_GLOBALS: ReadonlySet<string> = new Set(["no-prompt", "quiet"]);

/** What synthesised a node: the product, Cobra-style help/completion, or the manifest endpoint. */
export type NodeKind = "user" | "help" | "completion" | "endpoint";

/** One command in the built tree. */
export class CommandNode {
  readonly children: CommandNode[] = [];
  parent: CommandNode | null = null;
  /** Flags defined on this command; the root's globals are kept apart in `persistent`. */
  readonly flags: FlagDef[];
  /** Root only: the persistent (global) flags. */
  persistent: FlagDef[] = [];
  /** Root only: each global is shown (and, unless in FEWER_EFFECTS_GLOBALS, accepted) only where it acts (AppConfig.scopedGlobals). */
  scopedGlobals = false;
  /** Canonical compact JSON of the extensions ("" when none), like Go's annotation. */
  extensionsAnnotation = "";

  constructor(
    readonly spec: CommandSpec,
    readonly kind: NodeKind = "user",
  ) {
    this.flags = (spec.flags ?? []).map((f) => toFlagDef(f));
  }

  /** Cobra `Name()`: the first word of `use`. */
  get name(): string {
    return this.spec.use.trim().split(/\s+/)[0] ?? "";
  }

  get hidden(): boolean {
    return this.spec.hidden ?? false;
  }

  get runnable(): boolean {
    return this.spec.run !== undefined;
  }

  get mutates(): boolean {
    return (this.spec.mutates ?? false) || (this.spec.destructive ?? false);
  }

  get outputModes(): string[] {
    return this.spec.outputModes ?? [];
  }

  add(child: CommandNode): void {
    child.parent = this;
    this.children.push(child);
  }

  /** Path below the executable; the root's is []. */
  path(): string[] {
    return this.parent ? [...this.parent.path(), this.name] : [];
  }

  /** Cobra `CommandPath()`: the executable name and the path, space separated. */
  commandPath(): string {
    return this.parent ? `${this.parent.commandPath()} ${this.name}` : this.name;
  }

  root(): CommandNode {
    return this.parent ? this.parent.root() : this;
  }

  /** Cobra `IsAvailableCommand`: visible and runnable or with available children; help is never available. */
  available(): boolean {
    if (this.hidden || this.kind === "help") return false;
    return this.runnable || this.children.some((c) => c.available());
  }

  /** Whether the root's global flag `f` acts on this command: always, unless the app scopes its globals. */
  globalActs(f: FlagDef): boolean {
    if (!this.root().scopedGlobals) return true;
    if (f.id === "json") return this.outputModes.includes("json");
    if (f.id === "dry-run") return this.mutates;
    return (this.spec.globals ?? []).includes(f.id ?? f.name);
  }

  /** The root's global flags this command shows in help and completion. */
  shownGlobals(): FlagDef[] {
    return this.root().persistent.filter((f) => this.globalActs(f));
  }

  /** Flags inherited from the root's persistent set (none on the root itself). */
  inherited(): FlagDef[] {
    return this.parent ? this.shownGlobals() : [];
  }
}
