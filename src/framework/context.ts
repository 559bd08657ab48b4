// What a handler receives: its args and flags, the run's settings, and the one-way doors for output, previews, confirmation and resolution.

import type { Readable } from "node:stream";
import { goQuote } from "../json/goquote.js";
import { compareBytes, stableJSON, writeStableJSON } from "../json/stable.js";
import { escapeInvisibleJSON } from "../json/visible.js";
import type { CommandNode } from "./command.js";
import type { Credential, Resolved, ResolvedService } from "./config.js";
import { AmbiguousError, ExitCode, matchLabel, NotFoundError, RungradError, UsageError, type Match } from "./errors.js";
import type { FlagDef } from "./flags.js";
import { metaModel, mutationModel, mutationText, previewModel, previewText, sanitizeControl, type DryRunPreview, type Meta, type MutationSummary, type TerminalMode } from "./output.js";
import type { Redactor } from "./redact.js";

/** The global settings of one run (framework identities, whatever names the host gave them). */
export interface GlobalState {
  json: boolean;
  dryRun: boolean;
  noPrompt: boolean;
  quiet: boolean;
  config: string;
  plain: boolean;
  /** Set only when --jq was given. */
  jq: string | null;
  template: string | null;
  includeMeta: boolean;
  noColor: boolean;
  noAnsi: boolean;
  noPager: boolean;
  profile: string;
  authFile: string;
  services: Record<string, string | undefined>;
}

/** Process streams and environment of one run (injectable for tests). */
export interface RunIO {
  stdin: Readable;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** Line input for prompts; created on first use. */
  lines?: () => import("./choose.js").LineSource;
}

/** State the framework shares with the context: guards passed, secrets, resolution. */
export interface RunState {
  io: RunIO;
  flags: GlobalState;
  redactor: Redactor;
  jqActive: boolean;
  templateActive: boolean;
  metaActive: boolean;
  resolved: Resolved | null;
  credential: Credential | null;
  /** The exit code of a handler that returns normally (setExitCode); 0 when unset. */
  exitCode?: number;
}

/** A result: the stable machine model, the human view, and optionally a plain view and response metadata. */
export interface Output {
  model: unknown;
  meta?: Meta;
  human?: () => string;
  plain?: () => string;
  /** The human view is a document's exact bytes (e.g. its StableJSON): printed as is, never sanitised. */
  verbatim?: boolean;
  /**
   * A person reviews these values (a plan to approve, an audit log): the JSON view writes each invisible or reordering
   * character as a `\u` escape, as the human view shows it escaped. The same JSON value; not Go's bytes.
   */
  visible?: boolean;
}

export interface ResolveOptions {
  resourceType: string;
  /** Allow an interactive prompt when the run can prompt. */
  allowPrompt?: boolean;
  /** Input that already is an id (e.g. isNumericID) is returned unchanged. */
  isID?: (s: string) => boolean;
}

export type Lookup = (name: string) => Match[] | Promise<Match[]>;

/** A non-empty run of ASCII digits. */
export const isNumericID = (s: string): boolean => /^[0-9]+$/.test(s);

export class Context {
  constructor(
    readonly node: CommandNode,
    readonly args: readonly string[],
    private readonly localValues: ReadonlyMap<string, unknown>,
    private readonly localDefs: readonly FlagDef[],
    private readonly state: RunState,
    private readonly localChanged: ReadonlySet<string> = new Set(),
    /** Cobra's ArgsLenAtDash: how many of `args` came before a `--`, or -1 when there was none. */
    readonly argsLenAtDash: number = -1,
  ) {}

  /** The process exit code when the handler returns normally (e.g. a child's); errors still map through classifyExit. */
  setExitCode(code: number): void {
    if (!Number.isInteger(code) || code < 0 || code > 255) throw new Error(`invalid exit code ${code}`);
    this.state.exitCode = code;
  }

  /** pflag's Changed bit: the local flag was given on the command line (even `--x=` or `--b=false`). */
  changed(name: string): boolean {
    this.flag(name);
    return this.localChanged.has(name);
  }

  /** The run's global settings. */
  get globals(): Readonly<GlobalState> {
    return this.state.flags;
  }
  get dryRun(): boolean {
    return this.state.flags.dryRun;
  }
  /** The credential the framework resolved for a requires-auth command ("" otherwise). */
  get token(): string {
    return this.state.credential?.token ?? "";
  }
  get credential(): Credential | null {
    return this.state.credential;
  }
  get resolved(): Resolved | null {
    return this.state.resolved;
  }
  service(name: string): ResolvedService | undefined {
    return this.state.resolved?.services[name];
  }

  /** A local flag's value (its default when not given). */
  flag(name: string): unknown {
    if (!this.localDefs.some((d) => d.name === name)) throw new Error(`flag "${name}" is not defined on "${this.node.commandPath()}"`);
    return this.localValues.get(name);
  }
  bool(name: string): boolean {
    return this.flag(name) === true;
  }
  string(name: string): string {
    return String(this.flag(name) ?? "");
  }
  int(name: string): number {
    return Number(this.flag(name) ?? 0);
  }
  strings(name: string): string[] {
    return [...((this.flag(name) as string[] | undefined) ?? [])];
  }

  /** Registers a secret so every output boundary of this run redacts it. */
  registerSecret(value: string): void {
    this.state.redactor.add(value);
  }

  /** --json, or an accepted --jq/--template. */
  machineOutput(): boolean {
    return this.state.jqActive || this.state.templateActive || this.state.flags.json;
  }

