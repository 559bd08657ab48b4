// Typed errors and the single error → exit-code classification of rungrad-spec/1 (§d).

import { goQuote } from "../json/goquote.js";

/** Process exit codes: the agent-facing contract. */
export const ExitCode = {
  Success: 0,
  Usage: 1,
  API: 2,
  Auth: 3,
  Forbidden: 4,
  NotFound: 5,
  RateLimited: 6,
} as const;

/** An error that carries its own exit code (Go's exitCoder). */
export class RungradError extends Error {
  override name = "RungradError";
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** An error with its own exit code and extra fields for the machine error body (never `error` or `exit_code`). */
export class DetailedError extends RungradError {
  override name = "DetailedError";
  constructor(
    exitCode: number,
    message: string,
    private readonly fields: Readonly<Record<string, unknown>>,
  ) {
    super(exitCode, message);
  }
  details(): Record<string, unknown> {
    const { error: _e, exit_code: _x, ...rest } = this.fields;
    return rest;
  }
}

/** A bad invocation detected by the framework (args, required flags, guards): exit 1. */
export class UsageError extends RungradError {
  override name = "UsageError";
  constructor(message: string) {
    super(ExitCode.Usage, message);
  }
}

/** A flag the parser could not accept; machine mode for it is read from raw argv. */
export class FlagParseError extends UsageError {
  override name = "FlagParseError";
}

/** Cobra's unknown-command failure; machine mode for it is read from raw argv. */
export class UnknownCommandError extends Error {
  override name = "UnknownCommandError";
  /** `suggestion` is Cobra's "Did you mean this?" text ("" for none). */
  constructor(arg: string, commandPath: string, suggestion = "") {
    super(`unknown command ${goQuote(arg)} for ${goQuote(commandPath)}${suggestion}`);
  }
}

/** No credential in the env var or the profile store. */
export class MissingCredentialError extends Error {
  override name = "MissingCredentialError";
  constructor() {
    super("no credential found");
  }
}

/** A config or credentials file that cannot be read or parsed (config.Error): exit 1. */
export class ConfigError extends RungradError {
  override name = "ConfigError";
  constructor(message: string) {
    super(ExitCode.Usage, message);
  }
}

/** One candidate of a name resolution. */
export interface Match {
  id: string;
  name: string;
  context?: string;
}

/** A name that matched nothing: exit 5. */
export class NotFoundError extends Error {
  override name = "NotFoundError";
  constructor(
    readonly resourceType: string,
    readonly resourceName: string,
    readonly available: string[] | null = null,
  ) {
    const base = `${resourceType} ${goQuote(resourceName)} not found`;
    super(available && available.length > 0 ? `${base}, available: ${available.join(", ")}` : base);
  }
  details(): Record<string, unknown> {
    return { available: this.available, name: this.resourceName, resource_type: this.resourceType };
  }
}

/** A name that matched several resources where no prompt is allowed: exit 1. */
export class AmbiguousError extends Error {
  override name = "AmbiguousError";
  constructor(
    readonly resourceType: string,
    readonly resourceName: string,
    readonly matches: Match[],
  ) {
    super(`ambiguous ${resourceType} name ${goQuote(resourceName)}, candidates:` + matches.map((m) => "\n  " + matchLabel(m)).join(""));
  }
  details(): Record<string, unknown> {
    const candidates = this.matches.map((m) => (m.context ? { id: m.id, name: m.name, context: m.context } : { id: m.id, name: m.name }));
    return { candidates, name: this.resourceName, resource_type: this.resourceType };
  }
}

/** `name (context) [id]`, the candidate line of prompts and ambiguity errors. */
export function matchLabel(m: Match): string {
  let s = m.name;
  if (m.context) s += ` (${m.context})`;
  if (m.id) s += ` [${m.id}]`;
  return s;
}

/** A framework misconfiguration detected while building the app (Go panics with these texts). */
export class SurfaceError extends Error {
  override name = "SurfaceError";
}

/** Exit code for an error, in §d's order: own code → credential → not found → ambiguous → unknown command → 2. */
export function classifyExit(err: unknown): number {
  if (err === null || err === undefined) return ExitCode.Success;
  if (err instanceof RungradError) return err.exitCode;
  if (err instanceof MissingCredentialError) return ExitCode.Auth;
  if (err instanceof NotFoundError) return ExitCode.NotFound;
  if (err instanceof AmbiguousError) return ExitCode.Usage;
  const msg = err instanceof Error ? err.message : String(err);
  if (msg.toLowerCase().startsWith("unknown command ")) return ExitCode.Usage;
  return ExitCode.API;
}

/** Structured details merged into the machine error body, if the error has any. */
export function errorDetails(err: unknown): Record<string, unknown> | undefined {
  if (err instanceof NotFoundError || err instanceof AmbiguousError || err instanceof DetailedError) return err.details();
  return undefined;
}

/** The message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
