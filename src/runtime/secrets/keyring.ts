// The operating system's keyring (§9) through @napi-rs/keyring, loaded on first use: Secret Service on
// Linux (never the kernel keyring's non-persistent fallback), Keychain on macOS, Credential Manager on Windows.

import { createRequire } from "node:module";
import type * as KeyringModule from "@napi-rs/keyring";
import { CredentialError } from "../errors.js";

let keyring: typeof KeyringModule | undefined;

/** The keyring service of a family: `hcp:<family>`. */
export function keyringService(family: string): string {
  return `hcp:${family}`;
}

const unavailable = (why: string) =>
  new CredentialError(
    "credentials_unavailable",
    `no system keyring is available (${why}); on Linux a Secret Service (gnome-keyring, KeePassXC…) must be running in the session. Use binding hub local-credential and the credential file instead (hcp credentials set without --keyring)`,
  );

function entry(family: string, name: string): KeyringModule.Entry {
  try {
    keyring ??= createRequire(import.meta.url)("@napi-rs/keyring") as typeof KeyringModule;
  } catch (e) {
    throw unavailable(`the keyring library cannot be loaded: ${(e as Error).message.split("\n")[0]}`);
  }
  return new keyring.Entry(keyringService(family), name, { linux: { store: "secret-service" } });
}

/** Runs a keyring call; a store that cannot be reached is `credentials_unavailable`, naming the alternative. */
function call<T>(step: () => T): T {
  try {
    return step();
  } catch (e) {
    if (e instanceof CredentialError) throw e;
    throw unavailable((e as Error).message.split("\n")[0] ?? String(e));
  }
}

/** The stored value, or null when there is none. */
export function keyringGet(family: string, name: string): string | null {
  return call(() => entry(family, name).getPassword());
}

export function keyringSet(family: string, name: string, value: string): void {
  call(() => entry(family, name).setPassword(value));
}

/** True when an entry was deleted, false when there was none. */
export function keyringDelete(family: string, name: string): boolean {
  return call(() => entry(family, name).deletePassword());
}
