// Red team: the audit log as a way to write the user's files. Over `hcp run` the agent writes the command line,
// `--audit FILE` included: it tries to plant shell code in a file a shell reads, and to append to a file of the
// user's that is not an audit log. The test asserts nothing ran and nothing was changed.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bank } from "./approvals-support.js";

test("--audit cannot plant shell code: a log made at ~/.bash_aliases from the agent's arguments runs nothing when a shell reads it", async () => {
  const b = bank();
  const mark = join(b.dir, "planted-code-ran");
  const aliases = join(b.dir, ".bash_aliases");
  const amount = `$(touch ${mark})\`touch ${mark}\`\${IFS}`;
  const dry = await b.hcp(["run", b.root, "pay", "--arg", `amount=${amount}`, "--dry-run", "--audit", aliases]);
  assert.equal(dry.code, 0, dry.stderr);
  const text = readFileSync(aliases, "utf8");
  assert.doesNotMatch(text, /[$`]/, "no character a shell expands");
  const entry = JSON.parse(text) as { decision: string; argv: string[] };
  assert.equal(entry.decision, "dry_run");
  assert.equal(entry.argv.at(-1), amount, "the log still says exactly what was asked");
  for (const shell of ["sh", "bash"]) {
    try {
      execFileSync(shell, ["-c", `. ${aliases}`], { stdio: "ignore", env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } });
    } catch {
      // "command not found" is the expected end
    }
  }
  assert.equal(existsSync(mark), false, "a shell reading the log ran the agent's code");
  const shown = JSON.parse((await b.hcp(["audit", "--json", "--audit", aliases])).stdout) as { entries: { argv: string[] }[] };
  assert.equal(shown.entries[0]?.argv.at(-1), amount, "hcp audit reads it back");
  assert.deepEqual(b.runs(), []);
});

test("--audit never appends to a file of the user's that is not an audit log (a 0600 ~/.netrc): the write is refused and the file left as it was", async () => {
  const b = bank();
  const netrc = join(b.dir, ".netrc");
  const content = "machine example.org login me password hunter2\n";
  writeFileSync(netrc, content, { mode: 0o600 });
  const run = await b.hcp(["run", b.root, "touch", "--allow-write", "--audit", netrc, "--args", '{"x":"machine evil.example login me password p"}']);
  assert.equal(run.code, 4, run.stderr);
  assert.match(run.stderr, /is not an hcp audit log/);
  const dry = await b.hcp(["run", b.root, "pay", "--arg", "amount=1", "--dry-run", "--audit", netrc]);
  assert.notEqual(dry.code, 0);
  assert.equal(readFileSync(netrc, "utf8"), content);

  // A log whose last line was cut short is not appended to either: the next entry would be glued to it.
  const cut = join(b.dir, "cut.jsonl");
  writeFileSync(cut, '{"time":"2026-12-01T00:00:00.000Z","transport":"cli"', { mode: 0o600 });
  assert.equal((await b.hcp(["run", b.root, "touch", "--allow-write", "--audit", cut])).code, 4);
  // A real log goes on.
  const log = join(b.dir, "real.jsonl");
  for (let i = 0; i < 2; i++) assert.equal((await b.hcp(["run", b.root, "touch", "--allow-write", "--audit", log])).code, 0);
  assert.equal(readFileSync(log, "utf8").trim().split("\n").length, 4, "approved and ran, twice");
  assert.equal(b.runs().length, 2);
});
