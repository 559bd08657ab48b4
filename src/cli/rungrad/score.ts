// `rungrad score <target>`: drive a CLI through the rungrad-spec/1 probes and print the score (§e, §g).

import type { CommandSpec, Context, FlagSpec } from "../../framework/index.js";
import { goFields } from "../../json/goquote.js";
import type { Target } from "../../score/target.js";
import { CliError } from "../errors.js";

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
];

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
  args: { exact: 1 },
  flags: FLAGS,
  run: async (ctx) => {
    // The scorer (runner, probes) loads only when `score` runs.
    const { DEFAULT_RULESET, Runner, discoverManifest, score, renderReport, requiredFailures } = await import("../../score/index.js");
    const runner = await Runner.open(targetFrom(ctx));
    try {
      await discoverManifest(runner);
      const result = await score(runner, DEFAULT_RULESET);
      await ctx.writeResult(result, () => renderReport(result));
      const failed = ctx.bool("strict") ? requiredFailures(result) : [];
      if (failed.length > 0) throw new CliError(`required rules failed: ${failed.join(", ")}`);
    } finally {
      await runner.close();
    }
  },
};
