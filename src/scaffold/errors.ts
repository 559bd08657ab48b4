// Errors of the scaffold: invalid options (exit 1), a target that is not empty (exit 2), and generator guards (exit 2).

import { ExitCode, RungradError, UsageError } from "../framework/index.js";

/** Invalid scaffold input; the message is the user-facing text (`scaffold: …`). Exit 1. */
export class ScaffoldValidationError extends UsageError {
  override name = "ScaffoldValidationError";
}

/** The ScaffoldValidationError for a broken rule: `scaffold: <message>`. */
export const invalid = (message: string) => new ScaffoldValidationError(`scaffold: ${message}`);

/** The project directory exists and holds something: nothing is written. Exit 2, like Go's plain error. */
export class ScaffoldExistsError extends RungradError {
  override name = "ScaffoldExistsError";
  constructor(readonly root: string) {
    super(ExitCode.API, `scaffold: ${root} already exists and is not empty`);
  }
}

/** The generator's own output failed a check (a scaffold bug, not a user error). Exit 2. */
export class ScaffoldGeneratorError extends RungradError {
  override name = "ScaffoldGeneratorError";
  constructor(message: string) {
    super(ExitCode.API, message);
  }
}
