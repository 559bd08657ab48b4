// The MCP server under load: `hcp serve --mcp` of a verb wrapping /bin/echo against a minimal server made
// with the official SDK that spawns /bin/echo per call (bench/fixtures/min-sdk-server.mjs), both driven by
// the SDK's Client: tools/call p50 one at a time (and a raw spawn of /bin/echo), and after a pause each, throughput with 16 and 64
// calls in flight (hcp with its default limit of children at once, and with it raised to match the minimal server), the server's CPU per call, and the servers' RSS after 100, 1,000 and 10,000 calls (with, from a
// probe preloaded into them, their heap's spaces and what a full collection leaves). The calls and throughput are
// measured twice: over the whole window (fresh servers, V8 still compiling the code a call runs) and in the steady
// state (the same servers after an identical warm-up of each), side by side, neither hiding the other.

import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { elapsed, hcpEnv, mib, ms, ratio, report, REPO, stats } from "./lib.js";

interface Server {
  client: Client;
  pid: number;
  tool: string;
}

/** A server to start (node with `args`) and the tool its calls call. */
interface ServerCommand {
  name: string;
  args: string[];
  tool: string;
}

async function connect(args: string[], tool: string, env: Record<string, string>): Promise<Server> {
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: "ignore" });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  return { client, pid: transport.pid!, tool };
}

/**
 * CPU milliseconds the process has used (all its threads), from /proc (Linux): the time on a CPU in
 * nanoseconds (schedstat), else user + system in clock ticks of 10 ms; NaN elsewhere.
 */
function cpuMs(pid: number): number {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "latin1").split(" ")[0]);
    if (Number.isFinite(ns)) return ns / 1e6;
  } catch {
    // no schedstat: the ticks below
  }
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 1/100 s (USER_HZ)
  } catch {
    return Number.NaN;
  }
}

/** Resident memory in KiB, from /proc (Linux); NaN elsewhere. */
function rssKib(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "latin1"))![1]);
  } catch {
    return Number.NaN;
  }
}

async function call(s: Server): Promise<void> {
  const r = await s.client.callTool({ name: s.tool, arguments: {} });
  if (r.isError) throw new Error(`${s.tool} failed: ${JSON.stringify(r.content)}`);
}

/** `count` calls, `inFlight` at a time: calls per second and the server's CPU ms per call. */
async function load(s: Server, count: number, inFlight: number): Promise<{ rate: number; cpu: number }> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      await call(s);
    }
  };
  const cpu = cpuMs(s.pid);
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { rate: (count / elapsed(start)) * 1000, cpu: (cpuMs(s.pid) - cpu) / count };
}

/** Spawn to close of /bin/echo from this process. */
function rawSpawn(): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn("/bin/echo", ["hello"], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.resume();
    child.stderr.resume();
    child.on("error", reject);
    child.on("close", () => resolve(elapsed(start)));
  });
}

const median = (xs: number[]) => stats(xs).p50;

/** Calls each server gets before the whole window, calls one at a time measured, calls per throughput run. */
const WARMUP = 50;
const SEQUENTIAL = 200;
const COUNT = 400;
/** Calls each server gets, after the whole window, before the steady state's window (16 in flight, not counted). */
const STEADY_WARMUP = 500;

/** The children at once of the copy of the echo pack whose limit is raised to the most calls in flight measured. */
const WIDE = 64;

