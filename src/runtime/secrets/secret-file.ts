// Reading a file that holds secrets (the credential file, `hcp serve --token-file`): a regular file of bounded size
// that only its owner can read or write, read without blocking, and never quoted in an error.

import type { Stats } from "node:fs";
import { FileReadError, readRegularFile } from "../../read-regular.js";
import { octal } from "../approval/state.js";
import { CredentialError } from "../errors.js";

/** The largest file of secrets read: 1 MiB. */
export const SECRET_FILE_MAX_BYTES = 1 << 20;

/** Refuses a file that group or others may read or write, or that another user owns (they could replace its secrets). */
function checkPrivate(what: string, path: string, st: Stats): void {
  if ((st.mode & 0o077) !== 0) {
    throw new CredentialError("credentials_insecure", `${what} ${path} has mode ${octal(st.mode)}; only its owner may read or write it (chmod 600 ${path})`);
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new CredentialError("credentials_insecure", `${what} ${path} is owned by uid ${st.uid}, not by this user (uid ${uid}): use a file of your own, mode 600`);
  }
}

/**
 * The text of a file of secrets, `what` naming it in errors ("credential file"): a regular file of at most 1 MiB (a
 * FIFO or a device is refused without blocking) that only its owner may use; undefined when it does not exist.
 */
export function readSecretFile(path: string, what: string): string | undefined {
  try {
    return readRegularFile(path, SECRET_FILE_MAX_BYTES, (st) => checkPrivate(what, path, st)).toString("utf8");
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    if (e.code === "ENOENT") return undefined;
    const code = e.code === "not_regular" || e.code === "too_large" ? "credentials_invalid" : "credentials_unavailable";
    throw new CredentialError(code, `cannot read ${what} ${path}: ${e.reason}`);
  }
}
