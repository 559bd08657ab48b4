// A plan as a person reads it (show.ts): values the agent made long are cut and counted, never taken for whole.

import assert from "node:assert/strict";
import { test } from "node:test";
import { planText } from "../../src/runtime/approval/show.js";
import type { Plan, RequestPlan } from "../../src/runtime/plan.js";

const policy = { policy: "write", confirm: "person", timeout_ms: 1000, max_output_bytes: 1024 } as const;
const program = (argv: string[], env: Record<string, string> = {}): Plan => ({ pack: "p", verb: "v", argv, policy, stdin: null, env, cwd: "/w", root: "/p", surface_sha256: null, policy_sha256: null });
const lineOf = (text: string, field: string) => text.split("\n").find((l) => l.startsWith(`  ${field}:`)) ?? "";

test("a short plan is shown whole, with no note", () => {
  const text = planText(program(["/bin/echo", "a b", "ü"], { MODE: "x" }));
  assert.equal(lineOf(text, "argv"), `  argv:    ["/bin/echo", "a b", "ü" ("\\u{00FC}")]`);
  assert.doesNotMatch(text, /not shown/);
});

test("each value shows its start, up to 500 characters as shown; the rest is counted outside its quotes", () => {
  const text = planText(program(["/bin/echo", "y".repeat(10_000), "--to", "bob"]));
  assert.equal(lineOf(text, "argv"), `  argv:    ["/bin/echo", "${"y".repeat(498)}"…(+9502 characters), "--to", "bob"]`);
  assert.equal(lineOf(text, "not shown"), "  not shown: 9502 characters of argv, too long to show here: approve only if you know what they are; hcp approve --list --json shows the whole plan");
});

test("escapes count in what is shown, a character is never cut in two, and characters are counted as characters", () => {
  // 499 invisible characters: each is shown as \u{200B}, so only a few fit.
  const invisible = planText(program(["\u200b".repeat(499)]));
  assert.match(lineOf(invisible, "argv"), /^ {2}argv: {4}\["(\\u\{200B\}){62}"…\(\+437 characters\)\]$/);
  // An emoji is two UTF-16 units: a cut between them would show half of one.
  const emoji = planText(program(["a" + "😀".repeat(600)]));
  const shown = lineOf(emoji, "argv");
  assert.doesNotMatch(shown, /\\ud83d|\\u\{D83D\}/i);
  const kept = [...(/\["([^"]*)"/u.exec(shown)?.[1] ?? "")].length;
  assert.equal(kept + Number(/\(\+(\d+) characters\)/.exec(shown)?.[1]), 601, shown);
});

test("a line shows at most 2,000 characters of values: the values past it are counted, not listed", () => {
  const many = Array.from({ length: 10_000 }, (_, i) => `file-${i}.txt`);
  const text = planText(program(["/bin/rm", ...many]));
  const argv = lineOf(text, "argv");
  assert.ok(argv.length < 2100, `${argv.length}`);
  const listed = argv.match(/"file-\d+\.txt"/g)?.length ?? 0;
  const rest = 10_000 - listed;
  const characters = many.slice(listed).reduce((n, f) => n + f.length, 0);
  assert.ok(argv.endsWith(`…(+${rest} more values: ${characters} characters)]`), argv.slice(-200));
  assert.equal(lineOf(text, "not shown"), `  not shown: ${characters} characters of argv, too long to show here: approve only if you know what they are; hcp approve --list --json shows the whole plan`);
});

test("environment values, a request's URL and body are cut the same way; a plan no person approves names no hcp approve", () => {
  const env = planText(program(["/bin/true"], { NOTE: "n".repeat(1000) }));
  assert.match(lineOf(env, "env"), /^ {2}env: {5}NOTE="n{493}"…\(\+507 characters\)$/);
  const request: RequestPlan = { pack: "p", verb: "v", method: "POST", url: `https://api.test/${"u".repeat(3000)}`, body: { text: "b".repeat(5000) }, policy: { ...policy, confirm: "plan" } };
  const text = planText(request);
  assert.match(lineOf(text, "request"), /^ {2}request: POST https:\/\/api\.test\/u+…\(\+\d+ characters\)$/);
  assert.match(lineOf(text, "body"), /^ {2}body: {4}\{"text":"b+…\(\+\d+ characters\)$/);
  assert.match(lineOf(text, "not shown"), /^ {2}not shown: \d+ characters of URL, body, too long to show here: approve only if you know what they are$/);
});
