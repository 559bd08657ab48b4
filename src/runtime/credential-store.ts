// Managing stored credentials (§9, `hcp credentials`): one named value of a family, in the credential
// file (`env` or, for a security scheme, `openapi`) or in the system keyring. The file is written whole,
// atomically, mode 0600; a value is never taken from or shown in argv.

import { FileWriteError, writeFileSafely } from "../files.js";
import { setOwn } from "../json/own.js";
import { isObject } from "../pack/issues.js";
import { credentialFilePath, readCredentialFile } from "./credentials.js";
import { CredentialError } from "./errors.js";
import { keyringDelete, keyringGet, keyringService, keyringSet } from "./keyring.js";

export interface CredentialRef {
  readonly family: string;
  readonly name: string;
  /** A security scheme's value (`openapi`), not a variable (`env`). */
  readonly scheme?: boolean;
  /** In the system keyring instead of the credential file. */
  readonly keyring?: boolean;
  /** The runtime's environment: where the credential file is (`HCP_CREDENTIALS`, `HOME`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FAMILY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Where a credential lives, for messages: `keyring hcp:fam` or `credential file PATH (env)`. */
export function credentialPlace(ref: CredentialRef): string {
  return ref.keyring ? `keyring ${keyringService(ref.family)}` : `credential file ${credentialFilePath(ref.env)} (${ref.scheme ? "openapi" : "env"})`;
}

/** Refuses a family or name the runtime could never read back. */
function checkRef(ref: CredentialRef): void {
  if (!FAMILY.test(ref.family)) throw new CredentialError("credentials_invalid", `family ${JSON.stringify(ref.family)} must be 1 to 128 letters, digits, ., _ or -`);
  const ok = ref.scheme || ref.keyring ? ref.name !== "" && ref.name.length <= 128 && !/[\0-\x1f]/.test(ref.name) : ENV_NAME.test(ref.name);
  if (!ok) throw new CredentialError("credentials_invalid", `${JSON.stringify(ref.name)} is not ${ref.scheme || ref.keyring ? "a credential name" : "a variable name (letters, digits and _; --scheme for a security scheme)"}`);
}

/** Refuses a value that could not travel in a variable or a header. */
function checkValue(value: string): void {
  if (value === "") throw new CredentialError("credentials_invalid", "the value is empty");
  if (/[\0\r\n]/.test(value)) throw new CredentialError("credentials_invalid", "the value contains NUL, CR or LF");
}

const section = (ref: CredentialRef) => (ref.scheme ? "openapi" : "env");

async function writeDocument(path: string, doc: Record<string, unknown>): Promise<void> {
  try {
    await writeFileSafely(path, JSON.stringify(doc, null, 2) + "\n", { mode: 0o600, replace: true, dirMode: 0o700 });
  } catch (e) {
    if (e instanceof FileWriteError) throw new CredentialError("credentials_unavailable", `cannot write credential file ${path}: ${e.message}`);
    throw e;
  }
}

/** Stores the value, replacing the one there. */
export async function setCredential(ref: CredentialRef, value: string): Promise<void> {
  checkRef(ref);
  checkValue(value);
  if (ref.keyring) return keyringSet(ref.family, ref.name, value);
  const path = credentialFilePath(ref.env);
  const doc = readCredentialFile(path) ?? {};
  const entry = Object.hasOwn(doc, ref.family) ? doc[ref.family] : {};
  if (!isObject(entry)) throw new CredentialError("credentials_invalid", `credential file ${path}: family ${JSON.stringify(ref.family)} is not an object`);
  const values = entry[section(ref)] ?? {};
  if (!isObject(values)) throw new CredentialError("credentials_invalid", `credential file ${path}: family ${JSON.stringify(ref.family)}: ${section(ref)} is not an object`);
  setOwn(values, ref.name, value);
  setOwn(entry, section(ref), values);
  setOwn(doc, ref.family, entry);
  await writeDocument(path, doc);
}

/** The stored value, or null when there is none. */
export function getCredential(ref: CredentialRef): string | null {
  checkRef(ref);
  if (ref.keyring) return keyringGet(ref.family, ref.name);
  const doc = readCredentialFile(credentialFilePath(ref.env));
  const entry = doc !== undefined && Object.hasOwn(doc, ref.family) ? doc[ref.family] : undefined;
  const values = isObject(entry) ? entry[section(ref)] : undefined;
  const value = isObject(values) && Object.hasOwn(values, ref.name) ? values[ref.name] : undefined;
  return typeof value === "string" ? value : null;
}

/** Removes the value; false when there was none. */
export async function deleteCredential(ref: CredentialRef): Promise<boolean> {
  checkRef(ref);
  if (ref.keyring) return keyringDelete(ref.family, ref.name);
  const path = credentialFilePath(ref.env);
  const doc = readCredentialFile(path);
  const entry = doc !== undefined && Object.hasOwn(doc, ref.family) ? doc[ref.family] : undefined;
  const values = isObject(entry) ? entry[section(ref)] : undefined;
  if (doc === undefined || !isObject(values) || !Object.hasOwn(values, ref.name)) return false;
  delete values[ref.name];
  await writeDocument(path, doc);
  return true;
}
