// Reading a command's input document: a file, `-` for standard input, or a program's manifest endpoint.

import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { MANIFEST_ENDPOINT } from "../manifest/types.js";
import { CliError, EXIT_RUNTIME } from "./errors.js";

/** Reads FILE, or all of standard input for `-`. A missing or unreadable file is a usage error naming it. */
export async function readInputText(file: string): Promise<string> {
  if (file === "-") {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  }
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : (err as Error).message;
    throw new CliError(`read ${file}: ${why}`);
  }
}

const MANIFEST_TIMEOUT_MS = 15_000;
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Runs `PROGRAM __rungrad_manifest` (no shell, own process group, killed with its
 * group after 15 s) and returns its standard output.
 */
export function readManifestFromExe(program: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, [MANIFEST_ENDPOINT], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    const out: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let failure: CliError | null = null;
    const killGroup = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => {
      failure = new CliError(`${program} ${MANIFEST_ENDPOINT}: timed out after ${MANIFEST_TIMEOUT_MS / 1000}s`, EXIT_RUNTIME);
      killGroup();
    }, MANIFEST_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MANIFEST_MAX_BYTES) {
        failure ??= new CliError(`${program} ${MANIFEST_ENDPOINT}: output exceeds ${MANIFEST_MAX_BYTES} bytes`, EXIT_RUNTIME);
        killGroup();
      } else {
        out.push(chunk);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString("utf8");
    });
    child.on("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const why = err.code === "ENOENT" ? "not found" : err.code === "EACCES" ? "not executable" : err.message;
      reject(new CliError(`run ${program}: ${why}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (failure) return reject(failure);
      if (code !== 0) {
        const detail = stderr.trim().split("\n")[0];
        const status = signal ? `signal ${signal}` : `exit ${code}`;
        return reject(new CliError(`${program} ${MANIFEST_ENDPOINT}: ${status}${detail ? `: ${detail}` : ""}`, EXIT_RUNTIME));
      }
      resolve(Buffer.concat(out).toString("utf8"));
    });
  });
}
