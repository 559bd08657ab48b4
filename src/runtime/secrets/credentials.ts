// Credential hubs (§9): which variables a pack's binding adds to the child environment, and which values to redact.

import { join } from "node:path";
import { isObject } from "../../pack/issues.js";
import { jsonErrorAt } from "../../pack/load.js";
import { setOwn } from "../../json/own.js";
import { firstDuplicateKey } from "../../json/literal.js";
import { shellWord } from "../../shell-word.js";
import type { HarnessBinding, LoadedPack } from "../../pack/types.js";
import { CredentialError } from "../errors.js";
import { keyringGet, keyringService } from "./keyring.js";
import { noteKeyringValues } from "./keyring-read.js";
import { readSecretFile } from "./secret-file.js";
import { isVariableName } from "../env.js";
import { homeOf } from "../places.js";

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
  /** policy.json `credentials`: the names a keyring binding reads. */
  readonly names?: readonly string[];
  /** The names are security schemes (an openapi pack): how to store one says `--scheme` and `openapi`. */
  readonly schemes?: boolean;
}


/** The local credential file: `$HCP_CREDENTIALS`, else `~/.config/hcp/credentials.json`. */
export function credentialFilePath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const explicit = env["HCP_CREDENTIALS"];
  if (explicit) return explicit;
  return join(homeOf(env, "credentials_unavailable", "HCP_CREDENTIALS"), ".config", "hcp", "credentials.json");
}

/** Whether a binding loads credentials: hub local-credential or keyring, and not mode mock (as loadCredentials reads them). */
export function bindingLoadsCredentials(binding: HarnessBinding | undefined): boolean {
  return binding !== undefined && binding.mode !== "mock" && (binding.hub === "keyring" || binding.hub === "local-credential");
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
      return readKeyring(binding.family ?? packId, opts.names ?? [], packId);
    case "local-credential":
      return readLocalCredentials(credentialFilePath(opts.env), binding.family ?? packId, opts.names, opts.schemes);
  }
}

/**
 * The values an API's security schemes may take, by name (§9): the binding's variables, a scheme's own value
 * winning. The request's plan names each by its digest: what is applied is what was planned.
 */
export function requestCredentials(credentials: Credentials): Record<string, string> {
  return { ...credentials.env, ...credentials.openapi };
}

/**
 * The credentials a loaded pack's binding asks for, with the names its policy.json lists (an openapi pack's are
 * security schemes). Throws CredentialError.
 */
export function packCredentials(pack: LoadedPack, env: Readonly<Record<string, string | undefined>>): Credentials {
  return loadCredentials(pack.surface?.binding, pack.surface?.id ?? "", { env, names: pack.policy?.credentials, schemes: pack.surface?.kind === "openapi" });
}

/**
 * The keyring entries of policy.json `credentials` (service `hcp:<family>`, one entry per name). The
 * values are variables for a program and security-scheme values for an API alike.
 */
function readKeyring(family: string, names: readonly string[], packId: string): Credentials {
  if (names.length === 0) {
    throw new CredentialError("credentials_unavailable", `pack ${JSON.stringify(packId)} uses binding hub keyring but its policy.json lists no credentials to read: add "credentials": ["NAME", …]`);
  }
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = keyringGet(family, name);
    if (value === null) {
      throw new CredentialError("credentials_unavailable", `the keyring has no ${name} for ${keyringService(family)}: store it with hcp credentials set ${shellWord(family)} ${name} --keyring`);
    }
    if (value.includes("\0")) throw new CredentialError("credentials_invalid", `the keyring value of ${name} for ${keyringService(family)} contains NUL`);
    env[name] = value;
  }
  const secrets = Object.values(env).filter((v) => v !== "");
  noteKeyringValues(secrets);
  return { env, openapi: {}, secrets };
}

/**
 * Reads one family from a credential file that only its owner can read: a regular file of at most
 * 1 MiB (a FIFO or a device is refused without blocking).
 */
