// `rungrad score <target>`: drive a CLI through the rungrad-spec/1 probes and print the score (§e, §g).

import type { CommandSpec, Context, FlagSpec } from "../../framework/index.js";
import { goFields } from "../../json/goquote.js";
import type { AutoFixtures } from "../../score/auto.js";
import type { Target } from "../../score/target.js";
import { CliError } from "../errors.js";
import { colourOn, NO_COLOR_FLAG, paint } from "../colour.js";
import { stopExitCode, untilSignal } from "../signal.js";
import { CONFIRM_FLAG, RUNS_A_PROGRAM, wouldRun } from "./runs-program.js";

/** Fixture flags: [flag, Target field, usage]; each value is split on whitespace into an argv. */
const FIXTURE_FLAGS = [
  ["read", "read", 'A read command, e.g. "item list"'],
  ["mutate", "mutate", 'A mutating command, e.g. "item create demo"'],
  ["auth", "auth", "A command that requires a credential"],
  ["ambiguous", "ambiguous", "A resolution command with an ambiguous name"],
  ["not-found", "notFound", "A command naming a missing resource"],
  ["api-error", "apiError", "A command that hits an upstream or runtime error"],
  ["forbidden", "forbidden", "A command refused for lacking permission"],
  ["rate-limited", "rateLimited", "A command throttled by an upstream service"],
  [
    "destructive",
    "destructive",
    "A safe/stub destructive command, exercised only through its dry-run and refused-confirmation paths (the scorer never passes --confirm)",
  ],
  ["secret", "secret", "A credential-handling command"],
] as const;

const FLAGS: FlagSpec[] = [
  ...FIXTURE_FLAGS.map(([name, , usage]): FlagSpec => ({ name, type: "string", usage })),
  { name: "secret-env", type: "string", usage: "Environment variable carrying the credential" },
  { name: "manifest", type: "string", default: "auto", usage: "Manifest discovery mode: auto, off, or required" },
  { name: "update", type: "bool", usage: "The target has an update command" },
  { name: "strict", type: "bool", usage: "Exit non-zero if a required rule fails" },
  { name: "fail-on", type: "string", usage: "Exit 1 when a rule of this severity fails: required (same as --strict) or recommended (any failing rule)" },
  NO_COLOR_FLAG,
  { name: "auto-probes", type: "bool", usage: "Derive the read, mutate, destructive, auth, not-found and update probes from the target's manifest (given probe flags win)" },
  CONFIRM_FLAG,
];

type FailOn = "required" | "recommended";

/** --fail-on, or --strict (Go's: required rules); null when the score never fails the run. */
function failOnLevel(ctx: Context): FailOn | null {
  const level = ctx.string("fail-on");
  if (level === "required" || level === "recommended") return level;
  if (level !== "") throw new CliError(`unknown --fail-on level ${JSON.stringify(level)} (want required or recommended)`);
  return ctx.bool("strict") ? "required" : null;
}

/** True when no flag asked for any probe: only the probes that need no fixture can apply. */
const noProbeGiven = (t: Target) => FIXTURE_FLAGS.every(([, field]) => t[field] === undefined) && !t.hasUpdate && !t.secretEnv;

/** Fills the fixtures no flag gave from the manifest's suggestions; returns the chosen ones as flags, for the user. */
function applyAutoProbes(target: Target, auto: AutoFixtures): string[] {
  const chosen: string[] = [];
  for (const [flag, field] of FIXTURE_FLAGS) {
    if (field === "read" || field === "mutate" || field === "auth" || field === "notFound" || field === "destructive") {
      const argv = auto[field];
      if (argv === undefined || target[field] !== undefined) continue;
      target[field] = argv;
      chosen.push(`--${flag} ${JSON.stringify(argv.join(" "))}`);
    }
  }
  if (auto.hasUpdate && !target.hasUpdate) {
    target.hasUpdate = true;
    chosen.push("--update");
  }
  return chosen;
}

const VERDICT_STYLE = { PASS: "green", FAIL: "red", "n/a ": "dim" } as const;

