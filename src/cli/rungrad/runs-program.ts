// rungrad's commands that run a program the caller names (score's target, --from-exe): how they are annotated.
//
// Such a command is never a plain read, whatever else it does: the program can do anything. Its manifest says
// mutates, destructive and requires_confirmation, so an agent is told to ask a person first and a pack generated
// from rungrad (`hcp init --from-exe rungrad`) makes it a write that needs a person's approval. rungrad itself asks
// nobody (Go's `rungrad score` runs without a prompt); `--confirm` is accepted so the generated pack can pass it.

import type { CommandSpec, Context, FlagSpec } from "../../framework/index.js";

export const RUNS_A_PROGRAM: Pick<CommandSpec, "mutates" | "destructive"> = { mutates: true, destructive: true };

export const CONFIRM_FLAG: FlagSpec = {
  name: "confirm",
  type: "bool",
  usage: "Run the program without asking (rungrad never asks; an agent's caller, such as an hcp pack, asks a person first)",
};

/** The dry run of a command that would run `argv`: says so and runs nothing. */
export async function wouldRun(ctx: Context, argv: string[], what: string): Promise<void> {
  await ctx.writeResult({ dry_run: true, would_run: argv }, () => `DRY RUN: would run ${argv.map((a) => JSON.stringify(a)).join(" ")} (${what})\n`);
}