export function readLocalCredentials(path: string, family: string, names: readonly string[] = [], schemes = false): Credentials {
  const doc = readCredentialFile(path);
  if (doc === undefined) {
    throw new CredentialError("credentials_unavailable", `credential file ${path} does not exist; ${howToStore(family, names, schemes)}, or set HCP_CREDENTIALS to the file that has them`);
  }
  const entry = Object.hasOwn(doc, family) ? doc[family] : undefined;
  if (entry === undefined) {
    throw new CredentialError("credentials_unavailable", `credential file ${path} has no entry for family ${JSON.stringify(family)}; ${howToStore(family, names, schemes)}`);
  }
  const where = `credential file ${path}: family ${JSON.stringify(family)}`;
  const shape = `{"env": {NAME: value}, "openapi": {SCHEME: value}}`;
  if (!isObject(entry) || (entry["env"] === undefined && entry["openapi"] === undefined)) throw new CredentialError("credentials_invalid", `${where} must be ${shape}`);
  const env = valuesOf(entry["env"], `${where}: env`, "a variable name", isVariableName);
  const openapi = valuesOf(entry["openapi"], `${where}: openapi`, "a security scheme name", (name) => name !== "");
  return { env, openapi, secrets: [...Object.values(env), ...Object.values(openapi)].filter((v) => v !== "") };
}

/**
 * What the person runs to store a family's credentials: `hcp credentials set` for each name policy.json
 * lists (an `env` value also serves an API's security scheme of that name, §9), else the entry's shape.
 */
function howToStore(family: string, names: readonly string[], schemes: boolean): string {
  if (names.length === 0) {
    return `create the entry (the file mode 0600) as {${JSON.stringify(family)}: {"env": {"NAME": "value"}, "openapi": {"SCHEME": "value"}}}, or with hcp credentials set ${shellWord(family)} NAME`;
  }
  const commands = names.map((n) => `hcp credentials set ${shellWord(family)} ${shellWord(n)}${schemes ? " --scheme" : ""}`).join(" and ");
  const entry = `{${JSON.stringify(family)}: {${JSON.stringify(schemes ? "openapi" : "env")}: {${names.map((n) => `${JSON.stringify(n)}: "value"`).join(", ")}}}}`;
  return `store ${names.length === 1 ? "it with" : "them with"} ${commands} (it asks for the value), or write the entry yourself (the file mode 0600) as ${entry}`;
}

/**
 * The whole credential file: a regular, owner-only file of at most 1 MiB holding a JSON object;
 * undefined when it does not exist. Errors never quote the file's text.
 */
export function readCredentialFile(path: string): Record<string, unknown> | undefined {
  const text = readSecretFile(path, "credential file");
  return text === undefined ? undefined : credentialDocument(text, path);
}

/** The text of the credential file at `path` as its object of families. Errors never quote the text. */
export function credentialDocument(text: string, path: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    // The parser's message quotes the text, which holds secrets: say only where it is wrong.
    const { line, column } = jsonErrorAt(text, e instanceof Error ? e.message : "");
    throw new CredentialError("credentials_invalid", `credential file ${path} is not valid JSON (at line ${line}, column ${column})`);
  }
  if (!isObject(doc)) throw new CredentialError("credentials_invalid", `credential file ${path} must hold a JSON object of families`);
  const twice = firstDuplicateKey(text);
  if (twice !== undefined) {
    // JSON.parse keeps a repeated key's last value: which one a program got would depend on the order of lines.
    throw new CredentialError("credentials_invalid", `credential file ${path} has the key ${JSON.stringify(twice)} twice; keep the one you use`);
  }
  return doc;
}

/** A name → string map of an entry (absent: empty), each name checked, no value holding NUL. */
function valuesOf(v: unknown, where: string, what: string, validName: (name: string) => boolean): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) throw new CredentialError("credentials_invalid", `${where} must be an object of names to string values`);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(v)) {
    if (!validName(name)) throw new CredentialError("credentials_invalid", `${where}: ${JSON.stringify(name)} is not ${what}`);
    if (typeof value !== "string" || value.includes("\0")) throw new CredentialError("credentials_invalid", `${where}: the value of ${name} must be a string without NUL`);
    setOwn(out, name, value);
  }
  return out;
}
