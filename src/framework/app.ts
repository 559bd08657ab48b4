// App: builds the command tree from rungrad metadata, parses with commander, runs the pre-run pipeline and maps errors to exit codes once.

import { Command as Commander, CommanderError, Option as CommanderOption } from "commander";
import { isatty } from "node:tty";
import { dictionary, stableJSON } from "../json/stable.js";
import type { ExtensionSet, Manifest, ValidManifest } from "../manifest/types.js";
import { validateManifest } from "../manifest/validate.js";
import { detectMachineOutput, flagNames, scanArgs, type FlagNames } from "./argv.js";
import { streamLines, type LineSource } from "./choose.js";
import { failedOutputExitCode, stdoutClosed } from "./pipes.js";
import { CommandNode, FEWER_EFFECTS_GLOBALS, type ArgsRule, type CommandSpec } from "./command.js";
import { COMPLETE_COMMAND, COMPLETE_NO_DESC_COMMAND, findCommand, runComplete } from "./complete.js";
import { completionCommand } from "./completion.js";
import { defaultConfigPath, loadCredential, resolveRuntime, type ResolutionConfig } from "./config.js";
import { Context, type GlobalState, type RunIO, type RunState } from "./context.js";
import { classifyExit, ConfigError, errorDetails, errorMessage, FlagParseError, SurfaceError, UnknownCommandError, UsageError } from "./errors.js";
import type { FlagDef } from "./flags.js";
import { renderHelp, unknownTopicHelp, type Group } from "./help.js";
import { rootOperand, suggestionsFor, suggestionText } from "./unknown.js";
import { buildManifest, encodeExtensionsAnnotation } from "./manifest.js";
import { Redactor } from "./redact.js";
import { globalFlags, normalizeSurface, reservedNames, type NormalizedSurface, type SurfaceConfig } from "./surface.js";

export interface AppConfig {
  name: string;
  short: string;
  long?: string;
  version: string;
  /** Environment variable holding the credential. */
  envVar?: string;
  /** Default credential profile. */
  profile?: string;
  /** --plain, --jq, --template, --include-meta, --no-color, --no-ansi, --no-pager and their guards. */
  advancedOutput?: boolean;
  /** --profile, --auth-file and service flags with flag > env > config > default precedence. */
  resolution?: ResolutionConfig;
  surface?: SurfaceConfig;
  /** Root examples (Cobra's root Example). */
  examples?: string[];
  groups?: Group[];
  /**
   * Not Go's: what an error's message becomes before it is written (hcp masks the credentials it knows: a message may
   * quote what the caller wrote, or a file's text). None by default: the message as it is.
   */
  maskError?: (message: string) => string;
  /**
   * A command group given an operand that names none of its subcommands: `help` prints the group's help and exits 0
   * (Cobra's behaviour, the default); `error` fails like the root does (exit 1, "Did you mean this?").
   */
  unknownSubcommand?: "help" | "error";
  /**
   * Not Go's: a command group given no subcommand at all: `help` prints its help and exits 0 (Cobra's, the
   * default); `usage` prints it on stderr and fails with exit 1, a usage error naming the subcommands.
   */
  bareGroup?: "help" | "usage";
  /**
   * Not Go's: each global flag is shown only on the commands it acts on (CommandSpec.globals), and one given
   * where it does nothing is an unknown flag, except those that only ask for less (FEWER_EFFECTS_GLOBALS). Off
   * by default: every global on every command, as Go.
   */
  scopedGlobals?: boolean;
  /** The root command's extensions (CommandSpec.extensions of the root), written to the manifest. */
  extensions?: ExtensionSet;
}

/** The result of one parse: which command, its operands, and its parsed flags. */
interface Selection {
  node: CommandNode;
  cmd: Commander;
  args: string[];
}

/** `-h`/`--help` on a command with an operandHelp, after operands. */
interface OperandHelpRequest {
  node: CommandNode;
  operands: string[];
}

