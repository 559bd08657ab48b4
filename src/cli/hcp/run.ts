// `hcp run`: the cli transport on this process's streams, with a terminal prompt for confirm-gated verbs.

import { createInterface } from "node:readline/promises";
import type { DryRun } from "../../runtime/execute.js";
import { cliRun, type CliRunRequest } from "../../transports/cli.js";
import { planDetails, planSubject } from "../../transports/render.js";

/** Asks on the terminal; only used when stdin and stderr are terminals and --no-prompt is absent. */
async function askOnTerminal(d: DryRun): Promise<boolean> {
  process.stderr.write([`About to run ${planSubject(d)}:`, ...planDetails(d), ""].join("\n"));
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question("Run it? [y/N] ")).trim());
  } finally {
    rl.close();
  }
}

/** Runs one verb and returns the exit code; SIGINT/SIGTERM kill the child's process group. */
export async function runCommand(req: Omit<CliRunRequest, "prompt" | "signal"> & { noPrompt?: boolean }): Promise<number> {
  const stop = new AbortController();
  const abort = () => stop.abort();
  process.once("SIGINT", abort).once("SIGTERM", abort);
  const interactive = !req.noPrompt && process.stdin.isTTY === true && process.stderr.isTTY === true;
  try {
    const out = await cliRun({ ...req, prompt: interactive ? askOnTerminal : undefined, signal: stop.signal });
    process.stdout.write(out.stdout);
    process.stderr.write(out.stderr);
    return out.exitCode;
  } finally {
    process.off("SIGINT", abort).off("SIGTERM", abort);
  }
}
