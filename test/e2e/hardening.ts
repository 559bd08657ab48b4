// Shared by the hcp-hardening-* tests: an isolated environment for every spawned hcp, and throwaway packs.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixture } from "./helpers.js";
import { tempDir } from "../transports/support.js";

/** test/fixtures/bin/probe.mjs: the wrapped program the packs run. */
export const PROBE = fixture("bin/probe.mjs");

/** process.env with HOME, XDG dirs, the credential file and the audit log all in a fresh temp folder. */
export function isolatedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const home = tempDir("hcp-home-");
  return {
    ...process.env,
    HOME: home,
    XDG_STATE_HOME: join(home, "state"),
    XDG_CONFIG_HOME: join(home, "config"),
    HCP_CREDENTIALS: join(home, "credentials.json"),
    HCP_AUDIT: join(home, "audit.log"),
    ...extra,
  };
}

/** Writes a wrap pack running the probe (surface.json, HARNESS.md, policy.json when given); returns its root. */
export function probePack(id: string, verbs: Record<string, object>, extra: Record<string, unknown> = {}, policy?: Record<string, unknown>): string {
  const root = tempDir("hcp-pack-");
  if (policy !== undefined) writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: id, ...policy }, null, 2));
  writeFileSync(join(root, "surface.json"), JSON.stringify({ id, kind: "wrap", cliBin: "probe", wrap: { bin: PROBE }, verbs, ...extra }, null, 2));
  writeFileSync(join(root, "HARNESS.md"), `---\nname: ${id}\ndescription: Test pack.\n---\n\nTest pack.\n`);
  return root;
}

/** A file the probe's `pid:PATH` step writes only if the program really ran. */
export function witness(): { path: string; ran: () => boolean } {
  const path = join(tempDir("hcp-witness-"), "ran");
  return { path, ran: () => existsSync(path) };
}

/**
 * A new pack folder `name` holding `tool.sh`, a program that appends its arguments to a log outside the folder, one
 * run a line: `runs()` lists what really ran.
 */
export function recordingPackFolder(name: string): { dir: string; runs: () => string[] } {
  const dir = join(tempDir(), name);
  mkdirSync(dir);
  const log = join(dir, "..", "ran.log");
  writeFileSync(log, "");
  writeFileSync(join(dir, "tool.sh"), `#!/bin/sh\necho "$*" >> '${log}'\n`);
  chmodSync(join(dir, "tool.sh"), 0o755);
  return { dir, runs: () => readFileSync(log, "utf8").split("\n").filter((l) => l !== "") };
}
