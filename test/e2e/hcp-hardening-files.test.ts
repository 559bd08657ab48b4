// Pack and credential files an attacker could plant: links to devices, FIFOs, huge files, absurd nesting.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { execSession, hcp, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack, witness } from "./hardening.js";
import { trustPack } from "./helpers.js";

/** Generous: each of these used to hang or grow without bound; a correct run takes well under a second. */
const HANG_GUARD_MS = 30_000;

function noCrash(r: { stdout: string; stderr: string; timedOut: boolean }): void {
  assert.equal(r.timedOut, false, "the program finished");
  assert.doesNotMatch(r.stdout + r.stderr, /Maximum call stack|RangeError|\n\s+at /, "no crash, no stack trace");
}

/** A pack whose surface.json is replaced by `plant(path)`. */
function planted(plant: (surfacePath: string) => void): string {
  const root = probePack("planted", { go: { description: "Go.", cli: ["probe", "run", "print:ok"], policy: "read" } });
  rmSync(join(root, "surface.json"));
  plant(join(root, "surface.json"));
  return root;
}

test("a surface.json that is a link to /dev/zero, a FIFO or over 10 MiB is an io issue, at once", async () => {
  const env = isolatedEnv();
  const cases: [string, (p: string) => void, RegExp][] = [
    ["/dev/zero", (p) => symlinkSync("/dev/zero", p), /surface\.json: io: cannot read surface\.json: it is a character device, not a regular file/],
    ["FIFO", (p) => execFileSync("mkfifo", [p]), /surface\.json: io: cannot read surface\.json: it is a FIFO, not a regular file/],
    ["directory", (p) => mkdirSync(p), /surface\.json: io: cannot read surface\.json: it is a directory, not a regular file/],
    [
      "11 MiB",
      (p) => {
        writeFileSync(p, "{}");
        truncateSync(p, 11 << 20);
      },
      /surface\.json: io: cannot read surface\.json: it is larger than the 10 MiB limit/,
    ],
  ];
  for (const [what, plant, expected] of cases) {
    const root = planted(plant);
    const r = await hcp(["validate", root], { env, timeoutMs: HANG_GUARD_MS });
    noCrash(r);
    assert.equal(r.code, 1, what);
    assert.match(r.stdout, expected, what);
    const run = await hcp(["run", root, "go"], { env, timeoutMs: HANG_GUARD_MS });
    noCrash(run);
    assert.equal(run.code, 1, what);
  }
  // A HARNESS.md that is a FIFO is refused too, and a served pack never blocks reading it.
  const root = probePack("harness-fifo", { go: { description: "Go.", cli: ["probe", "run", "print:ok"], policy: "read" } });
  rmSync(join(root, "HARNESS.md"));
  execFileSync("mkfifo", [join(root, "HARNESS.md")]);
  const v = await hcp(["validate", root], { env, timeoutMs: HANG_GUARD_MS });
  noCrash(v);
  assert.match(v.stdout, /HARNESS\.md: io: cannot read HARNESS\.md: it is a FIFO, not a regular file/);
});

test("a FIFO credential file is refused at once: hcp run neither blocks nor runs the verb", async () => {
  const w = witness();
  const root = probePack(
    "fifo-cred",
    { go: { description: "Go.", cli: ["probe", "run", `pid:${w.path}`, "env:TOKEN"], policy: "read" } },
    { binding: { mode: "user", hub: "local-credential", family: "fam" } },
  );
  const fifo = join(tempDir("hcp-cred-"), "credentials.json");
  execFileSync("mkfifo", ["-m", "600", fifo]);
  const env = isolatedEnv({ HCP_CREDENTIALS: fifo });
  await trustPack(root, env);
  // stdin held open: nothing may wait on it either
  const r = await hcp(["run", root, "go", "--json"], { env, hold: true, timeoutMs: HANG_GUARD_MS });
  noCrash(r);
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /"code": "credentials_invalid"/);
  assert.match(r.stderr, /it is a FIFO, not a regular file/);
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "fifo-cred", verb: "go", args: {} })], [], { env, timeoutMs: HANG_GUARD_MS });
  assert.equal(exec.responses[0]?.error?.code, "credentials_invalid");
  assert.equal(w.ran(), false);
  // A credential file over 1 MiB is refused the same way.
  const big = join(tempDir("hcp-cred-"), "credentials.json");
  writeFileSync(big, "{}", { mode: 0o600 });
  truncateSync(big, (1 << 20) + 1);
  const r2 = await hcp(["run", root, "go"], { env: { ...env, HCP_CREDENTIALS: big }, timeoutMs: HANG_GUARD_MS });
  assert.equal(r2.code, 3);
  assert.match(r2.stderr, /larger than the 1 MiB limit/);
  assert.equal(w.ran(), false);
});

