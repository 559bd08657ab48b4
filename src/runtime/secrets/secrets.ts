// Which values are secrets (§12), and the masking every result, plan and error of the runtime passes through.

import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { isObject } from "../../pack/issues.js";
import { alsoDescribing, marksSecret } from "../../pack/secret-arguments.js";
import type { LoadedPack } from "../../pack/types.js";
import { packCredentials } from "./credentials.js";
import { loadsCredentials, untrustedBecause } from "../trust/trust.js";
import { RuntimeError } from "../errors.js";
import { PLACE_VARIABLES } from "../places.js";
import { cutTruncatedTail, redact, redactEnvelope, redactText, secretSet, shownBytes, type SecretSet } from "./redact.js";
import { isSecretName } from "./secret-name.js";
import { stdoutJson } from "../stdout-json.js";
import { keyringValuesRead } from "./keyring-read.js";
import { storedSecrets } from "./stored-secrets.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A URL's authority, user info and all: what follows `scheme://` up to the first `/`, `?` or `#`. */
const AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

/**
 * The password a URL carries in its user info (`postgres://user:PASSWORD@host/db`, DATABASE_URL, REDIS_URL), as written
 * and percent-decoded: a variable named for a URL, not a secret, still holds one there.
 */
export function urlPasswords(value: string): string[] {
  const authority = AUTHORITY.exec(value)?.[1];
  const at = authority?.lastIndexOf("@") ?? -1;
  if (at < 0) return [];
  const userInfo = authority!.slice(0, at);
  const colon = userInfo.indexOf(":");
  const password = colon < 0 ? "" : userInfo.slice(colon + 1);
  if (password === "") return [];
  try {
    const decoded = decodeURIComponent(password);
    return decoded === password ? [password] : [password, decoded];
  } catch {
    return [password]; // a stray % is written as is
  }
}

/**
 * The values of the policy `env` variables whose names look secret, and the password of every one that is a URL
 * carrying one, as the runtime's environment has them.
 */
export function policyEnvSecrets(pack: LoadedPack, env: Env): string[] {
  const out: string[] = [];
  for (const name of pack.policy?.env ?? []) {
    const value = Object.hasOwn(env, name) ? env[name] : undefined;
    if (value === undefined) continue;
    if (isSecretName(name)) out.push(value);
    else out.push(...urlPasswords(value));
  }
  return out;
}

/**
 * The shortest value of hcp's own environment taken for a secret: a variable nobody named for a pack with a short value
 * (`COOKIE_SECURE=false`, `NO_AUTH=1`) would hide every `false` or `1` of every output.
 */
export const MIN_ENVIRONMENT_SECRET = 8;

/** Whether a value is the absolute path of a file (or folder, socket…) that exists. */
function namesFile(value: string): boolean {
  if (!isAbsolute(value)) return false;
  try {
    return statSync(value, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false; // not a path (ENOTDIR, ENAMETOOLONG) or not one hcp may look at
  }
}

/** environmentSecrets of each environment seen: hcp's own does not change while it runs. */
const environments = new WeakMap<Env, string[]>();

/**
 * The secrets of hcp's own environment, whatever pack runs: the value of every variable whose name looks secret, and
 * every URL's password, of at least MIN_ENVIRONMENT_SECRET characters. A value that is the path of a file that exists
 * names where a secret is (GOOGLE_APPLICATION_CREDENTIALS, SSH_AUTH_SOCK), and hcp's own places (HCP_CREDENTIALS) are
 * settings: both would hide a path wherever output shows it. A program gets only the variables §6.4 lets
 * through, but it runs as the same user: it can read hcp's environment in /proc (`/proc/<pid>/environ`), as can any verb
 * that prints a file the agent names.
 */
export function environmentSecrets(env: Env): string[] {
  let out = environments.get(env);
  if (out !== undefined) return out;
  out = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || (PLACE_VARIABLES as readonly string[]).includes(name)) continue;
    const found = isSecretName(name) && !namesFile(value) ? [value] : urlPasswords(value);
    out.push(...found.filter((v) => v.length >= MIN_ENVIRONMENT_SECRET));
  }
  environments.set(env, out);
  return out;
}

/**
 * The secrets of no one pack, masked in every pack's output whichever runs: every value of the credential file, the
 * keyring values this process has read and the secrets of hcp's own environment, all of which a verb that prints files
 * can print (the keyring's from a running program's environment).
 */
export function everyPackSecrets(env: Env): string[] {
  return [...storedSecrets(env), ...keyringValuesRead(), ...environmentSecrets(env)];
}

/** How deep argSecrets follows a schema: as deep as a pack document may be. */
const MAX_DEPTH = 64;

/** Every string and number inside a value, as the text it becomes in argv and output. */
function leaves(value: unknown, out: Set<string>, depth = 0): void {
  if (typeof value === "string") out.add(value);
  else if (typeof value === "number") out.add(JSON.stringify(value));
  else if (depth < MAX_DEPTH && Array.isArray(value)) for (const v of value) leaves(v, out, depth + 1);
  else if (depth < MAX_DEPTH && isObject(value)) for (const v of Object.values(value)) leaves(v, out, depth + 1);
}

/** The most secret argument values a call may send: each is masked in every output, and masking costs grow with them. */
export const MAX_ARG_SECRETS = 64;

/**
 * The argument values the args schema marks `"writeOnly": true` or `"format": "password"`, following
 * `properties`, `items`, `allOf`, `anyOf` and `oneOf`. Any value: this runs before the arguments are validated, so more
 * than MAX_ARG_SECRETS values (an array of 10,000 strings for a password) are refused, not masked one by one.
 */
