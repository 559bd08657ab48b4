// The human text report of a Score (Go's Report, byte for byte, including %.0f's half-to-even rounding).

import type { Score } from "./scorer.js";

/**
 * Go's %.0f of a float64: the exact binary value rounded to the nearest integer, ties to even
 * (62.5 → 62, 87.5 → 88). x - floor(x) is exact for doubles, so the tie test is exact too.
 */
export function formatPercent(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "+Inf" : x < 0 ? "-Inf" : "NaN";
  const f = Math.floor(x);
  const frac = x - f;
  const n = frac > 0.5 || (frac === 0.5 && f % 2 !== 0) ? f + 1 : f;
  return n === 0 && (x < 0 || Object.is(x, -0)) ? "-0" : String(n);
}

const MARKS = { pass: "PASS", fail: "FAIL", not_applicable: "n/a " } as const;

/** Renders the report: header, manifest lines, per-section scores, then one line per rule. */
export function renderReport(s: Score): string {
  const lines: string[] = [
    `Conformance against ${s.spec_version}`,
    `Overall: ${formatPercent(s.overall * 100)}% weighted (${s.passed}/${s.applicable} applicable rules passed, ${s.total} total rules)`,
  ];
  const m = s.manifest;
  if (m.status === "present") {
    const tool = m.tool_version !== "" ? `${m.tool_name} ${m.tool_version}` : m.tool_name;
    lines.push(`Manifest: present (${m.schema_version}, ${tool}, ${m.command_count} commands)`);
    lines.push(`Manifest-backed: ${m.used_rule_count} rules used manifest data`);
  } else {
    lines.push(`Manifest: ${m.status} (${m.reason})`);
  }
  lines.push("");
  for (const sec of s.sections) {
    lines.push(
      sec.applicable === 0
        ? `${sec.section}: n/a (0 applicable)`
        : `${sec.section}: ${formatPercent(sec.score * 100)}% weighted (${sec.passed}/${sec.applicable} applicable rules passed)`,
    );
  }
  lines.push("");
  for (const r of s.rules) lines.push(`  [${MARKS[r.result]}] ${padRunes(r.id, 28)} ${r.reason}`);
  return lines.join("\n") + "\n";
}

/** fmt's %-Ns: pads with spaces to N runes; longer strings are left whole. */
function padRunes(s: string, width: number): string {
  const runes = Array.from(s).length;
  return runes >= width ? s : s + " ".repeat(width - runes);
}
