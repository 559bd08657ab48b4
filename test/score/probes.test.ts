// Probes, runner and scorer against real target processes (small shell scripts and the example targets).

import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { runProcess } from "../../src/runtime/process/process.js";
import { PROBES, Runner, discoverManifest, renderReport, score, type Target } from "../../src/score/index.js";
import { TARGETS, shellTarget } from "./support.js";

/** Opens a runner (short timeout), runs fn, and always removes the config home. */
async function withRunner<T>(target: Target, fn: (r: Runner) => Promise<T>, timeoutMs = 2000): Promise<T> {
  const r = await Runner.open(target, timeoutMs);
  try {
    return await fn(r);
  } finally {
    await r.close();
  }
}

const probe = (name: string, target: Target, timeoutMs?: number) => withRunner(target, (r) => PROBES[name]!(r), timeoutMs);

test("runProcess holdStdin keeps the pipe open: a read blocks until the timeout; plain runs see EOF", async () => {
  const base = { file: "/bin/sh", args: ["-c", "read line; echo read:$?"], env: { PATH: process.env["PATH"] ?? "" }, maxOutputBytes: 1024 };
  const held = await runProcess({ ...base, holdStdin: true, timeoutMs: 300, killGraceMs: 100 });
  assert.equal(held.timed_out, true);
  const eof = await runProcess({ ...base, timeoutMs: 5000 });
  assert.deepEqual([eof.timed_out, eof.stdout], [false, "read:1\n"]);
  const quick = await runProcess({ ...base, args: ["-c", "exit 1"], holdStdin: true, timeoutMs: 5000 });
  assert.deepEqual([quick.timed_out, quick.exit_code], [false, 1]);
});

test("87.5% rounds to 88 in the report (half to even, from a real run)", async () => {
  const path = shellTarget(
    "tie88",
    `case "$*" in whoami) exit 3;; "get ghost") exit 5;; "get forbidden") exit 4;; "get throttled") exit 6;; *) exit 1;; esac`,
  );
  const target: Target = { path, auth: ["whoami"], notFound: ["get", "ghost"], apiError: ["get", "broken"], forbidden: ["get", "forbidden"], rateLimited: ["get", "throttled"] };
  const s = await withRunner(target, async (r) => {
    await discoverManifest(r);
    return score(r, (await import("../../src/score/index.js")).DEFAULT_RULESET);
  });
  assert.equal(s.overall, 0.875);
  const text = renderReport(s);
  assert.match(text, /^Overall: 88% weighted \(5\/6 applicable rules passed, 22 total rules\)$/m);
  assert.match(text, /^exit-codes: 88% weighted \(5\/6 applicable rules passed\)$/m);
  assert.match(text, /\[FAIL\] exit.api-error {15}api-error command exited 1, want 2$/m);
});

/** Variable names of `env` output, without the ones sh adds itself. */
const names = (s: string) =>
  s
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split("=")[0])
    .filter((n) => n !== "PWD" && n !== "SHLVL" && n !== "_");

test("the runner gives the target only the spec's environment, and the secret only to the secret probe", async () => {
  const path = shellTarget("envdump", `env | sort`);
  const out = await withRunner({ path }, async (r) => [await r.exec([]), await r.exec([], { secretEnv: "TOK", secretValue: "v" })] as const);
  assert.deepEqual(names(out[0].stdout), ["HOME", "PATH", "TEMP", "TMP", "TMPDIR", "XDG_CONFIG_HOME"]);
  assert.deepEqual(names(out[1].stdout), ["HOME", "PATH", "TEMP", "TMP", "TMPDIR", "TOK", "XDG_CONFIG_HOME"]);
  assert.match(out[0].stdout, /^HOME=.*rungrad-conformance-[^/\n]+$/m);
});

test("a timed-out target is killed with its process group and reported as exit -1", async () => {
  const path = shellTarget("hang", `sleep 30 & sleep 30`);
  const started = Date.now();
  const inv = await withRunner({ path }, (r) => r.exec([]), 300);
  assert.deepEqual([inv.exit, inv.err, inv.timedOut], [-1, "target timed out", true]);
  assert.ok(Date.now() - started < 10_000);
});

const DESTRUCTIVE = (refusal: string, dryRun = `echo "DRY RUN: would DELETE /items/1"; echo "  no changes were made"`) =>
  shellTarget(
    "destroyer",
    `for a in "$@"; do [ "$a" = --dry-run ] && { ${dryRun}; exit 0; }; done
for a in "$@"; do [ "$a" = --json ] && { printf '%s\\n' '${refusal}' >&2; exit 1; }; done
echo "Error: destructive action requires --confirm" >&2; exit 1`,
  );

