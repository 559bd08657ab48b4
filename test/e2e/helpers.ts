// Spawning the built programs from end-to-end tests: real processes, real pipes.

import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPack } from "../../src/pack/load.js";
import { stateDirOf } from "../../src/runtime/approval/state.js";
import { loadOpenApiDocuments } from "../../src/runtime/openapi/packs.js";
import { realPackPath, trustPack as trustPackAs } from "../../src/runtime/trust/trust.js";
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
  /** An `hcp run` spawned as the agent alone: no person trusts its pack first (see trustBeforeRun). */
  asAgent?: boolean;
}

/**
 * Runs `file args…`; stdin gets `stdin` and is closed, unless `hold` keeps it open and unwritten. An `hcp run`
 * is preceded by trustBeforeRun (unless `asAgent`).
 */
export async function run(file: string, args: string[], options: RunOptions = {}): Promise<Run> {
  if (!options.asAgent) await trustBeforeRun(file, args, options);
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

/** Each run's mark (HCP_RUN_ID, a random UUID of the run's own: src/runtime/process/run-mark.ts), wherever it shows. */
const RUN_MARK = /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g;

/** `value` with each run's mark replaced: what differs between two runs of the same call that print their environment. */
export function withoutRunMarks<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(RUN_MARK, "<run mark>")) as T;
}

export const rungrad = (args: string[], options?: Parameters<typeof run>[2]) => run(process.execPath, [RUNGRAD, ...args], options);

/**
 * What a person does once before `hcp run` gives a pack its credentials (`hcp trust`, docs/credentials.md): the
 * pack, as it is now, trusted in the state directory of `env`, by the built runtime's own function. Returns `path`.
 */
export async function trustPack(path: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const pack = loadPack(realPackPath(path));
  // As hcp trust at a terminal does: the person reviews the document fetched.
  await loadOpenApiDocuments([pack], { fetch: "command-line" });
  trustPackAs(pack, stateDirOf(env));
  return path;
}

/** False in a file that tests the trust gate itself (asAgentInThisFile): its `hcp run`s are the agent's alone. */
let personTrustsRuns = true;

/**
 * For the tests of the trust gate (`hcp trust`, the red-team trust tests): from now on, in this test file, no
 * `hcp run` is preceded by a person's trust; a test trusts a pack itself with trustPack where a person would.
 */
export function asAgentInThisFile(): void {
  personTrustsRuns = false;
}

/**
 * `hcp run` runs only a pack a person trusted (`hcp trust`, docs/credentials.md). Most tests are about what a run
 * does, not about trust, so before every `hcp run` they spawn (a built hcp.cjs in `file` or `args`, directly or
 * under another program such as a pseudo-terminal's, followed by `run` then the pack path, relative to
 * `options.cwd`) the test acts as that person: the pack, as it is just now,
 * is trusted in the state directory of `options.env`, in-process, by the built runtime's own trust function. It is
 * done again before each run, so a test that edits its pack between runs still runs it. A pack that cannot be
 * trusted (it does not load) is left alone: hcp then reports why itself. Opt out with `asAgent` (one run) or
 * asAgentInThisFile (a whole file). `run` calls it; a test spawning hcp by other means calls it (or
 * trustBeforeRunSync) itself.
 */
export async function trustBeforeRun(file: string, args: readonly string[], options: Pick<RunOptions, "cwd" | "env" | "asAgent"> = {}): Promise<void> {
  const path = packToTrust(file, args, options);
  if (path !== undefined) await trustPack(path, options.env).catch(() => undefined);
}

/** trustBeforeRun for a spawn that cannot wait: a pack whose OpenAPI document is loaded asynchronously is left untrusted. */
export function trustBeforeRunSync(file: string, args: readonly string[], options: Pick<RunOptions, "cwd" | "env" | "asAgent"> = {}): void {
  const path = packToTrust(file, args, options);
  if (path === undefined) return;
  try {
    trustPackAs(loadPack(realPackPath(path)), stateDirOf(options.env ?? process.env));
  } catch {
    // it cannot be trusted (it does not load, or its OpenAPI document was not loaded): the run reports why
  }
}

/** The absolute pack path of an `hcp run` a person trusts first (see trustBeforeRun); undefined for any other spawn. */
function packToTrust(file: string, args: readonly string[], options: Pick<RunOptions, "cwd" | "asAgent">): string | undefined {
  // hcp.cjs itself, or started by another program (a pseudo-terminal's, `node`): the word after hcp.cjs is its command.
  const argv = [file, ...args];
  const at = argv.findIndex((word) => basename(word) === "hcp.cjs");
  if (!personTrustsRuns || options.asAgent || at < 0 || argv[at + 1] !== "run") return undefined;
  const path = argv[at + 2];
  return path === undefined || path.startsWith("-") ? undefined : resolvePath(options.cwd ?? REPO, path);
}

/** Writes a pack "echo" in the new folder `dir`, whose one read verb `say` runs `/bin/echo hello`; returns `dir`. */
export function writeEchoPack(dir: string): string {
  mkdirSync(dir);
  const say = { description: "Print hello.", cli: ["echo", "hello"], policy: "read" };
  writeFileSync(join(dir, "surface.json"), JSON.stringify({ id: "echo", name: "Echo", kind: "wrap", cliBin: "echo", binding: { mode: "local", hub: "none" }, wrap: { bin: "/bin/echo" }, verbs: { say } }));
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "echo", verbs: { say: "read" } }));
  return dir;
}
