// writeProject: generates, then writes under <dir>/<name> (dirs 0755, files 0644), refusing a non-empty target and never replacing a file.

import { readdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { makeDirs } from "../files.js";
import { ScaffoldExistsError } from "./errors.js";
import { generate } from "./generate.js";
import type { ScaffoldOptions } from "./options.js";

/** The project directory for a parent directory and a tool name (cleaned, like Go's filepath.Join). */
export const projectRoot = (dir: string, name: string): string => join(dir, name);

async function isNonEmptyDir(path: string): Promise<boolean> {
  try {
    return (await readdir(path)).length > 0;
  } catch {
    return false;
  }
}

/** Writes the project and returns its root. Validation errors come first; nothing is written on any refusal. */
export async function writeProject(dir: string, options: ScaffoldOptions): Promise<string> {
  const project = generate(options);
  const root = projectRoot(dir, project.settings.name);
  if (await isNonEmptyDir(root)) throw new ScaffoldExistsError(root);
  for (const file of project.files) {
    const full = join(root, ...file.path.split("/"));
    await makeDirs(dirname(full), 0o755);
    // "wx": a file that appeared since the emptiness check is never replaced.
    await writeFile(full, file.content, { mode: 0o644, flag: "wx" });
  }
  return root;
}