test("destructive probes: preview and refusal pass for a conformant command", async () => {
  const target = { path: DESTRUCTIVE(`{"error": "destructive action requires --confirm", "EXIT_CODE": 1}`), destructive: ["item", "delete", "alpha"] };
  assert.equal((await probe("destructive-dry-run-no-confirm", target)).reason, "destructive command previewed under --dry-run without confirmation");
  assert.deepEqual(await probe("destructive-requires-confirm", target), {
    result: "pass",
    reason: "destructive command refused to act without confirmation when non-interactive",
  });
});

test("destructive-requires-confirm judges the --json error body like json.Unmarshal into {exit_code int}", async () => {
  const cases: Array<[string, string]> = [
    [`{"exit_code": 2}`, "destructive --json refusal body reported exit_code 2, want 1"],
    [`null`, "destructive --json refusal body reported exit_code 0, want 1"],
    [`{"exit_code": 1.0}`, "destructive --json refusal did not emit a JSON error body on stderr"],
    [`[1]`, "destructive --json refusal did not emit a JSON error body on stderr"],
    [`Error: nope`, "destructive --json refusal did not emit a JSON error body on stderr"],
  ];
  for (const [body, reason] of cases) {
    const r = await probe("destructive-requires-confirm", { path: DESTRUCTIVE(body), destructive: ["rm"] });
    assert.deepEqual(r, { result: "fail", reason }, body);
  }
});

test("destructive-requires-confirm fails a command that reads stdin, and a dry run that reports a deletion", async () => {
  const reader = shellTarget("reader", `read answer; exit 1`);
  assert.equal(
    (await probe("destructive-requires-confirm", { path: reader, destructive: ["rm"] }, 400)).reason,
    "destructive command without --confirm blocked or read stdin with no terminal",
  );
  const liar = DESTRUCTIVE(`{"exit_code": 1}`, `echo "Deleted item 1"`);
  assert.equal((await probe("destructive-dry-run-no-confirm", { path: liar, destructive: ["rm"] })).reason, "destructive --dry-run reported a completed mutation");
});

test("secret, update and black-box help probes report their failures", async () => {
  const leaky = shellTarget("leaky", `echo "token=$TOK"`);
  assert.equal((await probe("secret-not-printed", { path: leaky, secret: ["whoami"], secretEnv: "TOK" })).reason, "the credential value was printed");
  assert.equal((await probe("secret-not-printed", { path: leaky, secret: ["whoami"] })).result, "not_applicable");
  const selfModifying = shellTarget("selfmod", `echo "# touched" >> "$0"; echo ok`);
  assert.equal((await probe("update-check-readonly", { path: selfModifying, hasUpdate: true })).reason, "update --check modified the target binary");
  const helpless = shellTarget("helpless", `echo "Usage: helpless"`);
  assert.equal((await probe("help-has-examples", { path: helpless, read: ["ls"] })).reason, "--help has no examples section");
  assert.equal((await probe("help-has-related", { path: helpless, read: ["ls"] })).reason, "--help does not point to related commands");
});

test("manifest-backed probes: an unmatched fixture fails and counts as manifest use; no manifest means black box", async () => {
  const target: Target = { path: join(TARGETS, "rgrefmock"), read: ["nope", "x"] };
  await withRunner(target, async (r) => {
    await discoverManifest(r);
    r.consulted = false;
    assert.deepEqual(await PROBES["json-parseable"]!(r), { result: "fail", reason: 'manifest lists no command matching configured fixture "nope x"' });
    assert.equal(r.consulted, true);
  });
  const s = await withRunner({ path: join(TARGETS, "tie"), auth: ["whoami"] }, (r) =>
    score(r, { version: "custom/1", rules: [{ id: "x.one", section: "x", title: "", severity: "required", probe: "no-such-probe" }, { id: "x.two", section: "y", title: "", severity: "required", probe: "missing-credential-exit" }] }),
  );
  assert.deepEqual(s.manifest, {
    status: "disabled",
    schema_version: "",
    tool_name: "",
    tool_version: "",
    command_count: 0,
    reason: "manifest discovery was not run",
    used_rule_count: 0,
    used_rules: [],
  });
  assert.deepEqual(s.rules[0], { id: "x.one", section: "x", severity: "required", result: "not_applicable", reason: "no probe implementation: no-such-probe" });
  assert.deepEqual([s.overall, s.passed, s.applicable, s.total, s.sections.map((x) => x.section)], [1, 1, 1, 2, ["x", "y"]]);
});