  /** Styling for human output: plain under machine/--plain, sanitised off a terminal or under --no-ansi. */
  terminalMode(): TerminalMode {
    const f = this.state.flags;
    if (this.machineOutput() || f.plain) return { ansi: false, color: false, sanitize: false };
    if (f.noAnsi || !this.state.io.stdoutIsTTY) return { ansi: false, color: false, sanitize: true };
    return { ansi: true, color: !f.noColor, sanitize: false };
  }

  /** Writes a result once: --jq, --template, --json, --plain, or the human view. */
  async writeOutput(o: Output): Promise<void> {
    const value = () => (this.state.metaActive ? { data: o.model, meta: metaModel(o.meta) } : o.model);
    await this.dispatch(value, o.human, o.plain, o.verbatim, o.visible);
  }

  /** writeOutput without plain view or metadata. */
  async writeResult(model: unknown, human?: () => string): Promise<void> {
    await this.writeOutput({ model, human });
  }

  /** A mutation summary as result (`Created item gamma`). */
  async writeMutation(m: MutationSummary): Promise<void> {
    await this.writeResult(mutationModel(m), () => mutationText(m, this.terminalMode()));
  }

  /** A dry-run preview in the active output mode. */
  async writePreview(p: DryRunPreview): Promise<void> {
    await this.dispatch(
      () => previewModel(p),
      () => previewText(p, this.terminalMode()),
      () => previewText(p),
    );
  }

  private async dispatch(value: () => unknown, human?: () => string, plain?: () => string, verbatim = false, visible = false): Promise<void> {
    const { flags, redactor, io } = this.state;
    if (this.state.jqActive) {
      const { runJq } = await import("./transform.js");
      io.stdout(sanitizeControl(redactor.json(await runJq(stableJSON(value()), flags.jq ?? ""))));
      return;
    }
    if (this.state.templateActive) {
      const { renderTemplate } = await import("./transform.js");
      io.stdout(sanitizeControl(redactor.text(renderTemplate(flags.template ?? "", value()))));
      return;
    }
    if (flags.json) {
      // With no secret to look for, a large document goes out in pieces rather than as one string.
      if (visible) io.stdout(escapeInvisibleJSON(redactor.json(stableJSON(value()))));
      else if (redactor.isEmpty()) writeStableJSON(value(), io.stdout);
      else io.stdout(redactor.json(stableJSON(value())));
      return;
    }
    if (flags.plain) {
      if (!plain) throw new RungradError(ExitCode.API, "plain output renderer is not configured");
      io.stdout(sanitizeControl(redactor.text(plain())));
      return;
    }
    if (!human) return;
    const mode = this.terminalMode();
    const text = redactor.text(human());
    if (text) io.stdout(mode.sanitize && !verbatim ? sanitizeControl(text) : text);
  }

  /** Informational stderr line, silent under --quiet and machine output. */
  infof(message: string): void {
    if (this.machineOutput() || this.state.flags.quiet) return;
    this.state.io.stderr(this.state.redactor.text(message + "\n"));
  }

  /** Not machine output, not --no-prompt, and stdin and stderr are terminals. */
  canPrompt(): boolean {
    const { io, flags } = this.state;
    return !this.machineOutput() && !flags.noPrompt && io.stdinIsTTY && io.stderrIsTTY;
  }

  private chooserIO() {
    const io = this.state.io;
    if (!io.lines) throw new Error("no line input configured");
    return { input: io.lines(), write: io.stderr, transform: (s: string) => this.state.redactor.text(s) };
  }

  /** Gate for destructive actions: --dry-run and --confirm proceed; non-interactive refuses; a terminal is asked. */
  async confirmDestructive(opts: { action: string; target: string; confirmed: boolean }): Promise<void> {
    if (this.dryRun || opts.confirmed) return;
    if (!this.canPrompt()) throw new UsageError("destructive action requires --confirm");
    const { confirm } = await import("./choose.js");
    let ok = false;
    try {
      ok = await confirm(this.chooserIO(), `About to ${opts.action} ${opts.target}.`, "Yes, continue", "No, cancel");
    } catch {
      ok = false;
    }
    if (!ok) throw new UsageError("destructive action declined");
  }

  /** Name → id: id short-circuit, not found (exit 5), one match, or a prompt / AmbiguousError (exit 1). */
  async resolve(input: string, lookup: Lookup, opts: ResolveOptions): Promise<string> {
    if (opts.isID?.(input)) return input;
    const matches = [...(await lookup(input))].sort(
      (a, b) => compareBytes(a.id, b.id) || compareBytes(a.name, b.name) || compareBytes(a.context ?? "", b.context ?? ""),
    );
    if (matches.length === 0) throw new NotFoundError(opts.resourceType, input);
    if (matches.length === 1) return matches[0]!.id;
    if (!(opts.allowPrompt ?? false) || !this.canPrompt()) throw new AmbiguousError(opts.resourceType, input, matches);
    const io = this.chooserIO();
    io.write(io.transform(`Multiple ${opts.resourceType} matches for ${goQuote(input)}:\n`));
    matches.forEach((m, i) => io.write(io.transform(`  ${i + 1}) ${matchLabel(m)}\n`)));
    io.write(io.transform(`Select 1-${matches.length}: `));
    const line = await io.input.readLine();
    if (line === null) throw new Error("read selection: EOF");
    const raw = line.trim().split(/\s+/)[0] ?? "";
    const n = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
    if (!(n >= 1 && n <= matches.length)) throw new Error(`invalid selection ${goQuote(raw)}`);
    return matches[n - 1]!.id;
  }
}
