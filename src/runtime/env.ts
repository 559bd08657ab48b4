// The child's environment (§6.4): a short allowlist from the runtime, then pack, binding and credential variables. Pure.

import { delimiter, isAbsolute } from "node:path";

/** Whether `name` is an environment variable's name: letters, digits and `_`, not starting with a digit. */
export function isVariableName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name);
}

/** Variables passed through from the runtime's environment when set. */
export const BASE_ENV_NAMES = ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER"] as const;

export interface ChildEnvInput {
  /** The runtime's own environment (usually process.env); only named variables are read from it. */
  readonly parent: Readonly<Record<string, string | undefined>>;
  /** policy.json `env`: more names read from the parent. */
  readonly policyEnv?: readonly string[];
  /** wrap.agent_env: fixed values declared by the pack. */
  readonly agentEnv?: Readonly<Record<string, string>>;
  readonly packId: string;
  /** The verb key; absent for pass-through. */
  readonly verb?: string;
  readonly bindingMode?: string;
  readonly bindingFamily?: string;
  /** Credential variables (§9); set last. */
  readonly credentials?: Readonly<Record<string, string>>;
}

/**
 * The absolute entries of a PATH. An empty or relative entry (`node_modules/.bin`, `.`, a leading or trailing `:`) is
 * searched from the folder a program runs in, the agent's workspace: hcp never looks a program up there, and neither
 * may a program it runs (`#!/usr/bin/env node`, a script calling `jq` by name).
 */
export function absolutePathEntries(path: string | undefined): string[] {
  return (path ?? "").split(delimiter).filter((dir) => dir !== "" && isAbsolute(dir));
}

/**
 * Leaves in `env`'s PATH its absolute entries only, for every program hcp runs (a verb's, an approver); with none
 * left, no PATH at all, since an empty one is searched from the working folder too. Returns `env`.
 */
export function withAbsolutePath(env: Record<string, string>): Record<string, string> {
  if (env["PATH"] === undefined) return env;
  const entries = absolutePathEntries(env["PATH"]);
  if (entries.length > 0) env["PATH"] = entries.join(delimiter);
  else delete env["PATH"];
  return env;
}

/** Builds the complete child environment; later sources override earlier ones. PATH keeps its absolute entries only. */
export function childEnv(input: ChildEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  const pass = (name: string): void => {
    const value = Object.hasOwn(input.parent, name) ? input.parent[name] : undefined;
    if (value !== undefined) env[name] = value;
  };
  for (const name of BASE_ENV_NAMES) pass(name);
  for (const name of input.policyEnv ?? []) pass(name);
  Object.assign(env, input.agentEnv);
  withAbsolutePath(env);
  env["HCP_PACK_ID"] = input.packId;
  if (input.verb !== undefined) env["HCP_VERB"] = input.verb;
  if (input.bindingMode !== undefined) env["HCP_BINDING_MODE"] = input.bindingMode;
  if (input.bindingFamily !== undefined) env["HCP_BINDING_FAMILY"] = input.bindingFamily;
  Object.assign(env, input.credentials);
  return env;
}