export function argSecrets(schema: unknown, args: unknown): string[] {
  const out = new Set<string>();
  const walk = (s: unknown, v: unknown, depth: number): void => {
    if (!isObject(s) || v === undefined || depth > MAX_DEPTH) return;
    if (marksSecret(s)) leaves(v, out);
    const props = s["properties"];
    if (isObject(props) && isObject(v)) {
      for (const k of Object.keys(props)) if (Object.hasOwn(v, k)) walk(props[k], v[k], depth + 1);
    }
    if (Array.isArray(v)) for (const item of v) walk(s["items"], item, depth + 1);
    for (const sub of alsoDescribing(s)) walk(sub, v, depth + 1);
  };
  walk(schema, args, 0);
  if (out.size > MAX_ARG_SECRETS) {
    throw new RuntimeError("invalid_args", `${out.size} values of arguments marked writeOnly or password were sent; at most ${MAX_ARG_SECRETS} may be`);
  }
  return [...out];
}

/** A value with each string and number inside it (the leaves argSecrets takes) as `***`. */
function maskLeaves(value: unknown, depth = 0): unknown {
  if (typeof value === "string" || typeof value === "number") return "***";
  if (depth < MAX_DEPTH && Array.isArray(value)) return value.map((v) => maskLeaves(v, depth + 1));
  if (depth < MAX_DEPTH && isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskLeaves(v, depth + 1)]));
  return value;
}

/**
 * The arguments with every value argSecrets takes as `***` in its own place, or undefined when the schema marks none
 * of them secret. A person is shown the plan made from these: masking an argument's value wherever it appears would
 * let the agent hide any other part of the plan (the recipient, the amount) behind a password it chose to equal it.
 */
export function maskedArgs(schema: unknown, args: unknown): unknown {
  let masked = false;
  const walk = (s: unknown, v: unknown, depth: number): unknown => {
    if (!isObject(s) || v === undefined || depth > MAX_DEPTH) return v;
    if (marksSecret(s)) {
      masked = true;
      return maskLeaves(v);
    }
    const props = s["properties"];
    let out: unknown = v;
    if (isObject(props) && isObject(out)) out = Object.fromEntries(Object.entries(out).map(([k, x]) => [k, Object.hasOwn(props, k) ? walk(props[k], x, depth + 1) : x]));
    if (Array.isArray(out)) out = out.map((item) => walk(s["items"], item, depth + 1));
    for (const sub of alsoDescribing(s)) out = walk(sub, out, depth + 1);
    return out;
  };
  const out = walk(schema, args, 0);
  return masked ? out : undefined;
}

/**
 * The secrets of packs as a whole, for errors a transport makes before any pack is chosen (an unknown
 * pack id, a malformed request) and for all an MCP server sends: every value of the credential file, the secrets of hcp's
 * environment, the packs' keyring values, their secret-looking policy `env` values, and `more` (a server's own: its
 * bearer token). A hub that cannot be read has no values to leak. With
 * `trustIn` (hcp run, its state directory), a keyring is not read for a pack a person did not trust.
 */
export function packSecrets(packs: readonly LoadedPack[], env: Env = process.env, trustIn?: string, more: readonly string[] = []): SecretSet {
  readPackKeyrings(packs, env, trustIn);
  return secretSet([...everyPackSecrets(env), ...more, ...packs.flatMap((pack) => policyEnvSecrets(pack, env))]);
}

/**
 * Reads the keyring values of `packs`, which every call's masking then includes (keyring-read.ts); a local-credential
 * pack's values are the credential file's, masked already. With `trustIn`, not for a pack a person did not trust.
 */
export function readPackKeyrings(packs: readonly LoadedPack[], env: Env = process.env, trustIn?: string): void {
  for (const pack of packs) {
    if (pack.surface?.binding?.hub !== "keyring" || !loadsCredentials(pack)) continue;
    try {
      if (trustIn !== undefined && untrustedBecause(pack, trustIn) !== undefined) continue;
      packCredentials(pack, env);
    } catch {
      // unreadable (or the trust store is): nothing to mask
    }
  }
}

/** An error with its message masked; a thrown non-Error becomes an Error. The same object when it is one. */
export function maskError(err: unknown, secrets: SecretSet): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  e.message = redactText(e.message, secrets);
  return e;
}

/** A process result's streams as text and whether each was cut. */
interface Streams {
  stdout: string;
  stderr: string;
  stdout_bytes: number;
  stderr_bytes: number;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
}

/**
 * A result with every secret masked: a cut stream first loses its tail (§12), then every field's value is masked (its
 * name is hcp's, never masked; the parsed `json` is the program's, keys and all). Its `json`
 * (stdout parsed) is then what the masked stdout parses to, absent when that is no JSON: a number is no text to mask,
 * so a secret printed as a JSON number (a PIN, an account number) would show there whole.
 */
export function maskResult<T extends Streams & { json?: unknown }>(result: T, secrets: SecretSet): T {
  const cut = {
    ...result,
    stdout: result.stdout_truncated ? cutTruncatedTail(result.stdout, secrets) : result.stdout,
    stderr: result.stderr_truncated ? cutTruncatedTail(result.stderr, secrets) : result.stderr,
  };
  const masked = redactEnvelope(cut, secrets, {}) as T;
  masked.stdout_bytes = shownBytes(result.stdout_bytes, cut.stdout, masked.stdout);
  masked.stderr_bytes = shownBytes(result.stderr_bytes, cut.stderr, masked.stderr);
  if ("json" in masked && masked.stdout !== result.stdout) {
    const json = stdoutJson(masked.stdout);
    if (json === undefined) delete masked.json;
    else masked.json = redact(json.value, secrets);
  }
  return masked;
}
