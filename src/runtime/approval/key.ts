// The per-user key that signs plan ids, pending plans and approvals (§7): 32 random bytes in
// <state>/key, mode 0600, made on first use; a key file anyone else could read is refused.

import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { RuntimeError } from "../errors.js";
import { ensurePrivateDir, ensurePrivateDirSync, readPrivate, writePrivate } from "./state.js";

const KEY_BYTES = 32;

/** The key of the state directory, made (exclusively: two first uses agree on one key) when absent. */
export async function loadKey(stateDir: string): Promise<Buffer> {
  await ensurePrivateDir(stateDir);
  return keyIn(stateDir);
}

/** loadKey without waiting, for a value computed when first read (a plan's secret digests). */
export function loadKeySync(stateDir: string): Buffer {
  ensurePrivateDirSync(stateDir);
  return keyIn(stateDir);
}

/** Where the key file of a state directory is. */
export const keyPath = (stateDir: string) => join(stateDir, "key");

/** The key file of an existing private directory, made when absent. */
function keyIn(stateDir: string): Buffer {
  const path = keyPath(stateDir);
  let key = readPrivate(path, "the hcp key file", "state_insecure");
  if (key === undefined) {
    writePrivate(path, randomBytes(KEY_BYTES), true);
    key = readPrivate(path, "the hcp key file", "state_insecure");
  }
  if (key === undefined || key.length !== KEY_BYTES) {
    throw new RuntimeError("state_insecure", `the hcp key file ${path} is damaged (not ${KEY_BYTES} bytes); remove it to make a new one (pending plan ids then become invalid)`);
  }
  return key;
}
