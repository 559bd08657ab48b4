// The 22 probes of rungrad-spec/1, by probe name: each runs the target's fixtures and judges the outcome.

import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseJSONLiteral } from "../json/literal.js";
import { JsonNumber } from "../json/stable.js";
import type { ValidCommand } from "../manifest/types.js";
import { fixtureEntry, hasHumanOutputMode, hasOutputMode, manifestHasGlobalFlag } from "./fixture.js";
import { fail, na, pass, type ProbeResult } from "./result.js";
import type { Invocation, Runner } from "./runner.js";
import { goJSONValid, goToLower, goTrimSpace } from "./text.js";

export type Probe = (r: Runner) => Promise<ProbeResult>;

/** A recognizable credential the secret probe injects; a conformant tool never prints it. */
const SECRET_SENTINEL = "SENTINEL-SECRET-do-not-print-7Q2";

const COMPLETED_MUTATION = ["created ", "updated ", "deleted ", "removed ", "successfully"];
const PREVIEW_MARKERS = ["dry", "no change", "would "];

const withFlags = (args: readonly string[], ...flags: string[]): string[] => [...args, ...flags];

/** "<label> exited <n>", with the run error in parentheses when there is one. */
function exitReason(inv: Invocation, label: string): string {
  return inv.err !== "" ? `${label} exited ${inv.exit} (${inv.err})` : `${label} exited ${inv.exit}`;
}

type FixtureKey = "read" | "mutate" | "auth" | "ambiguous" | "notFound" | "apiError" | "forbidden" | "rateLimited" | "destructive" | "secret";

/**
 * The common probe frame: n/a without the fixture; with a present manifest, the fixture must map
 * to a manifest command and pass `precheck` (a failure text, or null); then `body` runs.
 */
function probe(
  key: FixtureKey,
  naReason: string,
  body: (r: Runner, fixture: readonly string[], entry: ValidCommand | null) => Promise<ProbeResult>,
  precheck?: (entry: ValidCommand) => string | null,
): Probe {
  return async (r) => {
    const fixture = r.target[key];
    if (fixture === undefined) return na(naReason);
    const { entry, stop } = fixtureEntry(r, fixture);
    if (stop) return stop;
    const refused = entry && precheck ? precheck(entry) : null;
    if (refused !== null) return fail(refused);
    return body(r, fixture, entry);
  };
}

/** A fixture that must exit with one specific code. */
function exitCodeProbe(key: FixtureKey, naReason: string, label: string, want: number, passText: string, precheck?: (e: ValidCommand) => string | null): Probe {
  return probe(
    key,
    naReason,
    async (r, fixture) => {
      const inv = await r.exec(fixture);
      return inv.exit === want ? pass(passText) : fail(`${label} exited ${inv.exit}, want ${want}`);
    },
    precheck,
  );
}

/** Judges dry-run stdout: no completed-mutation wording, and some preview wording. */
function previewVerdict(stdout: string, label: string, passText: string): ProbeResult {
  const low = goToLower(stdout);
  if (COMPLETED_MUTATION.some((w) => low.includes(w))) return fail(`${label} reported a completed mutation`);
  if (PREVIEW_MARKERS.some((w) => low.includes(w))) return pass(passText);
  return fail(`${label} output did not look like a preview`);
}

const READ_NA = "no read command configured";
const NO_JSON_MODE = "manifest says the read command lacks a json output mode";
const readJSONMode = (e: ValidCommand) => (hasOutputMode(e, "json") ? null : NO_JSON_MODE);
const mutateCheck = (e: ValidCommand) =>
  e.mutates && e.supports_dry_run ? null : "manifest says the configured mutate command does not mutate or support --dry-run";
const destructiveCheck = (e: ValidCommand) =>
  e.destructive && e.requires_confirmation
    ? null
    : "manifest says the configured destructive command is not destructive or does not require confirmation";
const authCheck = (what: string) => (e: ValidCommand) =>
  e.requires_auth ? null : `manifest says the configured ${what} command does not require authentication`;

