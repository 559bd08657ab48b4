// writeProject: generates, then writes under <dir>/<name> (dirs 0755, files 0644), all or nothing, refusing a non-empty target and never replacing a file.

import { systemReason } from "../errno.js";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ExitCode, RungradError } from "../framework/index.js";
import { FileWriteError, writeFiles } from "../files.js";
import { ScaffoldExistsError } from "./errors.js";
import { generate } from "./generate.js";
import type { ScaffoldOptions } from "./options.js";

/** The project directory for a parent directory and a tool name (cleaned, like Go's filepath.Join). */
export const projectRoot = (dir: string, name: string): string => join(dir, name);

/** Whether root holds anything; a folder that cannot be read is an error, never taken for empty. */
async function isNonEmptyDir(root: string): Promise<boolean> {
  try {
    return (await readdir(root)).length > 0;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return false;
    throw new RungradError(ExitCode.API, `scaffold: cannot read ${root}: ${systemReason(err)}`);
  }
}

/** Writes the project and returns its root. Validation errors come first; nothing is written on any refusal or failure. */
export async function writeProject(dir: string, options: ScaffoldOptions): Promise<string> {
  const project = generate(options);
  const root = projectRoot(dir, project.settings.name);
  if (await isNonEmptyDir(root)) throw new ScaffoldExistsError(root);
  try {
    // Under --dir, so that a link planted as the project folder is refused like any other. Never replace:
    // a file that appeared since the emptiness check is refused, and the run undone.
    const name = project.settings.name;
    await writeFiles(dir, project.files.map((f) => ({ path: `${name}/${f.path}`, content: f.content, mode: 0o644 })), { dirMode: 0o755 });
  } catch (err) {
    if (err instanceof FileWriteError) throw new RungradError(ExitCode.API, `scaffold: ${err.message}`);
    throw err;
  }
  return root;
}
