// A user the password database does not know, without HOME (a container started with an arbitrary uid): hcp says
// what to set, rather than libuv's `uv_os_homedir returned ENOENT`; with its places set by XDG_CONFIG_HOME and
// XDG_STATE_HOME it serves. Needs root, to run the built hcp as such a user (setpriv).

import assert from "node:assert/strict";
import { chmodSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { HCP, tempDir } from "../transports/support.js";
import { run, writeEchoPack } from "./helpers.js";

const UNKNOWN_USER = "54321";

test("hcp run as a user the password database does not know, without HOME: it says to set HOME, not libuv's error; with XDG_CONFIG_HOME and XDG_STATE_HOME set it serves", async (t) => {
  if (process.getuid?.() !== 0) {
    t.skip("needs root, to run hcp as a user the password database does not know");
    return;
  }
  const dir = tempDir("hcp-no-home-");
  chmodSync(dirname(dir), 0o755);
  chmodSync(dir, 0o777);
  const pack = writeEchoPack(join(dir, "echo"));
  // The agent's folder, where hcp works: its places lie outside it.
  const work = join(dir, "work");
  mkdirSync(work, { mode: 0o777 });
  const asUnknown = (env: Record<string, string>) =>
    run("setpriv", ["--reuid", UNKNOWN_USER, "--regid", UNKNOWN_USER, "--clear-groups", process.execPath, HCP, "exec", pack], {
      cwd: work,
      env: { PATH: process.env["PATH"]!, HCP_AUDIT: "none", ...env },
      stdin: '{"id":1,"pack":"echo","verb":"say","args":{}}\n',
      asAgent: true,
    });

  const bare = await asUnknown({});
  assert.equal(bare.code, 2, bare.stderr);
  assert.match(bare.stderr, new RegExp(`cannot tell your home folder: HOME is not set, and the password database gives none for user ${UNKNOWN_USER} \\(.*\\); set HOME\\n`));
  assert.doesNotMatch(bare.stderr, /uv_os_homedir|internal error/);
  assert.equal(bare.stdout, "");

  // A place under the home folder that no variable sets says which would, with the code of what needs it; not an
  // internal error, which tells a person they met a bug.
  const stateless = await asUnknown({ XDG_CONFIG_HOME: join(dir, "config") });
  assert.equal(stateless.code, 4, stateless.stderr);
  assert.match(stateless.stderr, new RegExp(`^Error: cannot tell your home folder: HOME is not set, and the password database gives none for user ${UNKNOWN_USER} \\(.*\\); set HOME or XDG_STATE_HOME\\n$`));
  assert.equal(stateless.stdout, "");

  const placed = await asUnknown({ XDG_CONFIG_HOME: join(dir, "config"), XDG_STATE_HOME: join(dir, "state") });
  assert.equal(placed.code, 0, placed.stderr);
  assert.deepEqual((JSON.parse(placed.stdout) as { result: { stdout: string } }).result.stdout, "hello\n");
});
