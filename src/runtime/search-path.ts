// Which entries of a PATH hcp, and the programs it runs, look programs up in: absolute ones outside the folder the
// program runs in (unless that is the home folder or holds it). That folder is the agent's workspace, where it writes
// files: an empty or relative entry (`node_modules/.bin`, `.`, a leading or trailing `:`) is searched from it, and an
// absolute one inside it (the `.venv/bin` an activated virtualenv puts first, direnv's `node_modules/.bin`) lies in
// it. A program found there (a verb's `git`, the `python3` of an approver's `#!/usr/bin/env python3`) would be one
// the agent wrote. The folders HCP_AGENT_FOLDERS and the MCP client's roots name are the agent's too (agent-folders.ts).

import { delimiter, isAbsolute, resolve } from "node:path";
import { within } from "../within.js";
import { namedAgentFolders, namesOf } from "./agent-folders.js";

/** A `.` or `..` part, a doubled separator or a trailing one: what path.resolve would change in an absolute path. */
const UNNORMAL = /\/\.\.?(?:\/|$)|\/\/|.\/$/;

/** An absolute path as path.resolve makes it, resolved only when it must be (most PATH entries need not). */
function normal(dir: string): string {
  return UNNORMAL.test(dir) ? resolve(dir) : dir;
}

/**
 * The entries of `path` searched for a program run from the agent's `folders`, the named ones added
 * (agent-folders.ts); none given: the absolute entries.
 */
export function searchedEntries(path: string | undefined, folders: readonly string[] = []): string[] {
  const absolute = (path ?? "").split(delimiter).filter((dir) => dir !== "" && isAbsolute(dir));
  if (folders.length === 0) return absolute;
  // Once each: a caller's folders (agentFoldersOf) may hold the named ones already, and each costs a realpath.
  const names = [...new Set([...folders, ...namedAgentFolders()])].flatMap(namesOf);
  if (names.length === 0) return absolute;
  return absolute.filter((dir) => !names.some((name) => within(normal(dir), name)));
}

/**
 * The entries of `path` left out for a program that runs in `folder`, each absolute: where a program the search did
 * not find may lie, for a message saying why it was not looked for there.
 */
export function skippedEntries(path: string | undefined, folder: string): string[] {
  const kept = new Set(searchedEntries(path, [folder]));
  return (path ?? "").split(delimiter).filter((dir) => dir !== "" && !kept.has(dir)).map((dir) => resolve(folder, dir));
}

/**
 * `env` with PATH holding only the entries searched for a program run from the agent's `folders`; none left, no PATH
 * at all, since an empty one is searched from the working folder too. Changes and returns `env`.
 */
export function withSearchedPath(env: Record<string, string>, folders: readonly string[]): Record<string, string> {
  if (env["PATH"] === undefined) return env;
  const entries = searchedEntries(env["PATH"], folders);
  if (entries.length > 0) env["PATH"] = entries.join(delimiter);
  else delete env["PATH"];
  return env;
}
