// Credential hubs (§9): which variables a pack's binding adds to the child environment, and which values to redact.

import type { Stats } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { FileReadError, readRegularFile } from "../read-regular.js";
import { isObject } from "../pack/issues.js";
import type { HarnessBinding } from "../pack/types.js";
import { CredentialError } from "./errors.js";

/** Credential variables for the child and values for an API's security schemes; every value is a secret to redact. */
export interface Credentials {
  readonly env: Readonly<Record<string, string>>;
  /** Security scheme name → value, for openapi packs (§9). */
  readonly openapi: Readonly<Record<string, string>>;
  readonly secrets: readonly string[];
}

export const NO_CREDENTIALS: Credentials = Object.freeze({ env: Object.freeze({}), openapi: Object.freeze({}), secrets: Object.freeze([]) });

export interface CredentialOptions {
  /** The runtime's environment: `HCP_CREDENTIALS` and `HOME` are read from it. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The local credential file: `$HCP_CREDENTIALS`, else `~/.config/hcp/credentials.json`. */
export function credentialFilePath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const explicit = env["HCP_CREDENTIALS"];
  if (explicit) return explicit;
  return join(env["HOME"] || homedir(), ".config", "hcp", "credentials.json");
}

/**
 * Loads the credentials a binding asks for. `mode: mock`, hubs `none` and `public`, and no binding
 * load nothing; `keyring` is not available in this runtime; `local-credential` reads the family's
 * entry (the family defaults to the pack id) from the credential file.
 */
export function loadCredentials(binding: HarnessBinding | undefined, packId: string, opts: CredentialOptions = {}): Credentials {
  if (binding === undefined || binding.mode === "mock") return NO_CREDENTIALS;
  switch (binding.hub) {
    case undefined:
    case "none":
    case "public":
      return NO_CREDENTIALS;
    case "keyring":
      throw new CredentialError(
        "credentials_unavailable",
        `pack ${JSON.stringify(packId)} uses binding hub keyring, but no system keyring is available to this runtime; use hub local-credential or binding mode mock`,
      );
    case "local-credential":
      return readLocalCredentials(credentialFilePath(opts.env), binding.family ?? packId);
  }
}

/** The largest credential file read: 1 MiB. */
export const CREDENTIAL_FILE_MAX_BYTES = 1 << 20;

/** Refuses a credential file others can read or that another user owns. */
function checkPrivate(path: string, st: Stats): void {
  if ((st.mode & 0o077) !== 0) {
    throw new CredentialError(
      "credentials_insecure",
      `credential file ${path} has mode ${(st.mode & 0o777).toString(8).padStart(4, "0")}; only its owner may read it (chmod 600 ${path})`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new CredentialError("credentials_insecure", `credential file ${path} is owned by uid ${st.uid}, not by this user (uid ${uid})`);
  }
}

/**
 * Reads one family from a credential file that only its owner can read: a regular file of at most
 * 1 MiB (a FIFO or a device is refused without blocking).
 */
export function readLocalCredentials(path: string, family: string): Credentials {
  let text: string;
  try {
    text = readRegularFile(path, CREDENTIAL_FILE_MAX_BYTES, (st) => checkPrivate(path, st)).toString("utf8");
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    if (e.code === "ENOENT") {
      throw new CredentialError(
        "credentials_unavailable",
        `credential file ${path} does not exist; create it (mode 0600) with {"${family}": {"env": {...}, "openapi": {...}}} or set HCP_CREDENTIALS`,
      );
    }
    const code = e.code === "not_regular" || e.code === "too_large" ? "credentials_invalid" : "credentials_unavailable";
    throw new CredentialError(code, `cannot read credential file ${path}: ${e.reason}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    // The parser's message quotes the text, which holds secrets: say only what is wrong.
    throw new CredentialError("credentials_invalid", `credential file ${path} is not valid JSON`);
  }
  if (!isObject(doc)) throw new CredentialError("credentials_invalid", `credential file ${path} must hold a JSON object of families`);
  const entry = Object.hasOwn(doc, family) ? doc[family] : undefined;
  if (entry === undefined) {
    throw new CredentialError("credentials_unavailable", `credential file ${path} has no entry for family ${JSON.stringify(family)}`);
  }
  const where = `credential file ${path}: family ${JSON.stringify(family)}`;
  const shape = `{"env": {NAME: value}, "openapi": {SCHEME: value}}`;
  if (!isObject(entry) || (entry["env"] === undefined && entry["openapi"] === undefined)) throw new CredentialError("credentials_invalid", `${where} must be ${shape}`);
  const env = valuesOf(entry["env"], `${where}: env`, "a variable name", (name) => ENV_NAME.test(name));
  const openapi = valuesOf(entry["openapi"], `${where}: openapi`, "a security scheme name", (name) => name !== "");
  return { env, openapi, secrets: [...Object.values(env), ...Object.values(openapi)].filter((v) => v !== "") };
}

/** A name → string map of an entry (absent: empty), each name checked, no value holding NUL. */
function valuesOf(v: unknown, where: string, what: string, validName: (name: string) => boolean): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) throw new CredentialError("credentials_invalid", `${where} must be an object of names to string values`);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(v)) {
    if (!validName(name)) throw new CredentialError("credentials_invalid", `${where}: ${JSON.stringify(name)} is not ${what}`);
    if (typeof value !== "string" || value.includes("\0")) throw new CredentialError("credentials_invalid", `${where}: the value of ${name} must be a string without NUL`);
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
