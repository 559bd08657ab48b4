// Spawning the built programs from end-to-end tests: real processes, real pipes.

import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const RUNGRAD = `${REPO}dist/bin/rungrad.cjs`;
export const fixture = (path: string) => `${REPO}test/fixtures/${path}`;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `file args…` with optional stdin text; stdin is closed after it (or at once). */
export function run(file: string, args: string[], options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd ?? REPO, env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? "");
  });
}

export const rungrad = (args: string[], options?: Parameters<typeof run>[2]) => run(process.execPath, [RUNGRAD, ...args], options);
