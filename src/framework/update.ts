// The standard `update` command: --check (and --dry-run) report without changing anything.

import type { CommandSpec } from "./command.js";
import { ExitCode, RungradError } from "./errors.js";

export interface Release {
  version: string;
}

export interface UpdateResult {
  current: string;
  latest: string;
  available: boolean;
  status: "up_to_date" | "update_available" | "development_build" | "newer_than_latest" | "unknown_latest";
}

export interface UpdateConfig {
  currentVersion: string;
  /** Resolves the latest release; absent → `no release fetcher configured`. */
  fetchLatest?: () => Release | Promise<Release>;
  /** Installs a release; absent → the manual-download error. */
  apply?: (latest: Release) => void | Promise<void>;
  toolName?: string;
}

function parseVersion(v: string): [number, number, number] | null {
  let s = v.trim().replace(/^v/, "");
  if (s === "" || s.startsWith("dev")) return null;
  s = s.split(/[-+]/)[0]!;
  const parts = s.split(".");
  if (parts.length > 3 || parts.some((p) => !/^[+-]?\d+$/.test(p))) return null;
  const n = parts.map(Number);
  return [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0];
}

/** Compares the running version with the latest release. */
export function evaluateUpdate(current: string, latest: Release): UpdateResult {
  const res: UpdateResult = { current, latest: latest.version, available: false, status: "up_to_date" };
  const cur = parseVersion(current);
  const lat = parseVersion(latest.version);
  if (!cur) res.status = "development_build";
  else if (!lat) res.status = "unknown_latest";
  else {
    const d = cur[0] - lat[0] || cur[1] - lat[1] || cur[2] - lat[2];
    if (d < 0) {
      res.status = "update_available";
      res.available = true;
    } else if (d > 0) res.status = "newer_than_latest";
  }
  return res;
}

/** The `update` command spec (Mutates; local --check). */
export function updateCommand(cfg: UpdateConfig): CommandSpec {
  const tool = cfg.toolName || "mytool";
  return {
    use: "update",
    short: "Check for and install the latest version",
    examples: [`${tool} update --check`, `${tool} update --check --json`, `${tool} update`],
    outputModes: ["human", "json"],
    mutates: true,
    flags: [{ name: "check", usage: "Check for an update without installing it", type: "bool" }],
    run: async (ctx) => {
      if (!cfg.fetchLatest) throw new RungradError(ExitCode.API, "no release fetcher configured");
      let latest: Release;
      try {
        latest = await cfg.fetchLatest();
      } catch (err) {
        throw new RungradError(ExitCode.API, "fetch latest release: " + (err as Error).message);
      }
      const result = evaluateUpdate(cfg.currentVersion, latest);
      if (ctx.bool("check") || ctx.dryRun || !result.available) {
        await ctx.writeResult(result, () => `current ${result.current}, latest ${result.latest}: ${result.status}\n`);
        return;
      }
      if (!cfg.apply) throw new RungradError(ExitCode.API, "automatic install is unavailable; download the latest release manually");
      try {
        await cfg.apply(latest);
      } catch (err) {
        throw new RungradError(ExitCode.API, "install update: " + (err as Error).message);
      }
      const installed: UpdateResult = { ...result, current: result.latest, available: false, status: "up_to_date" };
      await ctx.writeResult(installed, () => `updated to ${installed.latest}\n`);
    },
  };
}
