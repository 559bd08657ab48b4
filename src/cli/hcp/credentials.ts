// `hcp credentials set|get|delete FAMILY NAME`: manages one stored credential (§9). The value comes from
// the terminal (not echoed) or standard input, never from argv; `get` shows it masked unless --reveal.

import type { Context } from "../../framework/index.js";
import { credentialPlace, deleteCredential, getCredential, setCredential, type CredentialRef } from "../../runtime/secrets/credential-store.js";
import { MASK } from "../../runtime/secrets/redact.js";
import { CliError } from "../errors.js";
import { refuseWhereAgentRuns } from "./flags.js";

/** The largest value read from standard input. */
const MAX_VALUE_BYTES = 64 * 1024;

/**
 * FAMILY NAME, counted here so that a mistake says what goes where. A third operand to `set` is most likely the value
 * itself: refused, and never repeated (it is a secret, now in the shell's history: the message says to replace it).
 */
function refOf(ctx: Context, command: "set" | "get" | "delete"): CredentialRef {
  if (command === "set" && ctx.args.length > 2) {
    throw new CliError(
      "hcp credentials set takes FAMILY and NAME only, never the value: an argument stays in your shell's history and is seen by other programs. " +
        "Run it without the value and type it at the prompt, or pipe it on standard input; if that was a real secret, replace it where it was issued",
    );
  }
  if (ctx.args.length !== 2) {
    throw new CliError(
      `give FAMILY and NAME: hcp credentials ${command} FAMILY NAME, where FAMILY is the pack's binding.family (else its id) and NAME the variable or, with --scheme, the security scheme (hcp init prints the command for each)`,
    );
  }
  const [family, name] = ctx.args as [string, string];
  return { family, name, scheme: ctx.bool("scheme"), keyring: ctx.bool("keyring"), env: process.env };
}

/** Reads a line from the terminal without echoing it. */
function readHidden(prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    // Echo off before the prompt shows: a value typed as soon as it appears is never echoed.
    stdin.setRawMode(true);
    process.stderr.write(prompt);
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003" || ch === "\u0004") return done(new CliError("cancelled: nothing was stored"));
        if (ch === "\u007f" || ch === "\b") value = [...value].slice(0, -1).join("");
        else value += ch;
      }
    };
    stdin.resume();
    stdin.on("data", onData);
  });
}

/** Standard input, whole (at most 64 KiB), without one trailing newline. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_VALUE_BYTES) throw new CliError(`the value on standard input is larger than ${MAX_VALUE_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}

export async function setHandler(ctx: Context): Promise<void> {
  const ref = refOf(ctx, "set");
  refuseWhereAgentRuns("hcp credentials set", "put its own credential where yours is (your packs would then act on its account)");
  if (process.stdin.isTTY && ctx.globals.noPrompt) throw new CliError("--no-prompt: nothing may be asked at the terminal; pipe the value on standard input");
  const value = process.stdin.isTTY ? await readHidden(`Value of ${ref.name} for ${ref.family} (not shown): `) : await readStdin();
  if (value === "") throw new CliError("no value given: type it at the prompt, or pipe it on standard input (never as an argument)");
  if (ctx.dryRun) {
    await ctx.writeResult({ dry_run: true, family: ref.family, name: ref.name, where: credentialPlace(ref) }, () => `DRY RUN: would store ${ref.name} for ${ref.family} in the ${credentialPlace(ref)}\n`);
    return;
  }
  await setCredential(ref, value);
  await ctx.writeResult({ family: ref.family, name: ref.name, where: credentialPlace(ref) }, () => `stored ${ref.name} for ${ref.family} in the ${credentialPlace(ref)}\n`);
}

export async function getHandler(ctx: Context): Promise<void> {
  const ref = refOf(ctx, "get");
  if (ctx.bool("reveal")) refuseWhereAgentRuns("hcp credentials get --reveal", "read your credential");
  const value = getCredential(ref);
  if (value === null) throw new CliError(`no ${ref.name} for ${ref.family} in the ${credentialPlace(ref)}`, 5);
  const shown = ctx.bool("reveal") ? value : MASK;
  await ctx.writeResult({ family: ref.family, name: ref.name, where: credentialPlace(ref), value: shown }, () => `${shown}\n`);
}

export async function deleteHandler(ctx: Context): Promise<void> {
  const ref = refOf(ctx, "delete");
  refuseWhereAgentRuns("hcp credentials delete", "take your credentials away");
  if (ctx.dryRun) {
    await ctx.writeResult({ dry_run: true, family: ref.family, name: ref.name, where: credentialPlace(ref) }, () => `DRY RUN: would delete ${ref.name} for ${ref.family} from the ${credentialPlace(ref)}\n`);
    return;
  }
  if (!(await deleteCredential(ref))) throw new CliError(`no ${ref.name} for ${ref.family} in the ${credentialPlace(ref)}`, 5);
  await ctx.writeResult({ family: ref.family, name: ref.name, where: credentialPlace(ref), deleted: true }, () => `deleted ${ref.name} for ${ref.family} from the ${credentialPlace(ref)}\n`);
}