/** `{"type":"object","properties":{"a": …}}` nested `levels` deep. */
function nestedSchema(levels: number): string {
  return '{"type":"object","properties":{"a":'.repeat(levels) + '{"type":"string"}' + "}}".repeat(levels);
}

test("a 5,000-level args schema is an invalid_meta issue on its pack only: validate, exec and serve never crash", async () => {
  const env = isolatedEnv();
  const dir = tempDir("hcp-packs-");
  const good = probePack("good", { go: { description: "Go.", cli: ["probe", "run", "print:ok"], policy: "read" } });
  renameSync(good, join(dir, "a-good"));
  const deep = probePack("deep", { go: { description: "Go.", cli: ["probe", "run", "print:ok"], policy: "read" } });
  const schema = nestedSchema(5000);
  assert.ok(schema.length > 180_000);
  writeFileSync(
    join(deep, "surface.json"),
    `{"id":"deep","kind":"wrap","cliBin":"probe","wrap":{"bin":"probe"},"verbs":{"go":{"description":"Go.","cli":["probe","{{a}}"],"policy":"read","args":${schema}}}}`,
  );
  renameSync(deep, join(dir, "b-deep"));

  const v = await hcp(["validate", dir, "--json"], { env, timeoutMs: HANG_GUARD_MS });
  noCrash(v);
  assert.equal(v.code, 1);
  type Issue = { severity: string; code: string; path: string; message: string };
  const report = JSON.parse(v.stdout) as { packs: { pack_id: string | null; ok: boolean; issues: Issue[] }[] };
  const errors = (issues: Issue[]) => issues.filter((i) => i.severity === "error");
  assert.deepEqual(
    report.packs.map((p) => [p.ok, errors(p.issues).map((i) => i.code)]),
    [
      [true, []],
      [false, ["invalid_meta"]],
    ],
  );
  const [issue] = errors(report.packs[1]!.issues);
  assert.match(issue!.message, /nested more than 64 levels deep/);
  assert.match(issue!.path, /^verbs\.go\.args\.properties\.a\./);

  // Serving the folder serves the good pack and names the bad one on stderr (§8); --strict refuses, naming it.
  for (const args of [["exec", dir], ["serve", "--mcp", dir]]) {
    const r = await hcp(args, { env, timeoutMs: HANG_GUARD_MS });
    noCrash(r);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /^Warning: skipped .*b-deep: pack at .*b-deep has validation errors: surface\.json: verbs\.go\.args\.properties\.a.*: invalid_meta: nested more than 64 levels deep/m);
    const strict = await hcp([...args, "--strict"], { env, timeoutMs: HANG_GUARD_MS });
    noCrash(strict);
    assert.equal(strict.code, 1, `${args.join(" ")} --strict: ${strict.stderr}`);
    assert.match(strict.stderr, /b-deep has validation errors: surface\.json: verbs\.go\.args\.properties\.a.*: invalid_meta: nested more than 64 levels deep/);
  }
  const exec = await execSession([join(dir, "a-good")], [JSON.stringify({ id: 1, pack: "good", verb: "go", args: {} })], [], { env, timeoutMs: HANG_GUARD_MS });
  assert.equal(exec.responses[0]?.ok, true);
});
