// rungrad score's additions to Go's contract: --auto-probes, --fail-on, the no-probe warning, progress on a terminal, Ctrl-C.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stableJSON } from "../../src/json/stable.js";
import { parseManifest, validateManifest } from "../../src/manifest/index.js";
import { autoProbes } from "../../src/score/auto.js";
import { generate } from "../../src/scaffold/index.js";
import { REPO, RUNGRAD, rungrad } from "../e2e/helpers.js";
import { tempDir } from "../temp.js";
import { shellTarget, TARGETS } from "./support.js";

const RGREF = join(REPO, "examples/rgref/rgref");
function rgrefManifest() {
  const m = parseManifest(readFileSync(join(REPO, "examples/manifests/rgref.json"), "utf8"));
  validateManifest(m);
  return m;
}

test("autoProbes: reads, writes with their example operands, a not-found lookup next to the read, update", () => {
  assert.deepEqual(autoProbes(rgrefManifest()), {
    read: ["item", "list"],
    mutate: ["item", "create", "gamma"],
    destructive: ["item", "delete", "alpha"],
    auth: ["whoami"],
    notFound: ["item", "get", "rungrad-probe-missing"],
    hasUpdate: true,
  });
  // The scaffold has no read command with an operand: no not-found probe, rather than a guess.
  assert.deepEqual(autoProbes(generate({ name: "demo" }).manifest), {
    read: ["widget", "list"],
    mutate: ["widget", "create", "gamma"],
    destructive: ["widget", "delete", "alpha"],
    hasUpdate: true,
  });
});

