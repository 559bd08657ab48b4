// hub keyring against a real Secret Service (gnome-keyring in a private D-Bus session): `hcp credentials
// --keyring` stores and reads entries, and keyring-bound packs (a program, an API) get them, masked.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { hcp, tempDir } from "../transports/support.js";
import { fixture, trustPack } from "./helpers.js";
import { keyringUnavailable, startKeyringSession, type KeyringSession } from "./keyring-session.js";
import { notesApi, type Api } from "./notes-api.js";
import { isolatedEnv, openapiPack } from "./openapi-support.js";

// Under CI the Secret Service must be there (.ci/run installs it): a missing one fails instead of skipping.
const missing = keyringUnavailable();
const skip = missing !== undefined && process.env["CI"] !== "true" ? missing : false;
const VALUE = "keyring-S3cret-value-77";

let session: KeyringSession;
let api: Api;
before(async () => {
  if (skip) return;
  assert.equal(missing, undefined, missing);
  session = await startKeyringSession();
  api = await notesApi();
});
after(async () => {
  session?.stop();
  await api?.close();
});

/** The isolated hcp environment, inside the keyring session. */
const envIn = () => ({ ...isolatedEnv(), DBUS_SESSION_BUS_ADDRESS: session.env["DBUS_SESSION_BUS_ADDRESS"], XDG_RUNTIME_DIR: session.env["XDG_RUNTIME_DIR"] });

test("credentials --keyring: set from stdin, get masked (or --reveal), delete; a missing entry is exit 5", { skip }, async () => {
  const env = envIn();
  const set = await hcp(["credentials", "set", "kfam", "KFAM_TOKEN", "--keyring"], { env, stdin: VALUE });
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /keyring hcp:kfam/);
  assert.equal((await hcp(["credentials", "get", "kfam", "KFAM_TOKEN", "--keyring"], { env })).stdout, "***\n");
  assert.equal((await hcp(["credentials", "get", "kfam", "KFAM_TOKEN", "--keyring", "--reveal"], { env })).stdout, `${VALUE}\n`);
  assert.equal((await hcp(["credentials", "delete", "kfam", "KFAM_TOKEN", "--keyring"], { env })).code, 0);
  assert.equal((await hcp(["credentials", "get", "kfam", "KFAM_TOKEN", "--keyring"], { env })).code, 5);
});

test("hub keyring: a program gets the entries policy.json lists, an API its scheme value; both masked; a missing one is exit 3", { skip }, async () => {
  const env = envIn();
  const root = tempDir("hcp-keyring-pack-");
  writeFileSync(
    join(root, "surface.json"),
    JSON.stringify({
      id: "kr",
      kind: "wrap",
      binding: { mode: "user", hub: "keyring", family: "kr" },
      wrap: { bin: fixture("bin/probe.mjs") },
      verbs: { show: { description: "Print the token.", cli: ["probe", "run", "env:KR_TOKEN"], policy: "read" } },
    }),
  );
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "kr", verbs: { show: "read" }, credentials: ["KR_TOKEN"] }));
  await trustPack(root, env);
  const absent = await hcp(["run", root, "show", "--json"], { env });
  assert.equal(absent.code, 3);
  assert.match(absent.stderr, /hcp credentials set kr KR_TOKEN --keyring/);
  assert.equal((await hcp(["credentials", "set", "kr", "KR_TOKEN", "--keyring"], { env, stdin: VALUE })).code, 0);
  const run = await hcp(["run", root, "show", "--json"], { env });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).stdout, "***\n", "the child read the value; the output masks it");

  const pack = openapiPack({
    doc: "notes.yaml",
    verbs: { whoami: { description: "Who." } },
    binding: { mode: "user", hub: "keyring", family: "krapi" },
    policy: { openapi: { base_url: `${api.origin}/v1` }, credentials: ["bearerAuth"] },
  });
  assert.equal((await hcp(["credentials", "set", "krapi", "bearerAuth", "--keyring"], { env, stdin: VALUE })).code, 0);
  await trustPack(pack, env);
  const who = await hcp(["run", pack, "whoami", "--json"], { env, timeoutMs: 60_000 });
  assert.equal(who.code, 0, who.stderr);
  assert.equal(api.requests.at(-1)?.headers.authorization, `Bearer ${VALUE}`);
  assert.equal(who.stdout.includes(VALUE), false);
  assert.deepEqual(JSON.parse(who.stdout).json, { authorization: "Bearer ***", token: "***" });
});