/** The words before the first flag (commander's args: operands, then what it did not know from the first unknown flag on). */
function leadingOperands(args: readonly string[]): string[] {
  const flag = args.findIndex((a) => a.startsWith("-"));
  return args.slice(0, flag < 0 ? args.length : flag);
}

export class App {
  readonly root: CommandNode;
  private readonly surface: NormalizedSurface;
  private readonly reserved: Set<string>;
  private readonly endpoint: CommandNode | null = null;

  constructor(readonly config: AppConfig) {
    this.surface = normalizeSurface(config.surface);
    this.reserved = reservedNames(this.surface);
    this.root = new CommandNode({ use: config.name, short: config.short, long: config.long ?? "", examples: config.examples ?? [] });
    const taken = ["help", ...(this.surface.version === "rungrad" ? ["version"] : [])];
    this.root.scopedGlobals = config.scopedGlobals ?? false;
    this.root.extensionsAnnotation = encodeExtensionsAnnotation(config.extensions);
    this.root.persistent = globalFlags(this.surface, config.advancedOutput ?? false, config.resolution, config.surface?.globalFlags?.bindings, taken);
    const helpLong = `Help provides help for any command in the application.\nSimply type ${config.name} help [path to command] for full details.`;
    this.root.add(new CommandNode({ use: "help [command]", short: "Help about any command", long: helpLong, run: () => undefined }, "help"));
    if (this.surface.completion === "rungrad") this.root.add(completionCommand(this.root));
    if (this.surface.endpoint.mode !== "disabled") {
      this.endpoint = new CommandNode({ use: this.surface.endpoint.name, short: "Emit the rungrad machine manifest (internal)", hidden: true, run: () => undefined }, "endpoint");
      this.root.add(this.endpoint);
    }
  }

  /** Registers top-level commands (and their subtrees). */
  addCommand(...specs: CommandSpec[]): this {
    for (const spec of specs) {
      const node = this.build(spec);
      if (this.reserved.has(node.name)) throw new SurfaceError(`rungrad: "${node.name}" is a reserved framework command name and cannot be registered`);
      this.root.add(node);
    }
    return this;
  }

  private build(spec: CommandSpec): CommandNode {
    const node = new CommandNode(spec);
    node.extensionsAnnotation = encodeExtensionsAnnotation(spec.extensions);
    for (const child of spec.commands ?? []) node.add(this.build(child));
    return node;
  }

  /** The manifest of this app, from the same tree that renders help. */
  manifestDocument(): Manifest {
    return buildManifest(this.root, this.config.version, this.surface.version === "rungrad");
  }

  /** manifestDocument, validated with validateManifest (throws its typed errors). */
  manifestDocumentChecked(): ValidManifest {
    const m = this.manifestDocument();
    validateManifest(m);
    return m;
  }