test("score --auto-probes says on stderr which probes it chose and scores them (rgref: 17 of 22 apply, all pass)", async () => {
  const r = await rungrad(["score", RGREF, "--auto-probes"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr,
    'auto-probes: --read "item list" --mutate "item create gamma" --auth "whoami" --not-found "item get rungrad-probe-missing" --destructive "item delete alpha" --update\n',
  );
  assert.match(r.stdout, /^Overall: 100% weighted \(17\/17 applicable rules passed, 22 total rules\)$/m);
  // A given probe flag wins over the manifest's suggestion.
  const given = await rungrad(["score", RGREF, "--auto-probes", "--read", "item get alpha", "--json"]);
  assert.equal(given.code, 0, given.stderr);
  assert.equal(given.stderr, "", "--json keeps stderr for the error body");
  const score = JSON.parse(given.stdout) as { applicable: number };
  assert.equal(score.applicable, 17);
});

test("score --auto-probes never runs a write command for real: only with --dry-run, or without confirmation", async () => {
  const witness = join(tempDir("score-witness-"), "ran");
  const manifest = stableJSON({
    schema_version: "rungrad-manifest/1", spec_version: "rungrad-spec/1", tool_name: "wtool", tool_version: "v1",
    global_flags: [],
    commands: [
      { path: [], use: "wtool", short: "w", examples: [], related: [], output_modes: [], requires_auth: false, mutates: false, supports_dry_run: false, destructive: false, requires_confirmation: false, supports_meta: false, local_flags: [] },
      { path: ["thing", "create"], use: "create <name>", short: "c", examples: [], related: [], output_modes: ["human", "json"], requires_auth: false, mutates: true, supports_dry_run: true, destructive: false, requires_confirmation: false, supports_meta: false, local_flags: [] },
      { path: ["thing", "delete"], use: "delete <name>", short: "d", examples: ["wtool thing delete alpha"], related: [], output_modes: ["human", "json"], requires_auth: false, mutates: true, supports_dry_run: true, destructive: true, requires_confirmation: true, supports_meta: false, local_flags: [] },
      { path: ["thing", "list"], use: "list", short: "l", examples: [], related: [], output_modes: ["human", "json"], requires_auth: false, mutates: false, supports_dry_run: false, destructive: false, requires_confirmation: false, supports_meta: false, local_flags: [] },
    ],
  });
  const manifestFile = `${witness}.json`;
  writeFileSync(manifestFile, manifest);
  // A careless target: it creates and deletes whenever asked, unless --dry-run; it records each real write.
  const target = shellTarget("wtool", `
case "$1" in __rungrad_manifest) cat '${manifestFile}'; exit 0;; esac
case " $* " in *" --dry-run "*) echo "would change"; exit 0;; esac
case "$2" in create|delete) echo "$*" >> '${witness}'; echo "Deleted"; exit 0;; esac
echo '[]'`);
  const r = await rungrad(["score", target, "--auto-probes"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /--mutate "thing create rungrad-probe" --destructive "thing delete alpha"/);
  // The destructive probe's refusal path ran `thing delete alpha` without --confirm (the target, not the scorer, chose to act).
  const runs = existsSync(witness) ? readFileSync(witness, "utf8").trim().split("\n") : [];
  assert.ok(runs.every((line) => line.startsWith("thing delete alpha") && !line.includes("--confirm")), runs.join("\n"));
  assert.ok(!runs.some((line) => line.startsWith("thing create")), "a create ran without --dry-run");
  assert.match(r.stdout, /\[FAIL\] dryrun\.destructive-confirm-required/);
});

test("score without probes warns on stderr (not under --json or --quiet); --auto-probes without a manifest says so", async () => {
  const tie = join(TARGETS, "tie");
  const bare = await rungrad(["score", tie]);
  assert.equal(bare.code, 0);
  assert.equal(bare.stderr, "Warning: no probe given: only 1 of 22 rules applied; give probes (--read, --mutate, …) or use --auto-probes\n");
  assert.equal((await rungrad(["score", tie, "--quiet"])).stderr, "");
  assert.equal((await rungrad(["score", tie, "--json"])).stderr, "");
  const auto = await rungrad(["score", tie, "--auto-probes"]);
  assert.equal(auto.stderr, "Warning: --auto-probes found no manifest (missing): no probes derived\n");
});

test("score --fail-on: required is --strict's exact error; recommended fails on any failing rule; other levels are usage errors", async () => {
  const contradict = join(TARGETS, "contradict");
  // Each score runs dozens of probes: the independent runs go at once.
  const [strict, required] = await Promise.all([
    rungrad(["score", contradict, "--read", "item list", "--strict"]),
    rungrad(["score", contradict, "--read", "item list", "--fail-on", "required"]),
  ]);
  assert.deepEqual([required.code, required.stdout, required.stderr], [strict.code, strict.stdout, strict.stderr]);
  assert.equal(required.stderr, "Error: required rules failed: help.examples, output.json-parseable\n");

  const tie = join(TARGETS, "tie");
  const flags = ["--auth", "whoami", "--not-found", "get ghost", "--api-error", "get broken", "--forbidden", "get forbidden", "--rate-limited", "get throttled"];
  const [lenient, any, bad] = await Promise.all([
    rungrad(["score", tie, ...flags, "--fail-on", "required", "--json"]),
    rungrad(["score", tie, ...flags, "--fail-on", "recommended"]),
    rungrad(["score", tie, "--fail-on", "optional"]),
  ]);
  assert.equal(lenient.code, 0, "no required rule fails");
  const failed = (JSON.parse(lenient.stdout) as { rules: { id: string; result: string }[] }).rules.filter((x) => x.result === "fail").map((x) => x.id);
  assert.ok(failed.length > 0);
  assert.equal(any.code, 1);
  assert.equal(any.stderr, `Error: required or recommended rules failed: ${[...failed].sort().join(", ")}\n`);

  assert.deepEqual([bad.code, bad.stdout, bad.stderr], [1, "", 'Error: unknown --fail-on level "optional" (want required or recommended)\n']);
});

test("score shows progress on stderr only when it is a terminal", { skip: spawnSync("script", ["--version"]).status !== 0 && "no script(1)" }, async () => {
  const piped = await rungrad(["score", RGREF, "--read", "item list"]);
  assert.doesNotMatch(piped.stderr, /\[\d+\/22\]/);
  // script(1) gives the command a terminal for stdin, stdout and stderr.
  const tty = spawnSync("script", ["-qec", `${process.execPath} ${RUNGRAD} score ${RGREF} --read "item list"`, "/dev/null"], { encoding: "utf8" });
  assert.equal(tty.status, 0, tty.stderr);
  assert.match(tty.stdout, /\[22\/22\] auth\.config-flag/);
  const quiet = spawnSync("script", ["-qec", `${process.execPath} ${RUNGRAD} score ${RGREF} --read "item list" --quiet`, "/dev/null"], { encoding: "utf8" });
  assert.doesNotMatch(quiet.stdout, /\[\d+\/22\]/);
});

for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
  test(`score stopped by ${sig} exits ${code}, kills the target's group and removes its temporary folder`, { timeout: 60_000 }, async () => {
    const tmp = tempDir("score-signal-");
    const started = join(tmp, "started");
    const target = shellTarget("slow", `echo $$ > '${started}'; sleep 60`);
    const child = spawn(process.execPath, [RUNGRAD, "score", target], { env: { ...process.env, TMPDIR: tmp }, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    while (!existsSync(started) || readFileSync(started, "utf8") === "") await new Promise((r) => setTimeout(r, 20));
    const targetPid = Number(readFileSync(started, "utf8"));
    child.kill(sig);
    const exit = await new Promise<number | null>((resolve) => child.on("close", resolve));
    assert.equal(exit, code, stderr);
    assert.equal(stderr, "Error: interrupted: no score\n");
    assert.deepEqual(readdirSync(tmp).filter((f) => f.startsWith("rungrad-conformance-")), []);
    assert.throws(() => process.kill(targetPid, 0), /ESRCH/);
  });
}
