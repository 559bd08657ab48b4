// The score package: Go rungrad's conformance runner and scorer (ruleset, runner, discovery, probes, scoring, report).
export { DEFAULT_RULESET, SPEC_VERSION, type Rule, type Ruleset, type Severity } from "./ruleset.js";
export { TargetError, normalizeManifestMode, resolveTargetPath, type ManifestMode, type Target } from "./target.js";
export { Runner, DEFAULT_TIMEOUT_MS, type Invocation, type ExecOptions } from "./runner.js";
export { classifyManifest, discoverManifest } from "./discovery.js";
export { type ManifestStatus, type ManifestSummary } from "./summary.js";
export { PROBES, SECRET_SENTINEL, type Probe } from "./probes.js";
export { type ProbeResult, type ResultKind } from "./result.js";
export { score, requiredFailures, type Score, type SectionScore, type RuleScore } from "./scorer.js";
export { renderReport, formatPercent } from "./report.js";
