// `hcp run`: the cli transport on this process's streams, with a terminal prompt (/dev/tty) for verbs a person must approve.

import type { Context } from "../../framework/index.js";
import { cliRun } from "../../transports/cli.js";
import { errorBody, TransportError } from "../../transports/errors.js";
import { optionalString } from "../flags.js";
import { shellWord } from "../../shell-word.js";
import { serveOptions, trustPrompt } from "./flags.js";
import { CliError } from "../errors.js";
import { stopExitCode, untilSignal } from "../signal.js";

const USAGE = "hcp run PACK VERB [--arg NAME=VALUE]…";

/**
 * PACK [VERB] before `--`; everything after it is the pass-through argv. A wrong count is named in hcp run's own
 * terms: a new user's first mistake is often `hcp run PACK VERB name=value`, an argument without its --arg.
 */
function operands(args: readonly string[], atDash: number): { pack: string; verb?: string; passThrough?: string[] } {
  const before = atDash < 0 ? args : args.slice(0, atDash);
  if (before.length === 0) throw new TransportError("usage", `a PACK folder is required: ${USAGE} (hcp list PACK names its verbs)`);
  if (before.length > 2) {
    const extra = before[2]!;
    const named = /^([A-Za-z_][A-Za-z0-9_]*)(:?=)/.exec(extra);
    throw new TransportError(
      "usage",
      named
        ? `unexpected ${JSON.stringify(extra)} after the verb: give a verb's arguments with --arg (--arg ${shellWord(extra)}), or all of them as one JSON object with --args`
        : `unexpected ${JSON.stringify(extra)} after the verb: a verb's arguments are given by name, --arg NAME=VALUE (hcp describe ${shellWord(before[0]!)} ${shellWord(before[1]!)} lists them)${atDash < 0 ? "; a pass-through subcommand goes after --, without a verb" : ""}`,
    );
  }
  return { pack: before[0]!, verb: before[1], passThrough: atDash < 0 ? undefined : args.slice(atDash) };
}

/**
 * Runs one verb (or the pass-through) and exits with the child's code (124 timeout, 128+n signal), or 130/143
 * when SIGINT/SIGTERM stopped hcp itself.
 * The output is the child's own output (masked) as it arrives, or the §6.5 result under --json.
 * SIGINT/SIGTERM kill the child's process group.
 */
export async function runHandler(ctx: Context): Promise<void> {
  await untilSignal(async (signal) => {
    const out = await cliRun({
      ...operands(ctx.args, ctx.argsLenAtDash),
      ...serveOptions(ctx, { prompt: true }),
      askTrust: trustPrompt(ctx),
      arg: ctx.strings("arg"),
      args: optionalString(ctx, "args"),
      confirm: optionalString(ctx, "confirm"),
      dryRun: ctx.dryRun,
      json: ctx.globals.json,
      signal,
      write: (stream, text) => process[stream].write(text),
    }).catch((err: unknown) => {
      // Stopped by SIGINT/SIGTERM: the child's group is killed; the shell sees 128 + the signal, not a runtime error.
      const stopped = stopExitCode(signal);
      throw stopped === null ? err : new CliError(errorBody(err).message, stopped);
    });
    process.stdout.write(out.stdout);
    process.stderr.write(out.stderr);
    ctx.setExitCode(stopExitCode(signal) ?? out.exitCode);
  });
}
