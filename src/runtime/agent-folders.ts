// The folders the agent works in, where it writes files: hcp's working folder and `--cwd`, the folder a verb runs in
// unless its pack's policy.json puts it elsewhere (MCP clients start servers in the project), those the operator
// names in HCP_AGENT_FOLDERS (an agent that edits a project through other tools while its client starts hcp in `/`,
// or that chooses the folder `hcp run` runs in), and those an MCP client names as its workspace (its roots: each only
// adds to what is refused, so the client's word is taken). None of them is one when it is `/`, the home folder or
// holds it (a server Claude Desktop starts in `/`, or one started in `~`): the agent then has no folder of its own
// that hcp can tell. What hcp runs or reads as the person's (a program found on PATH, an approver, the state
// directory, the credential file) must not lie in one.

import { realpathSync } from "node:fs";
import { knownHomeFolder } from "../home-folder.js";
import { basename, delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { within } from "../within.js";

/** How messages name the agent's folders. */
export const AGENT_FOLDERS = "hcp's working folder, --cwd, HCP_AGENT_FOLDERS or the MCP client's roots";

/**
 * The folders the operator names in HCP_AGENT_FOLDERS (absolute paths, separated as PATH's are; relative ones are
 * ignored): hcp's own environment, which an agent allowed only `hcp run …` cannot change, as HCP_NO_PROMPT.
 */
export function declaredAgentFolders(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  return (env["HCP_AGENT_FOLDERS"] ?? "").split(delimiter).filter((dir) => dir !== "" && isAbsolute(dir));
}

/** The folders the MCP client named as its workspace (roots): added as it names them, never taken away. */
const clientRoots = new Set<string>();

/** Adds the folders of an MCP client's roots (its `file:` URIs; others are not folders here); returns those new. */
export function addClientRoots(uris: readonly string[]): string[] {
  const added: string[] = [];
  for (const uri of uris) {
    let path: string;
    try {
      path = fileURLToPath(uri);
    } catch {
      continue;
    }
    if (clientRoots.has(path)) continue;
    clientRoots.add(path);
    added.push(path);
  }
  return added;
}

/** The agent's folders besides hcp's working folder and `--cwd`: those HCP_AGENT_FOLDERS names, then the client's roots. */
export const namedAgentFolders = (): string[] => [...declaredAgentFolders(), ...clientRoots];

/** Who named a folder of namedAgentFolders(), for messages. */
export const namedBy = (folder: string): string =>
  declaredAgentFolders().includes(folder) ? "a folder HCP_AGENT_FOLDERS names" : "a folder the MCP client named as its workspace (its roots)";

/** The folders the agent works in: hcp's own working folder, `cwd` (`--cwd`, where the verbs run) and those named. */
export const agentFoldersOf = (cwd: string | undefined): string[] => [process.cwd(), ...(cwd === undefined ? [] : [cwd]), ...namedAgentFolders()];

/**
 * The names of an agent's folder: its path and its real path (a link's target), as a path in it may name it either
 * way. None for `/`, the home folder or a folder holding it.
 */
export function namesOf(folder: string): string[] {
  const path = resolve(folder);
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // a folder that is not there: its path alone
  }
  // Where no home folder can be told (no HOME, a user the password database does not know), `/` alone is set apart.
  const home = resolve(knownHomeFolder() ?? "/");
  if ([path, real].some((name) => within(home, name))) return [];
  return real === path ? [path] : [path, real];
}

/** Whether `path` lies in `folder` taken as the agent's (never when `folder` is `/`, the home folder or holds it). */
export function inAgentFolder(folder: string, path: string): boolean {
  const target = resolve(path);
  return namesOf(folder).some((name) => within(target, name));
}

/** `path` with the links of its longest existing part followed: where a file there is, or would be made. */
function realPathSoFar(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    return parent === absolute ? absolute : join(realPathSoFar(parent), basename(absolute));
  }
}

/** The first of `folders` that `path` lies in, by its path or where its links lead; undefined when none. */
export function agentFolderHolding(path: string, folders: readonly string[]): string | undefined {
  const targets = [resolve(path), realPathSoFar(path)];
  return folders.find((folder) => namesOf(folder).some((name) => targets.some((target) => within(target, name))));
}
