// Finds the program of a verb (§6.1): `.`-prefixed and other relative paths against the pack root, bare names on PATH.

import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { absolutePathEntries } from "./env.js";
import { RuntimeError } from "./errors.js";

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves a program name to an absolute path. Absolute paths stay; `.`-prefixed names
 * (`./bin/x`, `.probe`, `../../bins/ledger.mjs`) and other names with a slash resolve against
 * the pack root and may leave it (a relative path is never taken from the runtime's cwd);
 * bare names are searched on PATH, whose empty and relative entries are skipped.
 * A path that does not exist is returned as is: starting it then fails with a clear spawn error.
 */
export function resolveProgram(bin: string, packRoot: string, path: string | undefined): string {
  if (bin.includes("\0")) throw new RuntimeError("program_not_found", `program name ${JSON.stringify(bin)} contains NUL`);
  if (isAbsolute(bin)) return bin;
  if (bin.startsWith(".") || bin.includes("/")) return resolve(packRoot, bin);
  for (const dir of absolutePathEntries(path)) {
    const candidate = join(dir, bin);
    if (isExecutableFile(candidate)) return candidate;
  }
  throw new RuntimeError(
    "program_not_found",
    `program ${JSON.stringify(bin)} was not found on PATH: put it on PATH, or write its path in the pack's surface.json (wrap.bin, or the verb's cli[0] in a composite pack; a path starting with . is relative to the pack folder)`,
  );
}