/** Go's report with each verdict coloured (on a terminal only: the bytes elsewhere are Go's). */
const colourVerdicts = (report: string, on: boolean) =>
  on ? report.replace(/^ {2}\[(PASS|FAIL|n\/a )\]/gm, (_, v: keyof typeof VERDICT_STYLE) => `  [${paint(true, VERDICT_STYLE[v], v)}]`) : report;

/** Redraws the terminal's current line. */
const draw = (text: string) => process.stderr.write(`\r\x1b[K${text}`);

/** `[i/n] rule` on one terminal line, redrawn in place; null when stderr is not a terminal or under --quiet. */
function progressLine(ctx: Context): { step: (i: number, n: number, id: string) => void; clear: () => void } | null {
  if (!process.stderr.isTTY || ctx.globals.quiet) return null;
  return { step: (i, n, id) => draw(`[${i + 1}/${n}] ${id}`), clear: () => draw("") };
}

/** The Target a parsed invocation describes; a blank fixture flag leaves its probes not applicable. */
function targetFrom(ctx: Context): Target {
  const target: Target = {
    path: ctx.args[0]!,
    hasUpdate: ctx.bool("update"),
    secretEnv: ctx.string("secret-env"),
    manifestMode: ctx.string("manifest"),
  };
  for (const [flag, field] of FIXTURE_FLAGS) {
    const argv = goFields(ctx.string(flag));
    if (argv.length > 0) target[field] = argv;
  }
  return target;
}

export const scoreCommand: CommandSpec = {
  use: "score <target>",
  short: "Score a CLI against the rungrad spec",
  examples: ['rungrad score ./mytool --read "item list"', 'rungrad score ./mytool --read "item list" --json'],
  related: ["rungrad new"],
  outputModes: ["table", "json"],
  globals: ["quiet"],
  // It runs the target, and the target runs whatever its probes ask (a mutate probe changes its world).
  ...RUNS_A_PROGRAM,
  args: { exact: 1 },
  flags: FLAGS,
  run: async (ctx) => {
    const failOn = failOnLevel(ctx);
    if (ctx.dryRun) return wouldRun(ctx, [ctx.args[0]!], "the target, with the rungrad-spec/1 probes");
    // The scorer (runner, probes) loads only when `score` runs.
    const { DEFAULT_RULESET, Runner, ScoreCancelledError, autoProbes, discoverManifest, failures, score, renderReport } = await import("../../score/index.js");
    const target = targetFrom(ctx);
    const bare = noProbeGiven(target);
    await untilSignal(async (signal) => {
      const runner = await Runner.open(target, undefined, signal);
      const progress = progressLine(ctx);
      try {
        progress?.step(-1, DEFAULT_RULESET.rules.length, "manifest discovery");
        await discoverManifest(runner);
        if (ctx.bool("auto-probes")) {
          if (runner.manifest === null) ctx.infof(`Warning: --auto-probes found no manifest (${runner.summary?.status}): no probes derived`);
          else {
            const chosen = applyAutoProbes(runner.target, autoProbes(runner.manifest));
            ctx.infof(chosen.length > 0 ? `auto-probes: ${chosen.join(" ")}` : "auto-probes: the manifest suggests no probes");
          }
        }
        const result = await score(runner, DEFAULT_RULESET, progress?.step);
        progress?.clear();
        await ctx.writeResult(result, () => colourVerdicts(renderReport(result), colourOn(process.stdout, ctx.bool("no-color"))));
        if (bare && !ctx.bool("auto-probes")) {
          ctx.infof(`Warning: no probe given: only ${result.applicable} of ${result.total} rules applied; give probes (--read, --mutate, …) or use --auto-probes`);
        }
        const failed = failOn ? failures(result, failOn) : [];
        if (failed.length > 0) throw new CliError(`${failOn === "required" ? "required" : "required or recommended"} rules failed: ${failed.join(", ")}`);
      } catch (err) {
        progress?.clear();
        // The children are killed; the temporary config home goes in `finally`; the shell sees 128 + the signal.
        if (err instanceof ScoreCancelledError) throw new CliError("interrupted: no score", stopExitCode(signal) ?? 130);
        throw err;
      } finally {
        await runner.close();
      }
    });
  },
};
