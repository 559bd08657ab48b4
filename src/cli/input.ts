// Reading a command's input document: a file, `-` for standard input, or a program's manifest endpoint.

import { systemReason } from "../errno.js";
import { open } from "node:fs/promises";
import { resolve } from "node:path";
import { ExitCode } from "../framework/errors.js";
import { decodeGoBytes } from "../json/gobytes.js";
import { MANIFEST_ENDPOINT } from "../manifest/types.js";
import { RuntimeError } from "../runtime/errors.js";
import { runProcess, type ProcessRequest, type ProcessResult } from "../runtime/process/process.js";
import { CliError } from "./errors.js";

/**
 * Reads FILE, or all of standard input for `-`, decoded for the Go-compatible JSON reader (an invalid
 * UTF-8 byte stays visible to it). A missing or unreadable file is a usage error naming it.
 */
export async function readInputText(file: string): Promise<string> {
  if (file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return decodeGoBytes(Buffer.concat(chunks));
  }
  let bytes: Buffer | undefined;
  try {
    bytes = await readAtMost(file, INPUT_MAX_BYTES);
  } catch (err) {
    throw new CliError(`read ${file}: ${systemReason(err)}`);
  }
  if (bytes === undefined) throw new CliError(`read ${file}: it is larger than the ${INPUT_MAX_BYTES >> 20} MiB limit`);
  return decodeGoBytes(bytes);
}

/**
 * Past this a document is refused: a device that never ends (/dev/zero) stops here, not at memory's end. Four times a
 * 100,000-command manifest (63 MiB), and half of the longest string V8 makes of it.
 */
const INPUT_MAX_BYTES = 256 * 1024 * 1024;

/**
 * FILE's bytes, or undefined when it holds more than `max`. A regular file is read whole by its size; anything else
 * in chunks to its end, so a pipe (`<(mytool __rungrad_manifest)`) still reads, and a device reporting size 0 cannot
 * fill memory.
 */
async function readAtMost(file: string, max: number): Promise<Buffer | undefined> {
  const handle = await open(file, "r");
  try {
    const stat = await handle.stat();
    if (stat.isFile()) return stat.size > max ? undefined : await handle.readFile();
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, max + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) return Buffer.concat(chunks, total);
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > max) return undefined;
    }
  } finally {
    await handle.close();
  }
}

const MANIFEST_TIMEOUT_MS = 15_000;
const NOT_RUNGRAD = "is it a CLI built on rungrad? Such a CLI prints its manifest for this hidden command";
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

/** The program given printed no manifest: it is likely no CLI built on rungrad. */
export class NotRungradError extends CliError {
  override name = "NotRungradError";
  constructor(what: string) {
    super(`${what} (${NOT_RUNGRAD})`, ExitCode.API);
  }
}

/**
 * Runs a program the person named (`--from-exe`, `--from-cobra`) like any child of ours: no shell, the person's
 * environment, its own process group killed at the timeout; in `cwd` when given, a path to the program still read from
 * the person's folder. A program that cannot start is a CliError saying why, exiting `startExit`: a usage error where a
 * manifest is read (as rungrad's every manifest failure is), else a runtime one.
 */
export async function runNamedProgram(
  program: string,
  args: readonly string[],
  options: Pick<ProcessRequest, "timeoutMs" | "maxOutputBytes" | "decodeStdout" | "cwd">,
  startExit: number = ExitCode.Usage,
): Promise<ProcessResult> {
  const file = options.cwd !== undefined && program.includes("/") ? resolve(program) : program;
  try {
    return await runProcess({ file, args, env: process.env as Record<string, string>, ...options });
  } catch (err) {
    if (err instanceof RuntimeError) throw new CliError(`run ${program}: ${startFailure(err)}${onPathHint(program, err)}`, startExit);
    throw err;
  }
}

/** Runs `PROGRAM __rungrad_manifest` (its group killed after 15 s) and returns its standard output. */
export async function readManifestFromExe(program: string): Promise<string> {
  const endpoint = `${program} ${MANIFEST_ENDPOINT}`;
  const result = await runNamedProgram(program, [MANIFEST_ENDPOINT], {
    timeoutMs: MANIFEST_TIMEOUT_MS,
    maxOutputBytes: MANIFEST_MAX_BYTES,
    decodeStdout: decodeGoBytes, // read as Go reads bytes: an invalid byte stays visible to the JSON reader
  });
  if (result.timed_out) throw new CliError(`${endpoint}: timed out after ${MANIFEST_TIMEOUT_MS / 1000}s`, ExitCode.API);
  if (result.stdout_truncated) throw new CliError(`${endpoint}: output exceeds ${MANIFEST_MAX_BYTES} bytes`, ExitCode.API);
  if (result.exit_code !== 0) {
    const status = result.signal ? `signal ${result.signal}` : `exit ${result.exit_code}`;
    const detail = result.stderr.trim().split("\n")[0];
    throw new NotRungradError(`${endpoint}: ${status}${detail ? `: ${detail}` : ""}`);
  }
  // A program that is no rungrad CLI may well exit 0 (echo, true): say so, not what the JSON reader makes of its output.
  if (!result.stdout.trimStart().startsWith("{")) throw new NotRungradError(`${endpoint}: printed no manifest JSON`);
  return result.stdout;
}

/** For a bare name that was not found: it was looked up on PATH only, as a shell would, not in the current folder. */
function onPathHint(program: string, err: RuntimeError): string {
  if (program.includes("/") || !err.message.includes("(ENOENT)")) return "";
  return ` (a name without a / is looked up on PATH; for a program in this folder give its path: ./${program})`;
}

/** "not found" / "not executable" for the usual spawn failures, the runtime's text otherwise. */
function startFailure(err: RuntimeError): string {
  if (err.message.includes("(ENOENT)")) return "not found";
  if (err.message.includes("(EACCES)")) return "not executable";
  return err.message;
}