  /** Runs against the real process: exit code in process.exitCode. */
  async main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
    let lines: LineSource | undefined;
    const io: RunIO = {
      // Made on first use: most commands never read stdin, and creating process.stdin (or stderr) costs start-up time.
      get stdin() {
        return process.stdin;
      },
      stdout: (s) => writeInSlices(process.stdout, s),
      stderr: (s) => void process.stderr.write(s),
      stdinIsTTY: isatty(0),
      stdoutIsTTY: process.stdout.isTTY === true,
      stderrIsTTY: isatty(2),
      env: process.env,
    };
    io.lines = () => (lines ??= streamLines(process.stdin));
    const closed = stdoutClosed();
    const code = await this.run(argv, io);
    process.exitCode = closed.aborted ? failedOutputExitCode(closed.reason) : code;
    if (lines) process.stdin.destroy();
  }

  /** Parses and executes argv; returns the exit code (errors already rendered on stderr). */
  async run(argv: readonly string[], io: RunIO): Promise<number> {
    const state: RunState = {
      io,
      flags: emptyGlobals(),
      redactor: new Redactor(),
      jqActive: false,
      templateActive: false,
      metaActive: false,
      resolved: null,
      credential: null,
    };
    let parsed = false;
    try {
      if (this.endpoint && argv[0] === this.endpoint.name) return await this.emitManifest(io);
      if (argv[0] === "help") return this.helpCommand(argv.slice(1), io);
      if (argv[0] === COMPLETE_COMMAND || argv[0] === COMPLETE_NO_DESC_COMMAND) return this.complete(argv, io);
      // Cobra finds the command before it parses flags: an unknown first word is blamed before any flag.
      const first = rootOperand(argv, this.root, this.surface.version === "rungrad" ? ["h", "v"] : ["h"]);
      if (first !== null && !this.root.children.some((c) => c.name === first)) throw this.unknownCommand(this.root, first);
      const names = flagNames(this.root);
      const misplaced = this.surface.version === "rungrad" ? this.versionAfterSubcommand(argv, names) : null;
      if (misplaced !== null) throw new FlagParseError(misplaced === "--version" ? "unknown flag: --version" : "unknown shorthand flag: 'v' in -v");
      const { args, explicitFalse, afterDash } = scanArgs(argv, names);
      let selection: Selection | null = null;
      let helpRequest: OperandHelpRequest | null = null;
      // Cobra looks for subcommands only before `--`; commander would also run one named after it (`item -- list`).
      const found = afterDash < 0 ? undefined : findCommand(this.root, argv)?.node;
      const program = this.commander(io, { select: (s) => (selection = s), operandHelp: (h) => (helpRequest = h) }, found, first);
      try {
        await program.parseAsync(args, { from: "user" });
      } catch (err) {
        const asked = helpRequest as OperandHelpRequest | null;
        if (asked !== null && err instanceof CommanderError && err.code === "commander.helpDisplayed") return await this.operandHelp(asked, io);
        if (err instanceof CommanderError) return this.commanderFailure(err, found ?? this.root.children.find((c) => c.name === first));
        throw err;
      }
      const sel = selection as Selection | null;
      if (!sel) return 0;
      const { node, cmd } = sel;
      if (node.kind === "endpoint") return await this.emitManifest(io);
      state.flags = this.readGlobals(program, explicitFalse);
      parsed = true;
      if (!node.runnable) {
        // Words after `--` name no subcommand, known or not (Cobra's legacyArgs sees the words before it).
        const named = afterDash < 0 ? sel.args : sel.args.slice(0, Math.max(0, sel.args.length - afterDash));
        if (named.length > 0 && (!node.parent || this.config.unknownSubcommand === "error")) throw this.unknownCommand(node, named[0]!);
        if (node.parent && this.config.bareGroup === "usage") {
          // Machine output keeps stderr one JSON error.
          if (!state.flags.json) io.stderr(this.helpText(node));
          throw new UsageError(`${node.commandPath()} needs a command: ${node.children.filter((c) => c.available()).map((c) => c.name).join(", ")}`);
        }
        io.stdout(this.helpText(node));
        return 0;
      }
      if (this.root.scopedGlobals) refuseInertGlobals(node, readFlags(program, this.root.persistent, explicitFalse).changed, state.flags.config);
      const locals = readFlags(cmd, node.flags, explicitFalse);
      checkArgs(node.spec.args ?? "any", sel.args, node);
      const missing = node.flags.filter((f) => f.required && !locals.changed.has(f.name)).map((f) => `"${f.name}"`);
      if (missing.length > 0) throw new UsageError(`required flag(s) ${missing.join(", ")} not set`);
      await this.guardOutputMode(node, state);
      await this.prepare(node, state);
      // Everything after `--` ends the leaf's operands; Cobra's ArgsLenAtDash counts those before it.
      const atDash = afterDash < 0 ? -1 : Math.max(0, sel.args.length - afterDash);
      await node.spec.run!(new Context(node, sel.args, locals.values, node.flags, state, locals.changed, atDash));
      return state.exitCode ?? 0;
    } catch (err) {
      return this.renderError(err, argv, parsed, state);
    }
  }

  /**
   * Cobra's `help [command]`: the help of the deepest command the words name (Cobra's Find: words
   * past it are ignored), or "Unknown help topic" and the root's usage when the first names none.
   */
  private helpCommand(topic: readonly string[], io: RunIO): number {
    let node = this.root;
    for (const name of topic) {
      if (name.startsWith("-")) break;
      const child = node.children.find((c) => c.name === name);
      if (!child && node === this.root) {
        io.stdout(unknownTopicHelp(this.root, topic, this.config.groups ?? []));
        return 0;
      }
      if (!child) break;
      node = child;
    }
    io.stdout(this.helpText(node));
    return 0;
  }

  /** Cobra's hidden `__complete [command-line]` (complete.ts): flags are not parsed, one word at least. */
  private complete(argv: readonly string[], io: RunIO): number {
    if (argv.length < 2) throw new UsageError("requires at least 1 arg(s), only received 0");
    const opts = { noDescriptions: argv[0] === COMPLETE_NO_DESC_COMMAND, env: io.env, version: this.surface.version === "rungrad" };
    const { stdout, stderr } = runComplete(this.root, argv.slice(1), opts);
    io.stdout(stdout);
    io.stderr(stderr);
    return 0;
  }

  /**
   * Cobra's --version is a local flag of the root, while commander honours a root option anywhere:
   * `-v`/`--version` after a subcommand is therefore found here (and is then an unknown flag).
   */
  private versionAfterSubcommand(argv: readonly string[], names: FlagNames): string | null {
    let sub = false;
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      if (a === "--") return null;
      if (a === "--version" || a === "-v") return sub ? a : null;
      if (a.startsWith("--")) {
        if (!a.includes("=") && names.values.has(a.slice(2))) i++;
      } else if (a.startsWith("-") && a.length > 1) {
        if (a.length === 2 && names.shortValues.has(a[1]!)) i++;
      } else if (!sub) {
        // A root operand, or an unknown command: either way not this check's business.
        if (!this.root.children.some((c) => c.name === a && c.kind !== "help")) return null;
        sub = true;
      }
    }
    return null;
  }

  /**
   * The commander program mirroring the tree (none below `found`, Cobra's choice); actions only record the selection.
   * `first`, the root's operand when it names a command: the root's other commands are left out, as commander would
   * not enter them (making every command's options was most of the command line's time in a one-shot `hcp run`).
   */
  private commander(
    io: RunIO,
    on: { select: (s: Selection) => void; operandHelp: (h: OperandHelpRequest) => void },
    found?: CommandNode,
    first: string | null = null,
  ): Commander {
    const make = (node: CommandNode, parent: Commander | null): Commander => {
      const cmd = parent ? parent.command(node.name, { hidden: node.hidden }) : new Commander(node.name);
      if (!parent) {
        cmd.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: () => undefined, outputError: () => undefined });
        if (this.surface.version === "rungrad") cmd.version(`${node.name} version ${this.config.version}`, "-v, --version", `version for ${node.name}`);
        for (const f of node.persistent) cmd.addOption(commanderOption(f));
      }
      cmd.helpOption("-h, --help", `help for ${node.name}`);
      cmd.configureHelp({
        formatHelp: () => {
          // Commander's help is written at once; help for the operands is made (asynchronously) once parsing stops.
          const operands = node.spec.operandHelp === undefined ? [] : leadingOperands(cmd.args);
          if (operands.length === 0) return this.helpText(node);
          on.operandHelp({ node, operands });
          return "";
        },
      });
      cmd.allowExcessArguments(true);
      for (const f of node.flags) cmd.addOption(commanderOption(f));
      cmd.action(function (this: Commander) {
        on.select({ node, cmd: this, args: [...this.args] });
      });
      if (node !== found) for (const child of node.children) if (child.kind !== "help" && (parent !== null || first === null || child.name === first)) make(child, cmd);
      return cmd;
    };
    return make(this.root, null);
  }

  /** The command's help for the operands given with `-h`/`--help`, or its own help when it has none for them. */
  private async operandHelp({ node, operands }: OperandHelpRequest, io: RunIO): Promise<number> {
    io.stdout((await node.spec.operandHelp!(operands)) ?? this.helpText(node));
    return 0;
  }

  private unknownCommand(node: CommandNode, typed: string): UnknownCommandError {
    return new UnknownCommandError(typed, node.commandPath(), suggestionText(suggestionsFor(node, typed)));
  }

  private helpText(node: CommandNode): string {
    return renderHelp(node, { groups: this.config.groups ?? [], version: this.surface.version === "rungrad" });
  }

  /** `node`: the command the words name, as far as they were read (its unknownFlagHint). */
  private commanderFailure(err: CommanderError, node: CommandNode | undefined): number {
    if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") return 0;
    const error = translateCommanderError(err);
    const hint = node?.spec.unknownFlagHint;
    const flag = /^unknown flag: (--\S+)$/.exec(error.message)?.[1];
    throw hint !== undefined && flag !== undefined ? new FlagParseError(`${error.message} (${hint(flag)})`) : error;
  }

  /** Global identities read back from the parsed root, whatever their names. */
  private readGlobals(program: Commander, explicitFalse: ReadonlySet<string>): GlobalState {
    const { values, changed } = readFlags(program, this.root.persistent, explicitFalse);
    const g = emptyGlobals();
    const byId = new Map(this.root.persistent.map((f) => [f.id!, f]));
    const val = (id: string) => (byId.has(id) ? values.get(byId.get(id)!.name) : undefined);
    const was = (id: string) => byId.has(id) && changed.has(byId.get(id)!.name);
    g.json = val("json") === true;
    g.dryRun = val("dry-run") === true;
    g.noPrompt = val("no-prompt") === true;
    g.quiet = val("quiet") === true;
    g.config = String(val("config") ?? "");
    g.plain = val("plain") === true;
    g.jq = was("jq") ? String(val("jq")) : null;
    g.template = was("template") ? String(val("template")) : null;
    g.includeMeta = val("include-meta") === true;
    g.noColor = val("no-color") === true;
    g.noAnsi = val("no-ansi") === true;
    g.noPager = val("no-pager") === true;
    g.profile = String(val("profile") ?? "");
    g.authFile = String(val("auth-file") ?? "");
    if (this.config.resolution) {
      // Given but blank is an error in Go's config resolution, not "use the default".
      if (was("config") && g.config === "") throw new ConfigError("malformed config: --config cannot be blank");
      if (was("profile") && g.profile === "") throw new ConfigError("invalid profile name");
      if (was("auth-file") && g.authFile === "") throw new ConfigError("malformed config: --auth-file cannot be blank");
    }
    for (const s of this.config.resolution?.services ?? []) {
      const id = `service:${s.name}`;
      g.services[s.name] = was(id) ? String(val(id)) : undefined;
    }
    return g;
  }

  /** The advanced-output guards of §f, before auth and before the handler. */
  private async guardOutputMode(node: CommandNode, state: RunState): Promise<void> {
    if (!(this.config.advancedOutput ?? false)) return;
    const f = state.flags;
    const jqSet = f.jq !== null;
    const tmplSet = f.template !== null;
    const path = node.commandPath();
    const modes = node.outputModes;
    if (jqSet && tmplSet) throw new UsageError("--jq and --template cannot be combined");
    if (f.plain && (f.json || jqSet || tmplSet || f.includeMeta)) throw new UsageError("--plain cannot be combined with --json, --jq, --template, or --include-meta");
    if (f.plain && !modes.includes("plain")) throw new UsageError(`"${path}" does not support --plain. Run "${path} --help" for supported output modes.`);
    if ((jqSet || tmplSet) && !modes.includes("jq") && !modes.includes("template")) {
      throw new UsageError(`"${path}" does not support --jq or --template because it has no stable JSON output. Run "${path} --help" for supported output modes.`);
    }
    if (f.includeMeta) {
      if (!(node.spec.supportsMeta ?? false)) throw new UsageError(`"${path}" does not support --include-meta. Run "${path} --help" for supported output modes.`);
      if (!(f.json || jqSet || tmplSet)) throw new UsageError("--include-meta requires --json, --jq, or --template");
      if (f.dryRun) throw new UsageError("--include-meta cannot be combined with --dry-run");
    }
    const transform = jqSet || tmplSet ? await import("./transform.js") : null;
    if (jqSet) {
      await transform!.validateJq(f.jq!);
      state.jqActive = true;
    }
    if (tmplSet) {
      transform!.parseTemplate(f.template!);
      state.templateActive = true;
    }
    state.metaActive = f.includeMeta;
  }

  /** Config/profile/service resolution, then the credential for requires-auth commands. */
  private async prepare(node: CommandNode, state: RunState): Promise<void> {
    const { env } = state.io;
    const f = state.flags;
    let credentialsPath: string;
    let profile = this.config.profile ?? "";
    if (this.config.resolution) {
      state.resolved = await resolveRuntime({
        tool: this.config.name,
        env,
        resolution: this.config.resolution,
        defaultProfile: profile,
        flags: { config: f.config, profile: f.profile, authFile: f.authFile, services: f.services },
      });
      credentialsPath = state.resolved.authFilePath;
      profile = state.resolved.profile;
    } else {
      const configPath = f.config || defaultConfigPath(this.config.name, env);
      credentialsPath = configPath.replace(/[^/\\]*$/, "credentials.json");
    }
    if (!(node.spec.requiresAuth ?? false)) return;
    state.credential = loadCredential(this.config.envVar, env, credentialsPath, profile);
    state.redactor.add(state.credential.token);
  }

  private async emitManifest(io: RunIO): Promise<number> {
    const manifest = this.manifestDocument();
    const render = this.surface.endpoint.render;
    const text = render ? await render({ manifest, commandPath: `${this.root.name} ${this.surface.endpoint.name}` }) : stableJSON(manifest);
    io.stdout(text);
    return 0;
  }

  /** The one error exit: classify once, then `Error: <msg>` or the machine JSON body on stderr. */
  private renderError(err: unknown, argv: readonly string[], parsed: boolean, state: RunState): number {
    const code = classifyExit(err);
    const rawMode = err instanceof FlagParseError || err instanceof UnknownCommandError || !parsed;
    const machine = this.surface.globalFlags === "disabled" ? false
      : rawMode ? detectMachineOutput(argv, this.machineNames(), this.config.advancedOutput ?? false, flagNames(this.root))
      : state.flags.json || ((this.config.advancedOutput ?? false) && (state.flags.jq !== null || state.flags.template !== null));
    const msg = this.config.maskError?.(errorMessage(err)) ?? errorMessage(err);
    if (machine) {
      const body = dictionary<unknown>();
      body["error"] = msg;
      body["exit_code"] = code;
      Object.assign(body, errorDetails(err) ?? {});
      state.io.stderr(state.redactor.json(stableJSON(body)));
    } else {
      state.io.stderr("Error: " + state.redactor.text(msg) + "\n");
    }
    return code;
  }

  private machineNames() {
    const name = (id: string) => this.root.persistent.find((f) => f.id === id && !f.hidden)?.name ?? (this.surface.globalFlags === "host" ? "\0" : id);
    return { json: name("json"), jq: name("jq"), template: name("template") };
  }
}

