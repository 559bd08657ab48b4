// Timing helpers for the benchmarks: medians and percentiles of repeated runs, and child start-up times.

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (these files run from dist/bench). */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** Milliseconds since `start`, a process.hrtime.bigint() reading. */
export const elapsed = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;

export interface Stats {
  p50: number;
  p95: number;
  runs: number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p95: at(0.95), runs: sorted.length };
}

/** Milliseconds per call of fn, over `runs` calls after `warmup` unmeasured ones. */
export function timeSync(fn: () => void, runs: number, warmup = 3): Stats {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(elapsed(start));
  }
  return stats(samples);
}

/** Wall-clock milliseconds from spawn to exit of a command, interleaving the commands so noise hits all alike. */
export function timeCommands(commands: Record<string, string[]>, runs: number): Record<string, Stats> {
  const samples: Record<string, number[]> = {};
  for (const name of Object.keys(commands)) samples[name] = [];
  for (let i = 0; i < runs + 2; i++) {
    for (const [name, [file, ...args]] of Object.entries(commands)) {
      const start = process.hrtime.bigint();
      const result = spawnSync(file!, args, { stdio: ["ignore", "ignore", "pipe"] });
      const ms = elapsed(start);
      if (result.status !== 0) throw new Error(`${name}: exit ${result.status}: ${result.stderr.toString()}`);
      if (i >= 2) samples[name]!.push(ms);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, stats(s)]));
}

/** Median wall-clock ms and median peak RSS (KiB) of each command, run interleaved with bench/fixtures/maxrss.cjs preloaded. */
export function timeAndMemory(commands: Record<string, string[]>, runs: number): Record<string, { ms: number; kib: number }> {
  const preload = `${REPO}bench/fixtures/maxrss.cjs`;
  const samples: Record<string, { ms: number[]; kib: number[] }> = {};
  for (const name of Object.keys(commands)) samples[name] = { ms: [], kib: [] };
  for (let i = 0; i < runs; i++) {
    for (const [name, args] of Object.entries(commands)) {
      const start = process.hrtime.bigint();
      const result = spawnSync(process.execPath, ["--require", preload, ...args], { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 26 });
      const took = elapsed(start);
      const stderr = result.stderr.toString();
      const rss = /BENCH_MAXRSS (\d+)\n$/.exec(stderr);
      if (result.status !== 0 || rss === null) throw new Error(`${name}: exit ${result.status}: ${stderr.slice(0, 500)}`);
      samples[name]!.ms.push(took);
      samples[name]!.kib.push(Number(rss[1]));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, { ms: stats(s.ms).p50, kib: stats(s.kib).p50 }]));
}

export const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;

export function report(title: string, rows: [label: string, value: string][]): void {
  console.log(`\n${title}`);
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) console.log(`  ${label.padEnd(width)}  ${value}`);
}

export const ms = (n: number) => `${n.toFixed(2)} ms`;
export const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

/** The environment of a benchmarked hcp: its state, config, credentials and audit log under `home`, never the user's. */
export function hcpEnv(home: string): Record<string, string> {
  const env = { ...process.env, HOME: home, XDG_STATE_HOME: join(home, "state"), XDG_CONFIG_HOME: join(home, "config") };
  return { ...(env as Record<string, string>), HCP_CREDENTIALS: join(home, "credentials"), HCP_AUDIT: join(home, "audit") };
}
