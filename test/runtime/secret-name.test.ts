// Which policy `env` names are secret (§12): the names a person would call secret, and none of the harmless ones; and the
// password a URL carries.

import { test } from "node:test";
import assert from "node:assert/strict";
import { isSecretName } from "../../src/runtime/secrets/secret-name.js";
import { urlPasswords } from "../../src/runtime/secrets/secrets.js";

const SECRET = [
  // the spec's four words, anywhere in the name
  "API_TOKEN", "GITHUB_TOKEN", "GITHUBTOKEN", "NPM_TOKENS", "CLIENT_SECRET", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "PGPASSWORD",
  "signing_key", "SSH_KEYS", "API_KEY", "APIKEY", "X-Api-Key", "OPENAI_APIKEY", "GPG_PRIVATE_KEY", "PRIVATEKEY",
  // other words for a password
  "MYSQL_PWD", "SMTP_PASS", "DB_PASSWD", "KEY_PASSPHRASE", "mysql-pwd",
  // credentials, auth, cookies, personal access tokens
  "GOOGLE_APPLICATION_CREDENTIALS", "AZURE_CREDENTIAL", "DOCKER_CREDS", "NPM_AUTH", "PROXY_AUTHORIZATION", "SESSION_COOKIE", "GITHUB_PAT",
  "JWT", "BEARER", "HF_HUB_JWT", "SENTRY_DSN",
  // a key run into the word it keys
  "MASTERKEY", "MINIO_ACCESSKEY", "SSHKEY", "LICENSE_KEYS", "ENCRYPTIONKEY", "PASSKEY",
  // camelCase and dotted names
  "apiKey", "dbPassword", "smtpPass", "service.auth", "mysqlPwd",
];

const HARMLESS = [
  // the working directory, and words that merely contain a short secret word
  "PWD", "pwd", "OLDPWD", "KEYBOARD_LAYOUT", "MONKEY", "HOTKEYS", "DONKEY_COUNT", "TURNKEY", "KEYFILE", "PASSENGER_COUNT", "COMPASS", "AUTHOR", "OAUTH_URL",
  "PATH", "PATCH_LEVEL", "HOME", "LANG", "TZ", "EDITOR", "LEDGER_HOME", "NO_COLOR", "TERM",
  // a file that holds passwords is named by its path: the path is no secret (decided: PGPASSFILE)
  "PGPASSFILE",
];

test("secret names: every name a person would call secret is one, whatever its case or separators", () => {
  for (const name of SECRET) assert.equal(isSecretName(name), true, name);
});

test("secret names: the working directory (PWD) and names that merely contain a short word (MONKEY, KEYBOARD) are not", () => {
  for (const name of HARMLESS) assert.equal(isSecretName(name), false, name);
});

test("a URL's password is a secret as written and percent-decoded; a URL without one has none", () => {
  assert.deepEqual(urlPasswords("postgres://app:s3cr%21t@db:5432/app"), ["s3cr%21t", "s3cr!t"]);
  assert.deepEqual(urlPasswords("redis://:hunter2@cache"), ["hunter2"]);
  assert.deepEqual(urlPasswords("https://user:p@ss:w0rd@host/x"), ["p@ss:w0rd"], "the last @ ends the user info");
  assert.deepEqual(urlPasswords("mysql://u:100%@h"), ["100%"], "a stray % is kept as written");
  for (const none of ["https://example.org/a@b", "https://user@host/", "mailto:a:b@c", "not a url", "ftp://host/p:q@r"]) assert.deepEqual(urlPasswords(none), [], none);
});
