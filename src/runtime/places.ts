// The environment variables that say where hcp keeps its state, configuration, credentials and audit log (and where the
// agent writes files), and how a server started elsewhere (an MCP client starts it with the client's environment) is
// told the same places.

import { delimiter, isAbsolute, resolve } from "node:path";
import { homeFolder } from "../home-folder.js";
import { declaredAgentFolders } from "./agent-folders.js";
import { RuntimeError, type RuntimeErrorCode } from "./errors.js";

type Env = Readonly<Record<string, string | undefined>>;

/** The place variables, each read by placesEnv below. */
export const PLACE_VARIABLES = ["HCP_CREDENTIALS", "HCP_AUDIT", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "HCP_AGENT_FOLDERS"] as const;

/** An XDG base directory variable's value, or undefined when unset or relative: the XDG rule ignores a relative one. */
export function xdgBase(env: Env, name: "XDG_STATE_HOME" | "XDG_CONFIG_HOME"): string | undefined {
  const value = env[name];
  return value !== undefined && isAbsolute(value) ? value : undefined;
}

/**
 * The home folder a default place hangs from (HOME from the runtime's environment); where none can be told, the error
 * `code` of what needs that place, saying to set HOME or `instead`, the variable that sets the place.
 */
export function homeOf(env: Env, code: RuntimeErrorCode, instead: (typeof PLACE_VARIABLES)[number]): string {
  try {
    return env["HOME"] || homeFolder(instead);
  } catch (err) {
    throw new RuntimeError(code, (err as Error).message);
  }
}

/**
 * Each place variable set in `env`, as a process started from another folder must see it to use the places this
 * one uses: HCP_CREDENTIALS and HCP_AUDIT made absolute against `cwd` (HCP_AUDIT=none stays none); XDG_STATE_HOME
 * (approvals, plan key, trust store, default audit log) and XDG_CONFIG_HOME (the approvers file) when absolute
 * only, since hcp ignores a relative one and so must that process; HCP_AGENT_FOLDERS's absolute entries (the folders the
 * agent writes in, agent-folders.ts). An empty value means unset to hcp, so it is
 * left out. HOME, which the defaults hang from, is not one: the client runs as the same user with the same home,
 * and changing it would change every wrapped program's own configuration too.
 */
export function placesEnv(env: Env, cwd: string = process.cwd()): Record<string, string> {
  const out: Record<string, string> = {};
  const credentials = env["HCP_CREDENTIALS"];
  if (credentials) out["HCP_CREDENTIALS"] = resolve(cwd, credentials);
  const audit = env["HCP_AUDIT"];
  if (audit) out["HCP_AUDIT"] = audit === "none" ? audit : resolve(cwd, audit);
  for (const name of ["XDG_CONFIG_HOME", "XDG_STATE_HOME"] as const) {
    const base = xdgBase(env, name);
    if (base !== undefined) out[name] = base;
  }
  const agentFolders = declaredAgentFolders(env);
  if (agentFolders.length > 0) out["HCP_AGENT_FOLDERS"] = agentFolders.join(delimiter);
  return out;
}
