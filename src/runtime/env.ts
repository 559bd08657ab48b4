// The child's environment (§6.4): a short allowlist from the runtime, then pack, binding and credential variables. Pure.

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

/** Builds the complete child environment; later sources override earlier ones (PATH as it is: see search-path.ts). */
export function childEnv(input: ChildEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  const pass = (name: string): void => {
    const value = Object.hasOwn(input.parent, name) ? input.parent[name] : undefined;
    if (value !== undefined) env[name] = value;
  };
  for (const name of BASE_ENV_NAMES) pass(name);
  for (const name of input.policyEnv ?? []) pass(name);
  Object.assign(env, input.agentEnv);
  env["HCP_PACK_ID"] = input.packId;
  if (input.verb !== undefined) env["HCP_VERB"] = input.verb;
  if (input.bindingMode !== undefined) env["HCP_BINDING_MODE"] = input.bindingMode;
  if (input.bindingFamily !== undefined) env["HCP_BINDING_FAMILY"] = input.bindingFamily;
  Object.assign(env, input.credentials);
  return env;
}
