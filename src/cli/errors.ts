// The one place where the programs' errors become exit codes and stderr text.

import { RungradError } from "../framework/errors.js";
import { stableJSON } from "../json/stable.js";

/** Exit codes of rungrad-spec/1: 1 usage, 2 runtime/upstream, 3 credentials, 4 forbidden, 5 not found, 6 rate limited. */
export const EXIT_USAGE = 1;
export const EXIT_RUNTIME = 2;

/** An error a command reports to its user, with the exit code it maps to (1 unless said otherwise). */
export class CliError extends RungradError {
  override name = "CliError";
  constructor(message: string, exitCode: number = EXIT_USAGE) {
    super(exitCode, message);
  }
}

/** Renders an error on stderr: `Error: <msg>` for people, `{"error","exit_code"}` StableJSON for programs. */
export function formatError(message: string, exitCode: number, machine: boolean): string {
  if (!machine) return `Error: ${message}\n`;
  const body = new Map<string, unknown>([
    ["error", message],
    ["exit_code", exitCode],
  ]);
  return stableJSON(body);
}
