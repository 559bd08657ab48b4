// The programs' own error: a message for the user and the exit code it maps to (the framework renders it).

import { ExitCode, RungradError } from "../framework/errors.js";

/** An error a command reports to its user, with the exit code it maps to (1, usage, unless said otherwise). */
export class CliError extends RungradError {
  override name = "CliError";
  constructor(message: string, exitCode: number = ExitCode.Usage) {
    super(exitCode, message);
  }
}
