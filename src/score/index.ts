// The score package: Go rungrad's conformance runner and scorer (ruleset, runner, discovery, probes, scoring, report).
export { DEFAULT_RULESET } from "./ruleset.js";
export { type Target } from "./target.js";
export { Runner, ScoreCancelledError, type Invocation } from "./runner.js";
export { classifyManifest, discoverManifest } from "./discovery.js";
export { PROBES } from "./probes.js";
export { score, failures, requiredFailures, type Score } from "./scorer.js";
export { autoProbes, type AutoFixtures } from "./auto.js";
export { renderReport, formatPercent } from "./report.js";
