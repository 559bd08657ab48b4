// Shared test helpers for pack tests: fixture reading and issue lookup.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Issue } from "../../src/pack/index.js";

/** Absolute path of a file under test/fixtures (tests run from dist/test/pack). */
export function fixture(rel: string): string {
  return fileURLToPath(new URL(`../../../test/fixtures/${rel}`, import.meta.url));
}

export function readFixtureJson(rel: string): unknown {
  return JSON.parse(readFileSync(fixture(rel), "utf8"));
}

/** The ledger example surface (§3.8), a fresh copy each call. */
export function ledger(): Record<string, unknown> {
  return readFixtureJson("examples/hcp/ledger/surface.json") as Record<string, unknown>;
}

export function errors(issues: readonly Issue[]): Issue[] {
  return issues.filter((i) => i.severity === "error");
}

/** [code, path] of every issue, for compact deep-equal assertions. */
export function codes(issues: readonly Issue[], severity?: Issue["severity"]): [string, string][] {
  return issues.filter((i) => severity === undefined || i.severity === severity).map((i) => [i.code, i.path]);
}
