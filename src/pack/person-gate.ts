// The manifest extension by which a CLI asks that the pack hcp makes from it (hcp init --from-exe, --from-manifest)
// gate a command's verb beyond what rungrad's core fields say: behind a person's approval (`confirm: true`: policy
// write, confirm: true), or as a write (`write: true`). For a command that is not destructive or a mutation in
// rungrad's sense (no `--confirm` or `--dry-run` of its own) yet hands an agent more than a read: hcp's own run, exec
// and serve run the verbs of the packs they are given, init runs the program it is given, credentials get prints a
// secret, trust --revoke takes a person's trust away.
//
// On the root command, `env` names the variables the pack's policy passes to the program (policy `env`, §6.4): the
// places a CLI reads from its environment, without which its verbs would not see what the person running the pack
// set (hcp's own state, configuration, credential file and audit log).

import type { ExtensionSet } from "../manifest/types.js";
import { PLACEHOLDER_NAME } from "./placeholders.js";

/** The extension namespace hcp reads (named in init's notes). */
export const PACK_POLICY_NAMESPACE = "hcp/policy";

/** The extensions of a command whose verb a person approves at each run: `{"hcp/policy": {"confirm": true}}`. */
export const PERSON_APPROVES: ExtensionSet = { [PACK_POLICY_NAMESPACE]: { confirm: true } };

/** The extensions of a command whose verb is a write: `{"hcp/policy": {"write": true}}`. */
export const WRITES: ExtensionSet = { [PACK_POLICY_NAMESPACE]: { write: true } };

/** The extensions of a root command whose pack passes these variables to the program: `{"hcp/policy": {"env": [...]}}`. */
export function passesEnv(names: readonly string[]): ExtensionSet {
  return { [PACK_POLICY_NAMESPACE]: { env: [...names] } };
}

/** What a command's extensions ask of its pack. */
export interface PackPolicyAsk {
  /** A person's approval of each run of its verb. */
  confirm: boolean;
  /** Its verb is a write. */
  write: boolean;
  /** Variables passed to the program (read on the root command only): valid names, each once, in order. */
  env: string[];
  /** Why parts of the ask were left out, one sentence each. */
  ignored: string[];
}

/** What a command's extensions ask of its pack (pure). */
export function packPolicyOf(extensions: ExtensionSet | undefined): PackPolicyAsk {
  const asked = extensions?.[PACK_POLICY_NAMESPACE];
  const ask: PackPolicyAsk = { confirm: asked?.["confirm"] === true, write: asked?.["write"] === true, env: [], ignored: [] };
  const env = asked?.["env"];
  if (env === undefined) return ask;
  if (!Array.isArray(env)) {
    ask.ignored.push(`"${PACK_POLICY_NAMESPACE}" env left out: it must be an array of variable names`);
    return ask;
  }
  env.forEach((name: unknown, i) => {
    if (typeof name !== "string" || !PLACEHOLDER_NAME.test(name)) ask.ignored.push(`"${PACK_POLICY_NAMESPACE}" env[${i}] left out: env takes variable names matching ${PLACEHOLDER_NAME.source}`);
    else if (!ask.env.includes(name)) ask.env.push(name);
  });
  return ask;
}
