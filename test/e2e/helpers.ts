// Spawning the built programs from end-to-end tests: real processes, real pipes.

import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPack } from "../../src/pack/load.js";
import { stateDirOf } from "../../src/runtime/approval/state.js";
import { loadOpenApiDocuments } from "../../src/runtime/openapi/packs.js";
import { realPackPath, trustPack as trustPackAs } from "../../src/runtime/trust.js";
import { tempDir } from "../temp.js";

// Tests never touch the real user's hcp state: every test process (and every program it spawns with
// its environment) gets its own state directory and audit log. A test that needs its own sets them again.
const ISOLATED = tempDir("hcp-test-state-");
process.env["XDG_STATE_HOME"] = join(ISOLATED, "state");
process.env["HCP_AUDIT"] = join(ISOLATED, "audit.jsonl");

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const RUNGRAD = `${REPO}dist/bin/rungrad.cjs`;
export const fixture = (path: string) => `${REPO}test/fixtures/${path}`;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the process outlived `timeoutMs` and was killed. */
  timedOut: boolean;
}

export interface RunOptions {
  stdin?: string;
  /** Keep stdin an open pipe that is never written (a prompt would block on it). */
  hold?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the process after this long and report timedOut (no limit by default). */
  timeoutMs?: number;
}

/** Runs `file args…`; stdin gets `stdin` and is closed, unless `hold` keeps it open and unwritten. */
export function run(file: string, args: string[], options: RunOptions = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd ?? REPO, env: options.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill("SIGKILL");
          }, options.timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // A program that exits without reading its input closes the pipe: EPIPE, no failure of the test.
    child.stdin.on("error", () => {});
    child.on("close", (code) => {
      clearTimeout(timer);
      if (options.hold) child.stdin.destroy();
      resolve({ code, stdout, stderr, timedOut });
    });
    if (!options.hold) child.stdin.end(options.stdin ?? "");
  });
}

export const rungrad = (args: string[], options?: Parameters<typeof run>[2]) => run(process.execPath, [RUNGRAD, ...args], options);

/**
 * What a person does once before `hcp run` gives a pack its credentials (`hcp trust`, docs/credentials.md): the
 * pack, as it is now, trusted in the state directory of `env`, by the built runtime's own function. Returns `path`.
 */
export async function trustPack(path: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const pack = loadPack(realPackPath(path));
  await loadOpenApiDocuments([pack]);
  trustPackAs(pack, stateDirOf(env));
  return path;
}
