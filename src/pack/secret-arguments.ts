// Which arguments are secrets (§12): those whose schema marks them (or a subschema composing it), and the flags,
// parameters and body fields marked so by their names, whose values hcp then masks in every output, plan and audit
// line. Pure.

import { isObject } from "./issues.js";

/** Whether an argument's schema marks its value a secret: `"writeOnly": true` or `"format": "password"`. */
export function marksSecret(schema: unknown): boolean {
  return isObject(schema) && (schema["writeOnly"] === true || schema["format"] === "password");
}

/**
 * The subschemas that also describe a value (`allOf`, `anyOf`, `oneOf`): an API document composes a body of others
 * (`allOf: [{$ref: User}, …]`), and a field marked secret in any of them is one.
 */
export function alsoDescribing(schema: Record<string, unknown>): unknown[] {
  return ["allOf", "anyOf", "oneOf"].flatMap((k) => (Array.isArray(schema[k]) ? schema[k] : []));
}

/**
 * A last word of a name that says its value is a secret: `--password`, `--dest-registry-token`, `--src-creds`, `--apikey`,
 * gobuster's `--cookies` (a session's cookie), caddy's `hash-password --plaintext` (the password to hash).
 */
const SECRET_LAST_WORDS = new Set(["PASSWORD", "PASSWD", "PASS", "PASSPHRASE", "TOKEN", "CREDS", "APIKEY", "COOKIE", "COOKIES", "PLAINTEXT"]);
/** Two last words that do: `--client-secret`, `--api-key`, `apiKey`, `--secret-key` (but `--ssh-key`, `--public-key` name a key). */
const SECRET_PAIRS = new Set(["CLIENT SECRET", "API KEY", "SECRET KEY"]);
/**
 * Words before TOKEN that make it a place in a listing or a request's own id, which the agent must read back, not a
 * secret: `--page-token`, `nextToken`, `$skipToken`, AWS's `ClientToken` (an idempotency key).
 */
const LISTING_TOKENS = new Set(["PAGE", "NEXT", "CONTINUATION", "CONTINUE", "START", "STARTING", "SYNC", "RESUME", "SKIP", "DELTA", "CHANGE", "CURSOR", "PAGINATION", "CLIENT", "IDEMPOTENCY", "REQUEST"]);
/** In a command that names a secret (`gh secret set`, `kubectl create secret generic`), a last word for the value given. */
const VALUE_WORDS = new Set(["BODY", "VALUE", "LITERAL", "DATA"]);

/** The words of a name, split at `-`, `_`, `.`, `$` and where a lower-case letter meets an upper-case one (apiKey), upper-cased. */
const words = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .split(/[-_.$]+/)
    .filter((w) => w !== "")
    .map((w) => w.toUpperCase());

/**
 * Whether flag or parameter `name` (of the command at `path`) takes a secret: its last word says so (a file, a command
 * or an environment variable that holds one ends in another word: `--password-file`, `--token-env`; a listing's token
 * is no secret: LISTING_TOKENS), or the command names a secret and the flag is its value (`gh secret set --body`).
 */
export function takesSecret(name: string, path: readonly string[]): boolean {
  const w = words(name);
  const last = w.at(-1) ?? "";
  if (last === "TOKEN" && LISTING_TOKENS.has(w.at(-2) ?? "")) return false;
  if (SECRET_LAST_WORDS.has(last) || SECRET_PAIRS.has(w.slice(-2).join(" "))) return true;
  return VALUE_WORDS.has(last) && path.some((p) => /^secrets?$/i.test(p));
}

/**
 * Whether an argument so named (a flag of the command at `path`, an API's parameter or a body's field) is a secret by
 * its name, to be written `"writeOnly": true`: takesSecret, and its schema is no number or boolean (a short number
 * masked would hide every digit like it in the output; a boolean is no secret).
 */
export function namedSecret(name: string, schema: Readonly<Record<string, unknown>>, path: readonly string[] = []): boolean {
  const type = schema["type"];
  return type !== "integer" && type !== "number" && type !== "boolean" && takesSecret(name, path);
}
