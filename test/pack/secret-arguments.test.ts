// Which arguments are secrets: the schema's mark (§12), and the CLI flags hcp init marks writeOnly by their names.

import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentMetaDocument } from "../../src/agentmeta/types.js";
import { packFromAgentMeta } from "../../src/pack/index.js";
import { marksSecret, takesSecret } from "../../src/pack/secret-arguments.js";
import { readFixtureJson } from "./helpers.js";

test("a flag takes a secret when its last word says so (password, token, creds, passphrase, cookie, plaintext; client-secret, api-key), never when it names where one is or which one, nor a listing's token", () => {
  // Flags of real CLIs (skopeo, docker, podman, kubectl, rclone) that take a secret as their value.
  for (const name of ["password", "dest-password", "docker-password", "passwd", "pass", "passphrase", "token", "registry-token", "dest-registry-token", "creds", "src-creds", "apikey", "api-key", "client-secret", "secret-key", "access-token", "auth-token", "API_KEY", "client_secret", "apiKey", "accessToken", "X-Auth-Token", "session_token", "oauth_token", "cookies", "cookie", "session-cookie", "plaintext"]) {
    assert.equal(takesSecret(name, ["login"]), true, name);
  }
  // A file, a command or a variable that holds one; a key's name or path; a name of a secret; words inside other words.
  for (const name of ["password-file", "passphrase-file", "sign-passphrase-file", "password-command", "password-stdin", "token-file", "token-env", "token-ttl", "secret-env", "authfile", "ssh-key", "public-key", "key", "client-key", "decryption-key", "secret", "secret-name", "username", "bypass", "tokenizer", "author", "body", "page-token", "pageToken", "nextToken", "NextToken", "continuation_token", "$skipToken", "syncToken", "ClientToken", "idempotency-token", "starting-token", "cookie-jar", "cookies-from-browser"]) {
    assert.equal(takesSecret(name, ["login"]), false, name);
  }
  // The value given to a command that names a secret (gh secret set --body, kubectl create secret generic --from-literal).
  assert.equal(takesSecret("body", ["secret", "set"]), true);
  assert.equal(takesSecret("from-literal", ["create", "secret", "generic"]), true);
  assert.equal(takesSecret("value", ["secrets", "put"]), true);
  assert.equal(takesSecret("body", ["variable", "set"]), false);
  assert.equal(takesSecret("from-literal", ["create", "configmap"]), false);
  assert.equal(takesSecret("repo", ["secret", "set"]), false);
});

test("a schema marks a secret with writeOnly: true or format: password", () => {
  assert.equal(marksSecret({ type: "string", writeOnly: true }), true);
  assert.equal(marksSecret({ type: "string", format: "password" }), true);
  for (const s of [{ type: "string" }, { writeOnly: false }, { writeOnly: "true" }, { format: "email" }, null, "writeOnly", []]) assert.equal(marksSecret(s), false, JSON.stringify(s));
});

const flag = (name: string, type: string) => ({ name, shorthand: "", usage: "", default: "", type, required: false });

test("a pack from a rungrad manifest writes a flag that takes a secret as a writeOnly string (or array) argument; a bool flag so named stays a bool", () => {
  const doc = structuredClone((readFixtureJson("examples/rungrad/rungrad_cli.json") as { expect_agentmeta: AgentMetaDocument }).expect_agentmeta);
  const nw = doc.commands.find((c) => c.path.join(" ") === "new")!;
  nw.local_flags.push(flag("registry-token", "string"), flag("api-key", "stringArray"), flag("password-stdin", "bool"), flag("token-file", "string"));
  const props = (packFromAgentMeta(doc, { bin: "rungrad" }).surface.verbs["new"]!.args as { properties: Record<string, unknown> }).properties;
  assert.deepEqual(props["registry_token"], { type: "string", writeOnly: true });
  assert.deepEqual(props["api_key"], { type: "array", items: { type: "string" }, writeOnly: true });
  assert.deepEqual(props["password_stdin"], { type: "boolean" });
  assert.deepEqual(props["token_file"], { type: "string" });
});
