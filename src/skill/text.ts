// Text guards for the agent files: code spans for command templates, one-line plain text for opt-in summaries, file normalisation.

import { goQuote } from "../json/goquote.js";
import { SkillRenderError } from "./errors.js";

/**
 * One template token: visible letters, marks, numbers, punctuation and symbols.
 * Backticks would close the code span and backslashes interfere with the table's
 * pipe escaping, so both are excluded; so are controls, format characters
 * (bidi overrides, zero-width), separators, private-use and unassigned code points.
 */
const VISIBLE = /^(?:(?![`\\])[\p{L}\p{M}\p{N}\p{P}\p{S}])+$/u;

/**
 * A Markdown code span for command text that goes into a table cell: tokens of
 * visible characters separated by single spaces. `|` is escaped for GFM tables;
 * anything else that could break the file is rejected with SkillRenderError.
 */
export function codeSpan(text: string, what: string): string {
  const tokens = text.split(" ");
  if (!tokens.every((t) => VISIBLE.test(t))) {
    throw new SkillRenderError(`skill: ${what} ${goQuote(text)} cannot be rendered safely in SKILL.md`);
  }
  return "`" + text.replaceAll("|", "\\|") + "`";
}

/** The longest summary (in code points, before escaping) that includeShort renders. */
export const SUMMARY_MAX_LENGTH = 120;

/** Markdown and HTML metacharacters that could format, link or inject markup inside a table cell. */
const MARKDOWN_META = /[\\`*_{}[\]<>|~&$!]/g;

/**
 * Product text reduced to one line of plain Markdown text: every run of
 * controls, line breaks, format characters and spaces becomes one space, the
 * result is trimmed, bounded to SUMMARY_MAX_LENGTH code points (ending in
 * "..." when cut), and Markdown/HTML metacharacters are backslash-escaped.
 */
export function plainLine(text: string): string {
  const line = text.replace(/[^\p{L}\p{M}\p{N}\p{P}\p{S}]+/gu, " ").trim();
  const chars = [...line];
  const bounded = chars.length <= SUMMARY_MAX_LENGTH ? line : chars.slice(0, SUMMARY_MAX_LENGTH - 3).join("").trimEnd() + "...";
  return bounded.replace(MARKDOWN_META, "\\$&");
}

/** Go's normalizeAgentFile: CRLF to LF, trailing newlines trimmed, exactly one LF appended. */
export function normalizeAgentFile(s: string): string {
  return s.replaceAll("\r\n", "\n").replace(/\n+$/, "") + "\n";
}