/** --help on the read fixture must show one of the manifest's entries (or, black-box, a section marker). */
function helpProbe(list: "examples" | "related", noneListed: string, texts: { manifest: [string, string]; marker: string; blackBox: [string, string] }): Probe {
  return probe(
    "read",
    "no command to inspect help on",
    async (r, fixture, entry) => {
      const inv = await r.exec(withFlags(fixture, "--help"));
      if (inv.exit !== 0) return fail(exitReason(inv, "--help"));
      if (entry) return entry[list].some((s) => inv.stdout.includes(s)) ? pass(texts.manifest[0]) : fail(texts.manifest[1]);
      return goToLower(inv.stdout).includes(texts.marker) ? pass(texts.blackBox[0]) : fail(texts.blackBox[1]);
    },
    (e) => (e[list].length === 0 ? noneListed : null),
  );
}

/** Two runs of the same argv: both exit 0 and print the same bytes. */
function repeatProbe(flags: string[], notZero: string, differ: string, passText: string): Probe {
  return probe("read", READ_NA, async (r, fixture) => {
    const a = await r.exec(withFlags(fixture, ...flags));
    const b = await r.exec(withFlags(fixture, ...flags));
    if (a.exit !== 0 || b.exit !== 0) return fail(notZero);
    return a.stdout === b.stdout ? pass(passText) : fail(differ);
  });
}

/** os.ReadFile's error text for the usual failures. */
function readError(path: string, err: NodeJS.ErrnoException): string {
  const why: Record<string, string> = { ENOENT: "no such file or directory", EACCES: "permission denied", EISDIR: "is a directory" };
  return err.code && why[err.code] ? `${err.code === "EISDIR" ? "read" : "open"} ${path}: ${why[err.code]}` : err.message;
}

async function fileHash(path: string): Promise<string> {
  return createHash("sha256").update(await readFile(path)).digest("hex");
}

/** update fixtures: n/a without --update; with a manifest, `update` must be a listed command. */
function updateProbe(body: (r: Runner, entry: ValidCommand | null) => Promise<ProbeResult>): Probe {
  return async (r) => {
    if (!r.target.hasUpdate) return na("no update command");
    const { entry, stop } = fixtureEntry(r, ["update"]);
    return stop ?? body(r, entry);
  };
}

