// Shared by the score tests: the example cases, their targets, and `rungrad score` argv built from a case.

import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadExample } from "../agentmeta/fixtures.js";
import { fixture } from "../e2e/helpers.js";
import { tempDir } from "../temp.js";

export const EXAMPLES = loadExample<{ cases: ScoreCase[] }>("conformance_score.json");
export const TARGETS = fixture("examples/rungrad/targets");

export interface ScoreCase {
  name: string;
  target_fixture: string;
  target: Record<string, string[] | string | boolean>;
  strict: boolean;
  expect_score_json?: string;
  expect_report?: string;
  expect_strict_error?: string;
  expect_error?: string;
  expect_exit: number;
}

/** Target field → `rungrad score` flag (string fields are argv lists joined by spaces). */
const FLAG_OF: Record<string, string> = {
  Read: "--read",
  Mutate: "--mutate",
  Auth: "--auth",
  Ambiguous: "--ambiguous",
  NotFound: "--not-found",
  APIError: "--api-error",
  Forbidden: "--forbidden",
  RateLimited: "--rate-limited",
  Destructive: "--destructive",
  Secret: "--secret",
  SecretEnv: "--secret-env",
  ManifestMode: "--manifest",
  HasUpdate: "--update",
};

/** `score <target> <flags…>` for a case. */
export function scoreArgs(c: ScoreCase): string[] {
  const args = ["score", join(TARGETS, c.target_fixture)];
  for (const [field, value] of Object.entries(c.target)) {
    const flag = FLAG_OF[field];
    if (!flag) throw new Error(`unknown target field ${field}`);
    if (typeof value === "boolean") {
      if (value) args.push(flag);
    } else {
      args.push(flag, Array.isArray(value) ? value.join(" ") : value);
    }
  }
  if (c.strict) args.push("--strict");
  return args;
}

/** Writes an executable `#!/bin/sh` script into a fresh temp dir and returns its path. */
export function shellTarget(name: string, body: string): string {
  const path = join(tempDir("score-target-"), name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}
