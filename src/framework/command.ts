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
  args?: ArgsRule;
  /** Product-owned namespaced metadata, emitted in the manifest through the canonical encoding. */
  extensions?: ExtensionSet;
  run?: Handler;
  commands?: CommandSpec[];
}

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

  /** Flags inherited from the root's persistent set (none on the root itself). */
  inherited(): FlagDef[] {
    return this.parent ? this.root().persistent : [];
  }
}
