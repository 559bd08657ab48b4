// The manifest extension by which a CLI asks that the pack hcp makes from it (hcp init --from-exe, --from-manifest)
// gate a command's verb behind a person's approval (policy write, confirm: true), or make it a write (`write: true`),
// beyond what rungrad's core fields say. For a command that is not destructive in rungrad's sense (it takes no `--confirm` of its own) yet hands an
// agent more than a read: hcp's own run, exec and serve run the verbs of the packs they are given, init runs the
// program it is given, credentials get prints a secret.

import type { ExtensionSet } from "../manifest/types.js";

const NAMESPACE = "hcp/policy";

/** The extensions of a command whose verb a person approves at each run: `{"hcp/policy": {"confirm": true}}`. */
export const PERSON_APPROVES: ExtensionSet = { [NAMESPACE]: { confirm: true } };

/** Whether a command's extensions ask for a person's approval of each run of its verb. */
export function asksPersonApproval(extensions: ExtensionSet | undefined): boolean {
  return extensions?.[NAMESPACE]?.["confirm"] === true;
}

/**
 * The extensions of a command whose verb is a write without being a mutation in rungrad's sense (which would give it
 * `--dry-run`): `{"hcp/policy": {"write": true}}`. hcp's own `trust` (its `--revoke` takes a person's trust away).
 */
export const WRITES: ExtensionSet = { [NAMESPACE]: { write: true } };

/** Whether a command's extensions make its verb a write. */
export function asksWrite(extensions: ExtensionSet | undefined): boolean {
  return extensions?.[NAMESPACE]?.["write"] === true;
}