/** A copy of the echo pack, under `home`, whose policy.json allows WIDE children at once. */
function widePack(home: string): string {
  const dir = join(home, "echo-pack-wide");
  cpSync(join(REPO, "bench/fixtures/echo-pack"), dir, { recursive: true });
  const policy = JSON.parse(readFileSync(join(dir, "policy.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(dir, "policy.json"), JSON.stringify({ ...policy, limits: { concurrency: WIDE } }));
  return dir;
}

/** One window of calls one at a time: p50s (with a raw spawn's) and each server's CPU per call. */
interface Sequential {
  raw: number;
  hcp: { p50: number; cpu: number };
  min: { p50: number; cpu: number };
}

async function sequential(hcp: Server, min: Server, runs: number): Promise<Sequential> {
  const t: Record<"raw" | "hcp" | "min", number[]> = { raw: [], hcp: [], min: [] };
  const cpu = { hcp: cpuMs(hcp.pid), min: cpuMs(min.pid) };
  for (let i = 0; i < runs; i++) {
    t.raw.push(await rawSpawn());
    for (const [name, s] of [["hcp", hcp], ["min", min]] as const) {
      const start = process.hrtime.bigint();
      await call(s);
      t[name].push(elapsed(start));
    }
  }
  const perCall = (s: Server, before: number) => (cpuMs(s.pid) - before) / runs;
  return { raw: median(t.raw), hcp: { p50: median(t.hcp), cpu: perCall(hcp, cpu.hcp) }, min: { p50: median(t.min), cpu: perCall(min, cpu.min) } };
}

function reportSequential(window: string, runs: number, r: Sequential): void {
  const { raw, hcp: h, min: m } = r;
  report(`MCP tools/call one at a time, ${window}: p50 of ${runs} interleaved runs (server CPU per call from /proc)`, [
    ["raw spawn of /bin/echo (baseline)", ms(raw)],
    ["minimal SDK server", `${ms(m.p50)}  +${ms(m.p50 - raw)} over the raw spawn  CPU ${ms(m.cpu)} per call`],
    ["hcp serve --mcp", `${ms(h.p50)}  +${ms(h.p50 - raw)} over the raw spawn (aim: within 2 ms)  CPU ${ms(h.cpu)} per call, ${ratio(h.cpu, m.cpu)} the minimal server's (aim: ≤ 1x)`],
  ]);
}

/** The pause before each call of pausedCalls: an agent's calls come between its turns, seconds apart, not back to back. */
const PAUSE_MS = 300;

/**
 * tools/call after a pause, as an agent makes them, against the minimal server and a raw spawn after the same pause.
 * Where hcp runs each call in a cgroup of its own (Linux, a delegated or root cgroup), the step into it waits for the
 * kernel's RCU grace period (cgroup_threadgroup_rwsem, measured 7 to 15 ms here) unless another cgroup move happened
 * within about one: back-to-back calls (sequential) never see it, a call after a pause does.
 */
async function pausedCalls(hcp: Server, min: Server, runs: number): Promise<void> {
  const t: Record<"raw" | "hcp" | "min", number[]> = { raw: [], hcp: [], min: [] };
  const pause = () => new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  for (let i = 0; i < runs; i++) {
    await pause();
    t.raw.push(await rawSpawn());
    for (const [name, s] of [["hcp", hcp], ["min", min]] as const) {
      await pause();
      const start = process.hrtime.bigint();
      await call(s);
      t[name].push(elapsed(start));
    }
  }
  const [raw, h, m] = [median(t.raw), median(t.hcp), median(t.min)];
  report(`MCP tools/call after a ${PAUSE_MS} ms pause each (as an agent's calls come): p50 of ${runs} interleaved runs`, [
    ["raw spawn of /bin/echo after the same pause (baseline)", ms(raw)],
    ["minimal SDK server", `${ms(m)}  +${ms(m - raw)} over the raw spawn`],
    ["hcp serve --mcp", `${ms(h)}  +${ms(h - raw)} over the raw spawn (no aim: the run's cgroup step waits for the kernel after a pause)`],
  ]);
}

/**
 * Throughput against the minimal server, which has no limit: hcp as shipped (the pack's default of 8 children at
 * once, spec §6.4 `limits.concurrency`, so calls past 8 queue), and hcp with that limit raised to the calls in flight,
 * which compares the two servers' own cost like for like.
 */
/** Calls per second and CPU ms per call, medians of alternated runs, at one number of calls in flight. */
interface Rates {
  inFlight: number;
  hcp: { rate: number; cpu: number };
  wide: { rate: number; cpu: number };
  min: { rate: number; cpu: number };
}

async function throughput(hcp: Server, wide: Server, min: Server, count: number): Promise<Rates[]> {
  const out: Rates[] = [];
  for (const inFlight of [16, 64]) {
    const r = { hcp: [] as { rate: number; cpu: number }[], wide: [] as { rate: number; cpu: number }[], min: [] as { rate: number; cpu: number }[] };
    // Alternated, three times each, so that the machine's load hits all alike.
    for (let i = 0; i < 3; i++) {
      r.min.push(await load(min, count, inFlight));
      r.hcp.push(await load(hcp, count, inFlight));
      r.wide.push(await load(wide, count, inFlight));
    }
    const medians = (xs: { rate: number; cpu: number }[]) => ({ rate: median(xs.map((x) => x.rate)), cpu: median(xs.map((x) => x.cpu)) });
    out.push({ inFlight, hcp: medians(r.hcp), wide: medians(r.wide), min: medians(r.min) });
  }
  return out;
}

function reportThroughput(window: string, count: number, rates: Rates[]): void {
  const rows: [string, string][] = [];
  for (const { inFlight, hcp, wide, min } of rates) {
    const row = (x: { rate: number; cpu: number }) =>
      `${x.rate.toFixed(0)} calls/s (CPU ${ms(x.cpu)}/call, ${ratio(x.cpu, min.cpu)})  ${ratio(x.rate, min.rate)} (aim: ≥ 1x)`;
    rows.push(
      [`${inFlight} in flight, minimal SDK server`, `${min.rate.toFixed(0)} calls/s (CPU ${ms(min.cpu)}/call)`],
      [`${inFlight} in flight, hcp, 8 children at once (default)`, row(hcp)],
      [`${inFlight} in flight, hcp, ${WIDE} children at once`, row(wide)],
    );
  }
  report(`MCP throughput, ${window}: ${count} calls per run, median of 3 alternated runs`, rows);
}

/** hcp's CPU per call against the minimal server's, and the ratio. */
const cpuVs = (hcp: { cpu: number }, min: { cpu: number }) => `${ms(hcp.cpu)} vs ${ms(min.cpu)}, ${ratio(hcp.cpu, min.cpu)}`;
/** hcp's calls per second against the minimal server's, and the ratio. */
const rateVs = (hcp: { rate: number }, min: { rate: number }) => `${hcp.rate.toFixed(0)} vs ${min.rate.toFixed(0)} calls/s, ${ratio(hcp.rate, min.rate)}`;
/** A figure of the whole window and of the steady state, in two columns. */
const both = (whole: string, steady: string) => `${whole.padEnd(34)}${steady}`;

/**
 * The CPU and throughput rows of both windows side by side, each hcp figure with its ratio to the minimal
 * server's in the same window.
 */
function reportWindows(whole: { seq: Sequential; rates: Rates[] }, steady: { seq: Sequential; rates: Rates[] }): void {
  const rows: [string, string][] = [
    ["", both("whole window", "steady state")],
    ["CPU per call, one at a time (aim: ≤ 1x)", both(cpuVs(whole.seq.hcp, whole.seq.min), cpuVs(steady.seq.hcp, steady.seq.min))],
  ];
  whole.rates.forEach((w, i) => {
    const s = steady.rates[i]!;
    rows.push(
      [`CPU per call, ${w.inFlight} in flight (aim: ≤ 1x)`, both(cpuVs(w.hcp, w.min), cpuVs(s.hcp, s.min))],
      [`throughput, ${w.inFlight} in flight (aim: ≥ 1x)`, both(rateVs(w.hcp, w.min), rateVs(s.hcp, s.min))],
      [`throughput, ${w.inFlight} in flight, ${WIDE} children at once`, both(rateVs(w.wide, w.min), rateVs(s.wide, s.min))],
    );
  });
  report(
    `MCP server against the minimal SDK server, hcp first (hcp with its default of 8 children at once unless said). Whole window: fresh ` +
      `servers after ${WARMUP} warm-up calls each, V8 still compiling both; steady state: the same servers after the whole window and ` +
      `${STEADY_WARMUP} more warm-up calls each, none counted`,
    rows,
  );
}

/** What the heap probe (test/fixtures/heap-probe.cjs, preloaded) reports: spaces as they are, then after a full collection. */
interface HeapProbe {
  spaces: Record<string, number>;
  heapUsed: number;
}

const mb = (bytes: number | undefined) => (bytes === undefined ? "?" : (bytes / 1048576).toFixed(1));

/** Asks the server's heap probe (SIGUSR2) and waits for its answer in `out`. */
async function probeHeap(pid: number, out: string): Promise<HeapProbe> {
  rmSync(out, { force: true });
  process.kill(pid, "SIGUSR2");
  while (!existsSync(out)) await new Promise((resolve) => setTimeout(resolve, 10));
  return JSON.parse(readFileSync(out, "utf8")) as HeapProbe;
}

/**
 * RSS after 100, 1,000 and 10,000 calls (16 in flight), of hcp and of the minimal server; at each, after the RSS,
 * the young generation and the old space as they are, and the heap used after a full collection: growth that stops
 * is the heap's sizing, growth of what a full collection leaves is a leak.
 */
async function memory(servers: ServerCommand[], env: Record<string, string>, home: string): Promise<void> {
  const rows: [string, string][] = [];
  const out = join(home, "heap-probe.json");
  const probed = { ...env, NODE_OPTIONS: `--require ${join(REPO, "test/fixtures/heap-probe.cjs")}`, HEAP_PROBE_OUT: out };
  for (const { name, args, tool } of servers) {
    const s = await connect(args, tool, probed);
    try {
      const at: { rss: number; heap: HeapProbe }[] = [];
      for (const calls of [100, 900, 9_000]) {
        await load(s, calls, 16);
        const rss = rssKib(s.pid);
        at.push({ rss, heap: await probeHeap(s.pid, out) });
      }
      const [r100, r1k, r10k] = at.map((a) => a.rss) as [number, number, number];
      const each = (f: (a: { rss: number; heap: HeapProbe }) => string) => at.map(f).join(" / ");
      rows.push(
        [name, `RSS after 100 calls ${mib(r100)}, 1,000 ${mib(r1k)}, 10,000 ${mib(r10k)}: ${ratio(r10k, r100)} of after 100 (aim: within 1.2x), ${ratio(r10k, r1k)} of after 1,000`],
        ["", `young generation ${each((a) => mb(a.heap.spaces["new_space"]))} MiB, old space ${each((a) => mb(a.heap.spaces["old_space"]))} MiB (as they were)`],
        ["", `heap used after a full collection ${each((a) => mb(a.heap.heapUsed))} MiB`],
      );
    } finally {
      await s.client.close();
    }
  }
  report("Resident memory of the server (RSS from /proc, 16 calls in flight; the heap from a probe preloaded into it)", rows);
}

/** A client's pause between the server's start-up (initialize, tools/list) and its first tools/call. */
const FIRST_CALL_PAUSE_MS = 1000;

/**
 * The first tools/call of a session against the next five, for each server: a fresh server, initialize and tools/list
 * as the SDK's Client makes them, a pause as a client's before its first call, then six calls one at a time. The
 * servers alternate (hcp first, then the baseline); medians over the sessions.
 */
async function firstCalls(servers: ServerCommand[], env: Record<string, string>, sessions: number): Promise<void> {
  const times = servers.map(() => ({ first: [] as number[], next: [] as number[] }));
  for (let i = 0; i < sessions; i++) {
    for (const [k, server] of servers.entries()) {
      const s = await connect(server.args, server.tool, env);
      try {
        await s.client.listTools();
        await new Promise((resolve) => setTimeout(resolve, FIRST_CALL_PAUSE_MS));
        for (let n = 0; n < 6; n++) {
          const start = process.hrtime.bigint();
          await call(s);
          (n === 0 ? times[k]!.first : times[k]!.next).push(elapsed(start));
        }
      } finally {
        await s.client.close();
      }
    }
  }
  const [hcp, min] = times.map((t) => ({ first: stats(t.first).p50, next: stats(t.next).p50 }));
  report(`MCP first tools/call of a session, ${FIRST_CALL_PAUSE_MS} ms after tools/list, against the next five: medians of ${sessions} sessions, servers alternated`, [
    ["minimal SDK server (baseline)", `first ${ms(min!.first)}, next ${ms(min!.next)}`],
    ["hcp serve --mcp", `first ${ms(hcp!.first)} (${ratio(hcp!.first, min!.first)} the minimal server's), next ${ms(hcp!.next)} (${ratio(hcp!.next, min!.next)}) (aim: no start-up tax on the first call)`],
  ]);
}

export async function run(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), "hcp-bench-serve-"));
  const env = hcpEnv(home);
  // HCP_BENCH_BIN: another build's hcp.cjs (a copy of dist/bin inside the checkout), to pair runs of two builds.
  const hcpArgs = [process.env["HCP_BENCH_BIN"] ?? join(REPO, "dist/bin/hcp.cjs"), "serve", "--mcp", join(REPO, "bench/fixtures/echo-pack")];
  const minArgs = [join(REPO, "bench/fixtures/min-sdk-server.mjs")];
  const hcp = await connect(hcpArgs, "echo_say", env);
  const wide = await connect([...hcpArgs.slice(0, -1), widePack(home)], "echo_say", env);
  const min = await connect(minArgs, "say", env);
  try {
    // Warm them up (hcp compiles its validators, V8 optimises the hot paths of both).
    for (const s of [hcp, wide, min]) await load(s, WARMUP, 4);
    // The whole window: V8 still compiles the code a call runs, more of it in hcp than in the minimal server.
    const whole = { seq: await sequential(hcp, min, SEQUENTIAL), rates: await throughput(hcp, wide, min, COUNT) };
    reportSequential("whole window", SEQUENTIAL, whole.seq);
    reportThroughput("whole window", COUNT, whole.rates);
    // The steady state: the same windows again after an identical warm-up of each server, not counted.
    for (const s of [hcp, wide, min]) await load(s, STEADY_WARMUP, 16);
    const steady = { seq: await sequential(hcp, min, SEQUENTIAL), rates: await throughput(hcp, wide, min, COUNT) };
    reportSequential(`steady state (after ${STEADY_WARMUP} more warm-up calls each)`, SEQUENTIAL, steady.seq);
    reportThroughput(`steady state (after ${STEADY_WARMUP} more warm-up calls each)`, COUNT, steady.rates);
    reportWindows(whole, steady);
    await pausedCalls(hcp, min, 15);
  } finally {
    for (const s of [hcp, wide, min]) await s.client.close();
  }
  const fresh = [
    { name: "hcp serve --mcp", args: hcpArgs, tool: "echo_say" },
    { name: "minimal SDK server", args: minArgs, tool: "say" },
  ];
  try {
    await firstCalls(fresh, env, 8);
    await memory(fresh, env, home);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
