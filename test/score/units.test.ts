// Pure parts of the scorer: the embedded ruleset, %.0f rounding, the text report, manifest classification, fixture matching.

import { test } from "node:test";
import assert from "node:assert/strict";
import { loadExample } from "../agentmeta/fixtures.js";
import { parseManifest, validateManifest } from "../../src/manifest/index.js";
import { commandFor } from "../../src/score/fixture.js";
import {
  DEFAULT_RULESET,
  PROBES,
  classifyManifest,
  formatPercent,
  renderReport,
  requiredFailures,
  type Invocation,
  type Score,
} from "../../src/score/index.js";
import { EXAMPLES } from "./support.js";

const REFERENCE = loadExample<{ expect_manifest_stable_json: string }>("rgref_reference.json");
const summary = (i: Invocation) => classifyManifest(i).summary;
const inv = (o: Partial<Invocation>): Invocation => ({ stdout: "", stderr: "", exit: 0, err: "", timedOut: false, ...o });

test("the embedded ruleset is rungrad-spec/1's 22 rules, each with a probe", () => {
  assert.equal(DEFAULT_RULESET.version, "rungrad-spec/1");
  assert.equal(DEFAULT_RULESET.rules.length, 22);
  const names = [...new Set(DEFAULT_RULESET.rules.map((r) => r.probe))].sort();
  assert.deepEqual(names, (EXAMPLES as unknown as { probe_names_sorted: string[] }).probe_names_sorted);
  assert.deepEqual(Object.keys(PROBES).sort(), names);
  assert.equal(DEFAULT_RULESET.rules.filter((r) => r.severity === "required").length, 13);
});

test("formatPercent is Go's %.0f: exact binary ties go to even", () => {
  const cases: Array<[number, string]> = [
    [62.5, "62"],
    [87.5, "88"],
    [12.5, "12"],
    [0.5, "0"],
    [1.5, "2"],
    [2.5, "2"],
    [100, "100"],
    [0, "0"],
    [(1 / 3) * 100, "33"],
    [(2 / 3) * 100, "67"],
    [62.5 + 2 ** -47, "63"], // the next double up is no tie
    [87.5 - 2 ** -46, "87"], // nor is the next one down
    [63.5, "64"],
    [64.5, "64"],
    [(5 / 8) * 100, "62"],
    [(7 / 8) * 100, "88"],
  ];
  for (const [x, want] of cases) assert.equal(formatPercent(x), want, String(x));
});

test("the report pads ids to 28 columns (one space after longer ones) and marks empty sections n/a", () => {
  const s: Score = {
    spec_version: "rungrad-spec/1",
    overall: 0.875,
    passed: 2,
    applicable: 3,
    total: 4,
    manifest: {
      status: "present",
      schema_version: "rungrad-manifest/1",
      tool_name: "t",
      tool_version: "",
      command_count: 2,
      reason: "",
      used_rule_count: 1,
      used_rules: ["a.b"],
    },
    sections: [
      { section: "one", passed: 2, applicable: 3, score: 0.875 },
      { section: "two", passed: 0, applicable: 0, score: 1 },
    ],
    rules: [
      { id: "a.b", section: "one", severity: "required", result: "pass", reason: "ok" },
      { id: "a.this-id-is-longer-than-28-cols", section: "one", severity: "required", result: "fail", reason: "no" },
      { id: "exactly.twenty-eight-columns", section: "one", severity: "recommended", result: "pass", reason: "yes" },
      { id: "c", section: "two", severity: "recommended", result: "not_applicable", reason: "none" },
    ],
  };
  assert.equal(
    renderReport(s),
    [
      "Conformance against rungrad-spec/1",
      "Overall: 88% weighted (2/3 applicable rules passed, 4 total rules)",
      "Manifest: present (rungrad-manifest/1, t, 2 commands)",
      "Manifest-backed: 1 rules used manifest data",
      "",
      "one: 88% weighted (2/3 applicable rules passed)",
      "two: n/a (0 applicable)",
      "",
      "  [PASS] a.b                          ok",
      "  [FAIL] a.this-id-is-longer-than-28-cols no",
      "  [PASS] exactly.twenty-eight-columns yes",
      "  [n/a ] c                            none",
      "",
    ].join("\n"),
  );
  assert.deepEqual(requiredFailures(s), ["a.this-id-is-longer-than-28-cols"]);
  const missing = renderReport({ ...s, manifest: { ...s.manifest, status: "invalid", reason: "manifest endpoint timed out" } });
  assert.match(missing, /^Manifest: invalid \(manifest endpoint timed out\)\n\n/m);
});

test("classifyManifest follows the discovery order and texts", () => {
  const valid = REFERENCE.expect_manifest_stable_json;
  assert.deepEqual(
    [summary(inv({ timedOut: true, exit: -1, err: "target timed out" })).reason, summary(inv({ timedOut: true, exit: -1 })).status],
    ["manifest endpoint timed out", "invalid"],
  );
  assert.equal(summary(inv({ exit: -1 })).reason, "target exited without an exit code");
  assert.equal(summary(inv({ exit: -1, err: " cannot start \n" })).reason, "cannot start");
  assert.deepEqual(summary(inv({ exit: 2, stdout: "  \n" })), {
    status: "missing",
    schema_version: "",
    tool_name: "",
    tool_version: "",
    command_count: 0,
    reason: "manifest endpoint not found: exit 2 with no manifest JSON on stdout",
    used_rule_count: 0,
    used_rules: [],
  });
  const shaped = summary(inv({ exit: 3, stdout: valid }));
  assert.deepEqual([shaped.status, shaped.reason, shaped.tool_name, shaped.command_count], [
    "invalid",
    "manifest endpoint returned manifest-shaped output but exited 3",
    "rgref",
    8,
  ]);
  assert.equal(summary(inv({ exit: 3, stdout: "{oops" })).tool_name, "");
  assert.equal(summary(inv({ stdout: "" })).reason, "manifest JSON did not parse: unexpected end of JSON input");
  const v2 = summary(inv({ stdout: valid.replace("rungrad-manifest/1", "rungrad-manifest/2") }));
  assert.deepEqual([v2.status, v2.reason, v2.schema_version], ["unsupported", 'unsupported manifest schema version "rungrad-manifest/2"', "rungrad-manifest/2"]);
  const noCommands = summary(inv({ stdout: JSON.stringify({ ...JSON.parse(valid), commands: [] }) }));
  assert.deepEqual([noCommands.status, noCommands.reason, noCommands.tool_version], ["invalid", "manifest has no commands", "v0.3.2"]);
  const present = classifyManifest(inv({ stdout: valid }));
  assert.equal(present.summary.status, "present");
  assert.equal(present.summary.reason, "");
  assert.ok(present.manifest);
});

test("a fixture maps to the manifest command with the longest matching path; the root never matches", () => {
  const m = parseManifest(REFERENCE.expect_manifest_stable_json);
  validateManifest(m);
  assert.deepEqual(commandFor(m, ["item", "get", "dup", "--x"])?.path, ["item", "get"]);
  assert.deepEqual(commandFor(m, ["item"])?.path, ["item"]);
  assert.deepEqual(commandFor(m, ["item", "nope"])?.path, ["item"]);
  assert.equal(commandFor(m, ["nope"]), null);
  assert.equal(commandFor(m, []), null);
});
