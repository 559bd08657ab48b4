// Finds the program of a verb (§6.1): `.`-prefixed and other relative paths against the pack root, bare names on PATH.

import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { RuntimeError } from "./errors.js";
import { agentFolderHolding, inAgentFolder, namedAgentFolders, namedBy } from "./agent-folders.js";
import { searchedEntries, skippedEntries } from "./search-path.js";

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
 * bare names are searched on PATH's absolute entries, and for a program that runs in `folder`, not those inside it
 * (search-path.ts). A path that does not exist is returned as is: starting it then fails with a clear spawn error.
 */
export function resolveProgram(bin: string, packRoot: string, path: string | undefined, folder?: string): string {
  if (bin.includes("\0")) throw new RuntimeError("program_not_found", `program name ${JSON.stringify(bin)} contains NUL`);
  if (isAbsolute(bin)) return bin;
  if (bin.startsWith(".") || bin.includes("/")) return resolve(packRoot, bin);
  for (const dir of searchedEntries(path, folder === undefined ? [] : [folder])) {
    const candidate = join(dir, bin);
    if (isExecutableFile(candidate)) return candidate;
  }
  const write = "write its path in the pack's surface.json (wrap.bin, or the verb's cli[0] in a composite pack; a path starting with . is relative to the pack folder)";
  const within = folder === undefined ? undefined : skippedEntries(path, folder).map((dir) => join(dir, bin)).find(isExecutableFile);
  if (folder !== undefined && within !== undefined) {
    const named = inAgentFolder(folder, within) ? undefined : agentFolderHolding(within, namedAgentFolders());
    const where = named === undefined ? `the folder it would run in (${JSON.stringify(folder)})` : `${namedBy(named)} (${JSON.stringify(named)})`;
    throw new RuntimeError(
      "program_not_found",
      `program ${JSON.stringify(bin)} is on PATH only at ${JSON.stringify(within)}, in ${where}, where the agent writes files: hcp does not look programs up there; ${write}, or put it on PATH elsewhere`,
    );
  }
  throw new RuntimeError("program_not_found", `program ${JSON.stringify(bin)} was not found on PATH: put it on PATH, or ${write}`);
}
