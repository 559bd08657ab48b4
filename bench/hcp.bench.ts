// hcp benchmarks: MCP server start-up against `node -e 0`, one-shot `hcp run` (of a small and of a big program),
// validating 1,000 packs.

import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadPack, loadPacks } from "../src/pack/load.js";
import { stateDirOf } from "../src/runtime/approval/state.js";
import { realPackPath, trustPack } from "../src/runtime/trust/trust.js";
import { elapsed, hcpEnv, ms, ratio, report, REPO, stats, timeCommands, timeSync } from "./lib.js";

const HCP = join(REPO, "dist/bin/hcp.cjs");
const PROBE_PACK = join(REPO, "test/fixtures/packs/hcp-probe");

/**
 * Spawn of `hcp serve --mcp` to its answers to `initialize` and to `tools/list`, asked as the SDK's Client
 * asks: `initialize` at once, then `notifications/initialized` and `tools/list` when it is answered.
 */
function serverStart(): Promise<{ init: number; list: number }> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, [HCP, "serve", "--mcp", PROBE_PACK], { stdio: ["pipe", "pipe", "ignore"], env: isolatedEnv() });
    const send = (...messages: unknown[]) => child.stdin.write(messages.map((m) => JSON.stringify(m) + "\n").join(""));
    let out = "";
    let init = 0;
    child.on("error", reject);
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
      if (init === 0 && /"id":1[,}]/.test(out)) {
        init = elapsed(start);
        send({ jsonrpc: "2.0", method: "notifications/initialized" }, { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
      }
      if (/"id":2[,}]/.test(out)) {
        const list = elapsed(start);
        child.stdin.end();
        child.kill();
        resolve({ init, list });
      }
    });
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
  });
}

/** The benchmark's home: hcp's state, config, credentials and audit log go there, never to the user's. */
let benchHome = "";

const isolatedEnv = () => hcpEnv(benchHome);

/** timeCommands with `env` in the environment the commands inherit: hcp's state, trust and audit log the benchmark's. */
function timeIn(env: Record<string, string>, commands: Record<string, string[]>, runs: number): ReturnType<typeof timeCommands> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    return timeCommands(commands, runs);
  } finally {
    process.env = saved;
  }
}

/** One `hcp run` of a read verb wrapping /bin/echo against a node script spawning /bin/echo (aim: within 1.3x). */
function oneShotRun(runs: number): void {
  const env = isolatedEnv();
  // hcp run runs only a pack a person trusted: trusted once, as a person would (its check is part of every run measured).
  trustPack(loadPack(realPackPath(join(REPO, "bench/fixtures/echo-pack"))), stateDirOf(env));
  const t = timeIn(
    env,
    {
      node: [process.execPath, "-e", "0"],
      spawn: [process.execPath, join(REPO, "bench/fixtures/spawn-echo.cjs")],
      run: [process.execPath, HCP, "run", join(REPO, "bench/fixtures/echo-pack"), "say"],
      args: [process.execPath, HCP, "run", join(REPO, "bench/fixtures/echo-pack"), "repeat", "--arg", "message=hi"],
    },
    runs,
  );
  const base = t["spawn"]!.p50;
  report(`One-shot hcp run of a read verb wrapping /bin/echo, p50 of ${runs} interleaved runs`, [
    ["node -e 0", ms(t["node"]!.p50)],
    ["node script spawning /bin/echo (baseline)", ms(base)],
    ["hcp run echo-pack say (no arguments)", `${ms(t["run"]!.p50)}  ${ratio(t["run"]!.p50, base)} (aim: within 1.3x)`],
    ["hcp run echo-pack repeat --arg message=hi", `${ms(t["args"]!.p50)}  ${ratio(t["args"]!.p50, base)} (aim: within 1.3x)`],
  ]);
}

/**
 * One `hcp run` of a pack whose program is a large file outside its folder (a copy of node, about 100 MB): trust binds
 * such a program by its SHA-256, read at each run (once; again just before the start only after a prompt, an approval or a
 * keyring read). No aim; the cost of a CLI installed as one big binary, against that program run directly.
 */
