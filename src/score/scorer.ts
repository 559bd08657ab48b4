// Scoring: run every rule's probe in order and weigh the results (required 2, recommended 1) per section and overall.

import { compareBytes } from "../json/stable.js";
import { PROBES } from "./probes.js";
import { na, type ProbeResult, type ResultKind } from "./result.js";
import type { Ruleset } from "./ruleset.js";
import type { Runner } from "./runner.js";
import { REASON_DISCOVERY_NOT_RUN, summaryOf, type ManifestSummary } from "./summary.js";

export interface RuleScore {
  id: string;
  section: string;
  severity: string;
  result: ResultKind;
  reason: string;
}

export interface SectionScore {
  section: string;
  passed: number;
  applicable: number;
  score: number;
}

/** A full conformance result, in wire field order. */
export interface Score {
  spec_version: string;
  overall: number;
  passed: number;
  applicable: number;
  total: number;
  manifest: ManifestSummary;
  sections: SectionScore[];
  rules: RuleScore[];
}

const weightOf = (severity: string): number => (severity === "required" ? 2 : 1);

/** A weighted tally: counts and weights of passed and applicable rules. */
class Tally {
  passed = 0;
  applicable = 0;
  wPass = 0;
  wApplicable = 0;
  add(result: ResultKind, weight: number): void {
    if (result === "not_applicable") return;
    this.applicable++;
    this.wApplicable += weight;
    if (result === "pass") {
      this.passed++;
      this.wPass += weight;
    }
  }
  /** Σw(pass)/Σw(applicable); 1 when nothing is applicable. */
  get ratio(): number {
    return this.wApplicable > 0 ? this.wPass / this.wApplicable : 1;
  }
}

/** Called before each rule's probe runs: its 0-based position, the rule count and its id. */
export type OnRule = (index: number, total: number, id: string) => void;

/** Runs the ruleset's probes against the runner's target, in ruleset order; never runs discovery itself. */
export async function score(runner: Runner, ruleset: Ruleset, onRule?: OnRule): Promise<Score> {
  const overall = new Tally();
  const sections = new Map<string, Tally>();
  const rules: RuleScore[] = [];
  const usedRules: string[] = [];
  for (const [index, rule] of ruleset.rules.entries()) {
    onRule?.(index, ruleset.rules.length, rule.id);
    // Probes mark manifest use as they go: start each rule clean.
    runner.consulted = false;
    const probe = Object.hasOwn(PROBES, rule.probe) ? PROBES[rule.probe] : undefined;
    const pr: ProbeResult = probe ? await probe(runner) : na(`no probe implementation: ${rule.probe}`);
    if (runner.consulted) usedRules.push(rule.id);
    rules.push({ id: rule.id, section: rule.section, severity: rule.severity, result: pr.result, reason: pr.reason });
    let section = sections.get(rule.section);
    if (!section) sections.set(rule.section, (section = new Tally()));
    const w = weightOf(rule.severity);
    section.add(pr.result, w);
    overall.add(pr.result, w);
  }
  usedRules.sort(compareBytes);
  const manifest = runner.summary ?? summaryOf("disabled", REASON_DISCOVERY_NOT_RUN);
  return {
    spec_version: ruleset.version,
    overall: overall.ratio,
    passed: overall.passed,
    applicable: overall.applicable,
    total: ruleset.rules.length,
    manifest: { ...manifest, used_rule_count: usedRules.length, used_rules: usedRules },
    sections: [...sections].map(([name, t]) => ({ section: name, passed: t.passed, applicable: t.applicable, score: t.ratio })),
    rules,
  };
}

/** Ids of the required rules that failed, sorted. */
export function requiredFailures(s: Score): string[] {
  return failures(s, "required");
}

/** Ids of the failed rules at `level` or above (recommended includes required), sorted. */
export function failures(s: Score, level: "required" | "recommended"): string[] {
  return s.rules
    .filter((r) => (level === "recommended" || r.severity === "required") && r.result === "fail")
    .map((r) => r.id)
    .sort(compareBytes);
}