function emptyGlobals(): GlobalState {
  return {
    json: false, dryRun: false, noPrompt: false, quiet: false, config: "", plain: false, jq: null, template: null,
    includeMeta: false, noColor: false, noAnsi: false, noPager: false, profile: "", authFile: "", services: {},
  };
}

function commanderOption(f: FlagDef): CommanderOption {
  const flags = `${f.shorthand ? `-${f.shorthand}, ` : ""}--${f.name}${f.type === "bool" ? "" : " <value>"}`;
  const opt = new CommanderOption(flags, f.usage);
  if (f.hidden) opt.hideHelp();
  if (f.type === "stringArray") opt.argParser((v: string, prev: unknown) => [...(Array.isArray(prev) ? prev : []), v]);
  if (f.type === "int") {
    opt.argParser((v: string) => {
      if (!/^[+-]?\d+$/.test(v)) throw new FlagParseError(`invalid argument "${v}" for "--${f.name}" flag: strconv.ParseInt: parsing "${v}": invalid syntax`);
      return Number(v);
    });
  }
  return opt;
}

/** A flag set's values by name and the names given on the command line. */
function readFlags(cmd: Commander, defs: readonly FlagDef[], explicitFalse: ReadonlySet<string>) {
  const values = new Map<string, unknown>();
  const changed = new Set<string>();
  for (const f of defs) {
    const opt = cmd.options.find((o) => o.long === `--${f.name}`);
    const attr = opt ? opt.attributeName() : f.name;
    const raw = cmd.getOptionValue(attr) as unknown;
    const fromCli = cmd.getOptionValueSource(attr) === "cli";
    let v: unknown = fromCli ? (opt?.negate ? raw === false : raw) : f.defaultValue;
    if (explicitFalse.has(f.name)) {
      v = false;
      changed.add(f.name);
    }
    if (fromCli) changed.add(f.name);
    values.set(f.name, v);
  }
  return { values, changed };
}

