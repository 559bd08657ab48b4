// Pairs MCP servers under the same load, for measuring one change (not part of `npm run bench`):
//   node dist/bench/serve-pair.js MODE SERVER...
// MODE is `seq` (one call at a time) or a number of calls in flight; each SERVER is an hcp.cjs (another build's
// dist/bin copied inside the checkout, serving bench/fixtures/echo-pack) or `min` (bench/fixtures/min-sdk-server.mjs).
// WARM warm-up calls (100; a few thousand measure the steady state, once V8 has compiled what a call runs), then
// ROUNDS rounds (6) of COUNT calls (800) per server, the servers alternated and their order reversed every other
// round; medians of calls per second, p50, and CPU per call (each thread's time on a CPU, from schedstat), with the
// main thread's apart from V8's and libuv's threads, and the load average.

import { readFileSync, readdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { elapsed, hcpEnv, REPO, stats } from "./lib.js";

interface Server {
  name: string;
  client: Client;
  pid: number;
  tool: string;
}

/** CPU ms on a CPU so far: the main thread's and all the others'. */
function cpu(pid: number): { main: number; rest: number } {
  let main = 0;
  let rest = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    let ms = 0;
    try {
      ms = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "latin1").split(" ")[0]) / 1e6;
    } catch {
      // the thread ended meanwhile
    }
    if (Number(task) === pid) main += ms;
    else rest += ms;
  }
  return { main, rest };
}

async function connect(name: string, env: Record<string, string>): Promise<Server> {
  const min = name === "min";
  const args = min ? [join(REPO, "bench/fixtures/min-sdk-server.mjs")] : [name, "serve", "--mcp", join(REPO, "bench/fixtures/echo-pack")];
  const transport = new StdioClientTransport({ command: process.execPath, args, env, stderr: "inherit" });
  const client = new Client({ name: "pair", version: "1" });
  await client.connect(transport);
  return { name, client, pid: transport.pid!, tool: min ? "say" : "echo_say" };
}

interface Round {
  rate: number;
  p50: number;
  main: number;
  rest: number;
}

async function round(s: Server, count: number, inFlight: number): Promise<Round> {
  let next = 0;
  const latencies: number[] = [];
  const worker = async () => {
    while (next < count) {
      next++;
      const start = process.hrtime.bigint();
      const r = await s.client.callTool({ name: s.tool, arguments: {} });
      if (r.isError) throw new Error(`${s.name}: ${JSON.stringify(r.content)}`);
      latencies.push(elapsed(start));
    }
  };
  const before = cpu(s.pid);
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const took = elapsed(start);
  const after = cpu(s.pid);
  return { rate: (count / took) * 1000, p50: stats(latencies).p50, main: (after.main - before.main) / count, rest: (after.rest - before.rest) / count };
}

const [mode, ...names] = process.argv.slice(2);
if (mode === undefined || names.length === 0) throw new Error("usage: serve-pair.js seq|IN_FLIGHT SERVER...");
const inFlight = mode === "seq" ? 1 : Number(mode);
const count = Number(process.env["COUNT"] ?? 800);
const rounds = Number(process.env["ROUNDS"] ?? 6);
const home = mkdtempSync(join(tmpdir(), "hcp-bench-pair-"));
const servers: Server[] = [];
try {
  for (const name of names) servers.push(await connect(name, hcpEnv(home)));
  const warm = Number(process.env["WARM"] ?? 100);
  for (const s of servers) await round(s, warm, Math.min(inFlight, 16));
  const results = new Map<string, Round[]>(servers.map((s) => [s.name, []]));
  for (let i = 0; i < rounds; i++) {
    for (const s of i % 2 === 0 ? servers : servers.toReversed()) results.get(s.name)!.push(await round(s, count, inFlight));
  }
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  for (const [name, rs] of results) {
    const median = (pick: (r: Round) => number) => stats(rs.map(pick)).p50;
    const line = [
      `${median((r) => r.rate).toFixed(0)} calls/s`,
      `p50 ${median((r) => r.p50).toFixed(2)} ms`,
      `CPU ${median((r) => r.main + r.rest).toFixed(3)} ms per call (main thread ${median((r) => r.main).toFixed(3)}, others ${median((r) => r.rest).toFixed(3)})`,
    ];
    console.log(`${mode} ${name}: ${line.join(", ")}; load ${load}`);
  }
} finally {
  for (const s of servers) await s.client.close();
  rmSync(home, { recursive: true, force: true });
}
