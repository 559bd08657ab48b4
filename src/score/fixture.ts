// Manifest-backed probing: map a fixture argv to its manifest command, and the manifest facts the probes check.

import { goQuote } from "../json/goquote.js";
import type { ValidCommand as Command, ValidManifest } from "../manifest/types.js";
import { fail, type ProbeResult } from "./result.js";
import type { Runner } from "./runner.js";

/** The present manifest, marking the current rule as manifest-backed; null when none is present. */
function activeManifest(r: Runner): ValidManifest | null {
  if (r.summary?.status !== "present" || r.manifest === null) return null;
  r.consulted = true;
  return r.manifest;
}

/** The command with the longest non-empty path that prefixes the fixture (the root never matches). */
export function commandFor(m: ValidManifest, fixture: readonly string[]): Command | null {
  let best: Command | null = null;
  for (const c of m.commands) {
    const path = c.path;
    if (path.length === 0 || path.length > fixture.length) continue;
    if (!path.every((seg, i) => seg === fixture[i])) continue;
    if (best === null || path.length > best.path.length) best = c;
  }
  return best;
}

/**
 * Resolves a fixture against the present manifest: `entry` is null when no manifest is present
 * (black-box probing); `stop` is a failure when the manifest lists no matching command.
 */
export function fixtureEntry(r: Runner, fixture: readonly string[]): { entry: Command | null; stop?: ProbeResult } {
  const m = activeManifest(r);
  if (m === null) return { entry: null };
  const entry = commandFor(m, fixture);
  if (entry === null) return { entry: null, stop: fail(`manifest lists no command matching configured fixture ${goQuote(fixture.join(" "))}`) };
  return { entry };
}

export function hasOutputMode(c: Command, mode: string): boolean {
  return c.output_modes.includes(mode);
}

/** Any output mode other than json. */
export function hasHumanOutputMode(c: Command): boolean {
  return c.output_modes.some((m) => m !== "json");
}

/** Whether the present manifest's global_flags lists `name`; null when no manifest is present. */
export function manifestHasGlobalFlag(r: Runner, name: string): boolean | null {
  const m = activeManifest(r);
  if (m === null) return null;
  return m.global_flags.some((f) => f.name === name);
}
