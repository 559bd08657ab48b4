// Shared test helpers for pack tests: fixture reading and issue lookup.

import { readFileSync } from "node:fs";
import type { Issue } from "../../src/pack/index.js";
import { fixture } from "../e2e/helpers.js";

export { fixture };

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