/**
 * In a scoped app, a global given to a command it does nothing on is refused, as a flag the command does not have;
 * a config file that would not be read is named.
 */
function refuseInertGlobals(node: CommandNode, given: ReadonlySet<string>, config: string): void {
  for (const f of node.root().persistent) {
    if (!given.has(f.name) || node.globalActs(f) || FEWER_EFFECTS_GLOBALS.has(f.id ?? "")) continue;
    if (f.id === "config") throw new FlagParseError(`unknown flag: --${f.name}: ${node.commandPath()} reads no config file (${JSON.stringify(config)} was not read)`);
    throw new FlagParseError(`unknown flag: --${f.name}`);
  }
}

/** Cobra's positional-argument validators and texts. */
function checkArgs(rule: ArgsRule, args: string[], node: CommandNode): void {
  const n = args.length;
  if (rule === "any") return;
  if (rule === "none") {
    const hint = node.spec.unknownOperandHint;
    if (n > 0) throw new UsageError(`unknown command "${args[0]}" for "${node.commandPath()}"${hint === undefined ? "" : ` (${hint(args[0]!)})`}`);
  } else if ("exact" in rule) {
    if (n !== rule.exact) throw new UsageError(`accepts ${rule.exact} arg(s), received ${n}`);
  } else if ("min" in rule) {
    if (n < rule.min) throw new UsageError(`requires at least ${rule.min} arg(s), only received ${n}`);
  } else if ("max" in rule) {
    if (n > rule.max) throw new UsageError(`accepts at most ${rule.max} arg(s), received ${n}`);
  } else if (n < rule.range[0] || n > rule.range[1]) {
    throw new UsageError(`accepts between ${rule.range[0]} and ${rule.range[1]} arg(s), received ${n}`);
  }
}

/** commander's parse failures in pflag's words. */
function translateCommanderError(err: CommanderError): Error {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? "";
  switch (err.code) {
    case "commander.unknownOption": {
      const token = quoted.split("=")[0]!;
      if (token.startsWith("--")) return new FlagParseError(`unknown flag: ${token}`);
      return new FlagParseError(`unknown shorthand flag: '${token.slice(1, 2)}' in ${token}`);
    }
    case "commander.optionMissingArgument": {
      const long = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
      return new FlagParseError(`flag needs an argument: ${long}`);
    }
    default:
      return new FlagParseError(err.message.replace(/^error: /, ""));
  }
}

/** Text is written at most this many code units at a time. */
const WRITE_SLICE = 1 << 20;

/**
 * Writes text in slices (never between the halves of a surrogate pair), so that a large output is
 * not first copied whole into one buffer.
 */
export function writeInSlices(stream: NodeJS.WritableStream, text: string): void {
  if (text.length <= WRITE_SLICE) {
    stream.write(text);
    return;
  }
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + WRITE_SLICE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    stream.write(text.slice(i, end));
    i = end;
  }
}