async function updateCheckReadonly(r: Runner): Promise<ProbeResult> {
  const path = r.target.path;
  let before: string;
  try {
    before = await fileHash(path);
  } catch (err) {
    return fail(`could not hash target before update --check: ${readError(path, err as NodeJS.ErrnoException)}`);
  }
  const inv = await r.exec(["update", "--check"]);
  if (inv.exit !== 0) return fail(exitReason(inv, "update --check"));
  let after: string;
  try {
    after = await fileHash(path);
  } catch (err) {
    return fail(`could not hash target after update --check: ${readError(path, err as NodeJS.ErrnoException)}`);
  }
  return before === after ? pass("update --check exited 0 and left target binary unchanged") : fail("update --check modified the target binary");
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * json.Unmarshal(stderr, &struct{ExitCode int `json:"exit_code"`}): null leaves 0; a non-object
 * body, or an exit_code that is not an integer literal within int64, is an error (null here).
 */
function errorBodyExitCode(stderr: string): number | null {
  let body: unknown;
  try {
    body = parseJSONLiteral(stderr);
  } catch {
    return null;
  }
  if (body === null) return 0;
  if (typeof body !== "object" || Array.isArray(body) || body instanceof JsonNumber) return null;
  let code = 0;
  // Go matches the field name exactly or case-insensitively; a later key overrides an earlier one.
  for (const [key, value] of Object.entries(body)) {
    if (key.toLowerCase() !== "exit_code" || value === null) continue;
    if (!(value instanceof JsonNumber) || !/^-?(0|[1-9][0-9]*)$/.test(value.literal)) return null;
    const n = BigInt(value.literal);
    if (n < INT64_MIN || n > INT64_MAX) return null;
    code = Number(n);
  }
  return code;
}

async function destructiveRequiresConfirm(r: Runner, fixture: readonly string[]): Promise<ProbeResult> {
  const modes: Array<[string[], string]> = [
    [[], "with no terminal"],
    [["--no-prompt"], "under --no-prompt"],
    [["--json"], "under --json"],
  ];
  let last: Invocation | null = null;
  for (const [flags, mode] of modes) {
    last = await r.exec(withFlags(fixture, ...flags), { holdStdin: true });
    if (last.timedOut) return fail(`destructive command without --confirm blocked or read stdin ${mode}`);
    if (last.exit !== 1) return fail(`destructive command without confirmation ${mode} exited ${last.exit}, want 1`);
  }
  const code = errorBodyExitCode(last!.stderr);
  if (code === null) return fail("destructive --json refusal did not emit a JSON error body on stderr");
  if (code !== 1) return fail(`destructive --json refusal body reported exit_code ${code}, want 1`);
  return pass("destructive command refused to act without confirmation when non-interactive");
}

async function secretNotPrinted(r: Runner, fixture: readonly string[]): Promise<ProbeResult> {
  const env = { secretEnv: r.target.secretEnv!, secretValue: SECRET_SENTINEL };
  const plain = await r.exec(fixture, env);
  const json = await r.exec(withFlags(fixture, "--json"), env);
  const leaked = (inv: Invocation) => inv.stdout.includes(SECRET_SENTINEL) || inv.stderr.includes(SECRET_SENTINEL);
  if (leaked(plain)) return fail("the credential value was printed");
  if (leaked(json)) return fail("the credential value was printed in JSON mode");
  if (plain.exit !== 0 || json.exit !== 0) return fail("credential command did not exit 0 in both modes");
  return pass("the credential value was not printed in human or JSON mode");
}

const secretProbe = probe("secret", "no credential-handling command configured", async (r, f) => secretNotPrinted(r, f), authCheck("secret"));

/** Probe implementations keyed by the ruleset's probe names. */
export const PROBES: Readonly<Record<string, Probe>> = {
  "json-parseable": probe(
    "read",
    READ_NA,
    async (r, fixture) => {
      const inv = await r.exec(withFlags(fixture, "--json"));
      if (inv.exit !== 0) return fail(exitReason(inv, "read --json"));
      return goJSONValid(inv.stdout) ? pass("read --json emitted valid JSON") : fail("stdout is not valid JSON");
    },
    readJSONMode,
  ),
  "dual-form-present": probe(
    "read",
    READ_NA,
    async (r, fixture) => {
      const human = await r.exec(fixture);
      const json = await r.exec(withFlags(fixture, "--json"));
      if (human.exit !== 0) return fail(exitReason(human, "human form"));
      if (json.exit !== 0) return fail(exitReason(json, "JSON form"));
      if (goTrimSpace(human.stdout) === "" || goTrimSpace(json.stdout) === "") return fail("one of the human/JSON forms produced no output");
      return goJSONValid(json.stdout) ? pass("both human and JSON forms produced output") : fail("JSON form did not parse");
    },
    (e) => readJSONMode(e) ?? (hasHumanOutputMode(e) ? null : "manifest lists no human (non-json) output mode for the read command"),
  ),
  "success-exit-zero": probe("read", READ_NA, async (r, fixture) => {
    const inv = await r.exec(fixture);
    return inv.exit === 0 ? pass("read command exited 0") : fail(exitReason(inv, "read command"));
  }),
  "unknown-subcommand-exit": async (r) => {
    const inv = await r.exec(["this-subcommand-does-not-exist"]);
    return inv.exit === 1 ? pass("unknown subcommand exited 1") : fail(`unknown subcommand exited ${inv.exit}, want 1`);
  },
  "missing-credential-exit": exitCodeProbe("auth", "no auth-requiring command configured", "auth command with no credential", 3, "missing credential exited 3", authCheck("auth")),
  "not-found-exit": exitCodeProbe("notFound", "no not-found command configured", "missing resource", 5, "missing resource exited 5"),
  "api-error-exit": exitCodeProbe("apiError", "no api-error command configured", "api-error command", 2, "api-error command exited 2"),
  "forbidden-exit": exitCodeProbe("forbidden", "no forbidden command configured", "forbidden command", 4, "forbidden command exited 4"),
  "rate-limited-exit": exitCodeProbe("rateLimited", "no rate-limited command configured", "rate-limited command", 6, "rate-limited command exited 6"),
  "dry-run-accepted": probe(
    "mutate",
    "no mutating command configured",
    async (r, fixture) => {
      const inv = await r.exec(withFlags(fixture, "--dry-run"));
      return inv.exit === 0 ? pass("mutating command accepted --dry-run") : fail(exitReason(inv, "--dry-run"));
    },
    mutateCheck,
  ),
  "dry-run-no-side-effects": probe(
    "mutate",
    "no mutating command configured",
    async (r, fixture) => {
      const inv = await r.exec(withFlags(fixture, "--dry-run"));
      if (inv.exit !== 0) return fail(exitReason(inv, "--dry-run"));
      return previewVerdict(inv.stdout, "--dry-run", "--dry-run emitted a preview");
    },
    mutateCheck,
  ),
  "destructive-dry-run-no-confirm": probe(
    "destructive",
    "no destructive command configured",
    async (r, fixture) => {
      const inv = await r.exec(withFlags(fixture, "--dry-run", "--no-prompt"));
      if (inv.exit !== 0) return fail(exitReason(inv, "destructive --dry-run"));
      return previewVerdict(inv.stdout, "destructive --dry-run", "destructive command previewed under --dry-run without confirmation");
    },
    destructiveCheck,
  ),
  "destructive-requires-confirm": probe("destructive", "no destructive command configured", destructiveRequiresConfirm, destructiveCheck),
  "repeatable-output": repeatProbe(["--json"], "repeatability command did not exit 0", "two --json runs were not byte-identical", "repeated --json runs were byte-identical"),
  "stable-sort": repeatProbe([], "list command did not exit 0", "list order changed across runs", "list order stable across runs"),
  "ambiguous-name-no-prompt": probe("ambiguous", "no ambiguous-resolution command configured", async (r, fixture) => {
    const inv = await r.exec(withFlags(fixture, "--no-prompt"));
    if (inv.exit === 0) return fail("ambiguous name with --no-prompt unexpectedly succeeded");
    if (inv.exit < 0) return fail("ambiguous name with --no-prompt blocked or crashed");
    if (inv.exit !== 1) return fail(`ambiguous name with --no-prompt exited ${inv.exit}, want 1`);
    if (!goToLower(`${inv.stdout}\n${inv.stderr}`).includes("candidate")) return fail("ambiguous name did not report candidates");
    return pass("ambiguous name with --no-prompt exited 1 and reported candidates");
  }),
  "help-has-examples": helpProbe("examples", "manifest lists no examples for the read command", {
    manifest: ["--help contains a manifest example", "--help output contains none of the manifest examples"],
    marker: "examples:",
    blackBox: ["--help contains an examples section", "--help has no examples section"],
  }),
  "help-has-related": helpProbe("related", "manifest lists no related commands for the read command", {
    manifest: ["--help contains a manifest related command", "--help output contains none of the manifest related commands"],
    marker: "related commands",
    blackBox: ["--help points to related commands", "--help does not point to related commands"],
  }),
  "update-check-readonly": updateProbe((r) => updateCheckReadonly(r)),
  "update-check-json": updateProbe(async (r, entry) => {
    if (entry && !hasOutputMode(entry, "json")) return fail("manifest says the update command lacks a json output mode");
    const inv = await r.exec(["update", "--check", "--json"]);
    return inv.exit === 0 && goJSONValid(inv.stdout) ? pass("update --check --json emitted valid JSON") : fail("update --check --json did not emit valid JSON");
  }),
  "secret-not-printed": async (r) => (r.target.secretEnv ? secretProbe(r) : na("no credential-handling command configured")),
  "config-flag-override": probe("read", READ_NA, async (r, fixture) => {
    // The config flag is global manifest metadata: checked apart from the fixture's entry.
    if (manifestHasGlobalFlag(r, "config") === false) return fail("manifest global_flags does not list the config flag");
    const plain = await r.exec(fixture);
    if (plain.exit !== 0) return fail(exitReason(plain, "read command"));
    const inv = await r.exec(withFlags(fixture, "--config", join(r.confHome, "alt-config.yaml")));
    return inv.exit === 0 ? pass("read accepted an isolated --config path") : fail(exitReason(inv, "read with --config"));
  }),
};