function bigProgramRun(runs: number): void {
  const env = isolatedEnv();
  const dir = mkdtempSync(join(benchHome, "big-program-"));
  const program = join(dir, "node");
  copyFileSync(process.execPath, program);
  chmodSync(program, 0o755);
  const pack = join(dir, "pack");
  mkdirSync(pack);
  const verbs = { version: { description: "Print the version.", cli: ["node", "--version"], policy: "read" } };
  writeFileSync(join(pack, "surface.json"), JSON.stringify({ id: "big", kind: "wrap", cliBin: "node", wrap: { bin: program }, verbs }));
  writeFileSync(join(pack, "HARNESS.md"), "---\nname: big\ndescription: A big program.\n---\n\nA big program.\n");
  trustPack(loadPack(realPackPath(pack)), stateDirOf(env));
  const t = timeIn(env, { direct: [program, "--version"], run: [process.execPath, HCP, "run", pack, "version"] }, runs);
  const size = statSync(program).size / 2 ** 20;
  report(`One-shot hcp run of a pack whose program (outside its folder) is a ${size.toFixed(0)} MiB file, p50 of ${runs} interleaved runs`, [
    ["the program run directly (baseline)", ms(t["direct"]!.p50)],
    ["hcp run big version", `${ms(t["run"]!.p50)}  +${ms(t["run"]!.p50 - t["direct"]!.p50)} (no aim: the program's SHA-256 is read once a run)`],
  ]);
}

async function startup(runs: number): Promise<void> {
  const inits: number[] = [];
  const lists: number[] = [];
  const nodes: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t = await serverStart();
    // The baseline interleaved with the server's runs, so that the machine's load hits both alike.
    const n = timeCommands({ node: [process.execPath, "-e", "0"] }, 1)["node"]!;
    if (i >= 2) {
      inits.push(t.init);
      lists.push(t.list);
      nodes.push(n.p50);
    }
  }
  const node = stats(nodes);
  const init = stats(inits);
  const list = stats(lists);
  report(`MCP server start-up, p50 of ${runs} runs`, [
    ["node -e 0, spawn to exit (baseline)", ms(node.p50)],
    ["hcp serve --mcp, spawn to initialize answered", `${ms(init.p50)}  +${ms(init.p50 - node.p50)} over node`],
    ["hcp serve --mcp, spawn to tools/list answered", `${ms(list.p50)}  +${ms(list.p50 - node.p50)} over node (aim: within 100 ms)`],
  ]);
}

/** A folder of `count` packs: a wrap surface with six verbs, a policy and a HARNESS.md each. */
function generatePacks(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), "hcp-bench-"));
  for (let i = 0; i < count; i++) {
    const id = `pack-${i}`;
    const root = join(dir, id);
    mkdirSync(root);
    const verbs: Record<string, unknown> = {};
    const policy: Record<string, unknown> = {};
    for (let v = 0; v < 6; v++) {
      verbs[`group.verb${v}`] = {
        description: `Verb ${v} of pack ${i}.`,
        cli: ["tool", "group", `verb${v}`, "{{name}}", "--limit={{limit}}"],
        args: { type: "object", properties: { name: { type: "string" }, limit: { type: "integer" } }, required: ["name"], additionalProperties: false },
        policy: v % 2 === 0 ? "read" : "write",
      };
      policy[`group.verb${v}`] = v % 3 === 0 ? { policy: "write", confirm: true } : v % 2 === 0 ? "read" : "write";
    }
    const surface = { id, name: `Pack ${i}`, kind: "wrap", cliBin: "tool", binding: { mode: "user", hub: "none" }, wrap: { bin: "tool" }, verbs };
    writeFileSync(join(root, "surface.json"), JSON.stringify(surface, null, 2));
    writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: id, default: "deny", verbs: policy }, null, 2));
    writeFileSync(join(root, "HARNESS.md"), `---\nname: ${id}\ndescription: Pack ${i} for the benchmark.\n---\n\n# Pack ${i}\n`);
  }
  return dir;
}

function validation(count: number): void {
  const dir = generatePacks(count);
  try {
    const floor = timeSync(() => {
      for (const name of readdirSync(dir)) {
        JSON.parse(readFileSync(join(dir, name, "surface.json"), "utf8"));
        JSON.parse(readFileSync(join(dir, name, "policy.json"), "utf8"));
        readFileSync(join(dir, name, "HARNESS.md"), "utf8");
      }
    }, 5, 1);
    let invalid = 0;
    const validate = timeSync(() => {
      invalid = loadPacks([dir]).filter((p) => !p.ok).length;
    }, 5, 1);
    if (invalid > 0) throw new Error(`${invalid} generated packs do not validate`);
    report(`Validating a folder of ${count} packs (hcp validate in-process via loadPacks), p50 of 5 runs`, [
      ["read + JSON.parse of the same files (floor)", ms(floor.p50)],
      ["loadPacks", `${ms(validate.p50)}  ${ratio(validate.p50, floor.p50)} of the floor (aim: within 5x)`],
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run(): Promise<void> {
  benchHome = mkdtempSync(join(tmpdir(), "hcp-bench-home-"));
  try {
    await runAll();
  } finally {
    rmSync(benchHome, { recursive: true, force: true });
  }
}

async function runAll(): Promise<void> {
  await startup(15);
  oneShotRun(20);
  bigProgramRun(10);
  validation(1000);
}
