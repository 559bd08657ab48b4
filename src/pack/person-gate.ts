// The manifest extension by which a CLI asks that the pack hcp makes from it (hcp init --from-exe, --from-manifest)
// gate a command's verb beyond what rungrad's core fields say: behind a person's approval (`confirm: true`: policy
// write, confirm: true), or as a write (`write: true`). For a command that is not destructive or a mutation in
// rungrad's sense (no `--confirm` or `--dry-run` of its own) yet hands an agent more than a read: hcp's own run, exec
// and serve run the verbs of the packs they are given, init runs the program it is given, credentials get prints a
// secret, trust --revoke takes a person's trust away.

import type { ExtensionSet } from "../manifest/types.js";

const NAMESPACE = "hcp/policy";

/** The extensions of a command whose verb a person approves at each run: `{"hcp/policy": {"confirm": true}}`. */
export const PERSON_APPROVES: ExtensionSet = { [NAMESPACE]: { confirm: true } };

/** The extensions of a command whose verb is a write: `{"hcp/policy": {"write": true}}`. */
export const WRITES: ExtensionSet = { [NAMESPACE]: { write: true } };

/** What a command's extensions ask of its verb: a person's approval of each run (`confirm`), to be a write (`write`). */
export function packPolicyOf(extensions: ExtensionSet | undefined): { confirm: boolean; write: boolean } {
  const asked = extensions?.[NAMESPACE];
  return { confirm: asked?.["confirm"] === true, write: asked?.["write"] === true };
}
