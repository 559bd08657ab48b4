// Managing stored credentials (§9, `hcp credentials`): one named value of a family, in the credential
// file (`env` or, for a security scheme, `openapi`) or in the system keyring. The file is written whole,
// atomically, mode 0600; a value is never taken from or shown in argv.

import { FileWriteError, writeFileSafely } from "../../files.js";
import { setOwn } from "../../json/own.js";
import { isObject } from "../../pack/issues.js";
import { credentialFilePath, readCredentialFile } from "./credentials.js";
import { CredentialError, RuntimeError, showValue } from "../errors.js";
import { keyringDelete, keyringGet, keyringService, keyringSet } from "./keyring.js";
import { isVariableName } from "../env.js";

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

const FAMILY = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Where a credential lives, for messages: `keyring hcp:fam` or `credential file PATH (env)`. */
export function credentialPlace(ref: CredentialRef): string {
  return ref.keyring ? `keyring ${keyringService(ref.family)}` : `credential file ${credentialFilePath(ref.env)} (${ref.scheme ? "openapi" : "env"})`;
}

// A family, name or value the user gave that cannot be stored is a usage error (exit 1, rungrad-spec/1's
// "bad args"), not an unusable credential (exit 3, which is for what hcp finds stored).

/** Refuses a family or name the runtime could never read back. */
function checkRef(ref: CredentialRef): void {
  if (!FAMILY.test(ref.family)) throw new RuntimeError("invalid_argument", `FAMILY ${showValue(ref.family)} must be 1 to 128 letters, digits, ., _ or -, starting with a letter or digit`);
  const ok = ref.scheme || ref.keyring ? ref.name !== "" && ref.name.length <= 128 && !/[\0-\x1f]/.test(ref.name) : isVariableName(ref.name);
  if (!ok) {
    const rule = ref.scheme || ref.keyring ? "a credential name (1 to 128 characters, no control character)" : "a variable name (letters, digits and _, not starting with a digit; --scheme for a security scheme)";
    throw new RuntimeError("invalid_argument", `NAME ${showValue(ref.name)} is not ${rule}`);
  }
}

/** Refuses a value that could not travel in a variable or a header. */
function checkValue(value: string): void {
  if (value === "") throw new RuntimeError("invalid_argument", "the value is empty");
  if (/[\0\r\n]/.test(value)) throw new RuntimeError("invalid_argument", "the value contains NUL, CR or LF (a value is one line)");
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

/** `record[key]`; when missing, a new object put there if `make`, else undefined. */
function member(record: Record<string, unknown>, key: string, make: boolean): unknown {
  if (Object.hasOwn(record, key)) return record[key];
  if (!make) return undefined;
  const made = {};
  setOwn(record, key, made);
  return made;
}

/**
 * The family's values of the ref's section (`env` or `openapi`) in the document, made when `make` and
 * missing, else undefined when missing; an entry or section that is not an object is refused.
 */
function sectionOf(doc: Record<string, unknown>, ref: CredentialRef, path: string, make: boolean): Record<string, unknown> | undefined {
  const where = `credential file ${path}: family ${JSON.stringify(ref.family)}`;
  const entry = member(doc, ref.family, make);
  if (entry === undefined) return undefined;
  if (!isObject(entry)) throw new CredentialError("credentials_invalid", `${where} is not an object`);
  const values = member(entry, section(ref), make);
  if (values !== undefined && !isObject(values)) throw new CredentialError("credentials_invalid", `${where}: ${section(ref)} is not an object`);
  return values;
}

/** Stores the value, replacing the one there. */
export async function setCredential(ref: CredentialRef, value: string): Promise<void> {
  checkRef(ref);
  checkValue(value);
  if (ref.keyring) return keyringSet(ref.family, ref.name, value);
  const path = credentialFilePath(ref.env);
  const doc = readCredentialFile(path) ?? {};
  setOwn(sectionOf(doc, ref, path, true)!, ref.name, value);
  await writeDocument(path, doc);
}

/** The stored value, or null when there is none. */
export function getCredential(ref: CredentialRef): string | null {
  checkRef(ref);
  if (ref.keyring) return keyringGet(ref.family, ref.name);
  const path = credentialFilePath(ref.env);
  const doc = readCredentialFile(path);
  const values = doc === undefined ? undefined : sectionOf(doc, ref, path, false);
  const value = values !== undefined && Object.hasOwn(values, ref.name) ? values[ref.name] : undefined;
  return typeof value === "string" ? value : null;
}

/** Removes the value; false when there was none. */
export async function deleteCredential(ref: CredentialRef): Promise<boolean> {
  checkRef(ref);
  if (ref.keyring) return keyringDelete(ref.family, ref.name);
  const path = credentialFilePath(ref.env);
  const doc = readCredentialFile(path);
  const values = doc === undefined ? undefined : sectionOf(doc, ref, path, false);
  if (doc === undefined || values === undefined || !Object.hasOwn(values, ref.name)) return false;
  delete values[ref.name];
  await writeDocument(path, doc);
  return true;
}
