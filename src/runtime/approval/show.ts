// A plan as a person reads it (§7): every field, one line each, with control, bidi and other invisible
// characters escaped so that what is shown is what will run. Pure.

import { escapeInvisibleJSON, invisiblePattern } from "../../json/visible.js";
import { confirmMark } from "../../pack/harness-policy.js";
import { isRequestPlan, subjectOf, type AnyPlan, type Plan, type RequestPlan } from "../plan.js";

/** Each control or invisible character as `\u{XXXX}`; everything else as is. */
export function escapeForPerson(text: string): string {
  return text.replace(invisiblePattern(), codePoint);
}

/** A character as `\u{XXXX}`. */
const codePoint = (c: string) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}}`;

/** JSON text with every invisible character written as a `\uXXXX` escape: the same value, safe to show. */
export function visibleJSON(value: unknown, indent?: number): string {
  return escapeInvisibleJSON(JSON.stringify(value, null, indent));
}

/**
 * Text for a person, escaped; text with a character outside ASCII is followed by its form with each such character
 * escaped too, so that a look-alike the agent chose (Cyrillic `а` in `аlice`, `ехample.com`) cannot pass for the
 * value the person reads, while `Zürich` stays readable.
 */
export function forPerson(text: string): string {
  const seen = escapeForPerson(text);
  return /[^\x00-\x7f]/u.test(seen) ? `${seen} (${seen.replace(/[^\x00-\x7f]/gu, codePoint)})` : seen;
}

/** A list of strings as a person reads it: each one quoted, escaped. */
const quotedList = (items: readonly string[]) => `[${items.map((a) => forPerson(JSON.stringify(a))).join(", ")}]`;

/** What a confirm mode asks for, in words. */
export function confirmWords(confirm: Plan["policy"]["confirm"]): string {
  return confirmMark(confirm) ?? "no confirmation";
}

/** `NAME="value" …` sorted by name, escaped. */
function assignments(vars: Readonly<Record<string, string>>): string {
  const all = Object.entries(vars)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => forPerson(`${k}=${JSON.stringify(v)}`));
  return all.length === 0 ? "(none)" : all.join(" ");
}

/** What a program plan runs: argv, environment, stdin and working directory. */
function programLines(plan: Plan): string[] {
  return [`  argv:    ${quotedList(plan.argv)}`, `  env:     ${assignments(plan.env)}`, `  stdin:   ${plan.stdin ?? "(closed)"}`, `  cwd:     ${forPerson(plan.cwd)}`];
}

/** What a request plan sends: method and URL, header parameters, body and the credentials it carries. */
function requestLines(plan: RequestPlan): string[] {
  const lines = [`  request: ${forPerson(`${plan.method} ${plan.url}`)}`];
  if (plan.headers !== undefined) lines.push(`  headers: ${assignments(plan.headers)}`);
  if (plan.body !== undefined) lines.push(`  body:    ${forPerson(visibleJSON(plan.body))}`);
  if (plan.credentials !== undefined) lines.push(`  credentials: ${assignments(plan.credentials)}`);
  return lines;
}

/** The plan's fields, one indented line each; `plan_id` and its expiry last when given. */
export function planLines(plan: AnyPlan, id?: { plan_id: string; expires_at: string }): string[] {
  const p = plan.policy;
  const lines = [
    ...(isRequestPlan(plan) ? requestLines(plan) : programLines(plan)),
    `  pack:    ${forPerson(plan.root ?? "-")} (surface.json ${plan.surface_sha256 ?? "-"}, policy.json ${plan.policy_sha256 ?? "absent"})`,
    `  policy:  ${p.policy}, ${confirmWords(p.confirm)}; timeout ${p.timeout_ms} ms; output up to ${p.max_output_bytes} bytes per stream`,
  ];
  if (id !== undefined) lines.push(`  plan_id: ${escapeForPerson(id.plan_id)}`, `  expires: ${id.expires_at}`);
  return lines;
}

/**
 * The start of a plan's stdin for a person (escaped), and how much of it is not shown: a person must never take
 * the start for the whole (an agent can pad the start and put what matters after it).
 */
export function stdinLines(preview: string | undefined, moreBytes: number | undefined): string[] {
  if (preview === undefined) return [];
  const lines = [`  stdin starts: ${forPerson(JSON.stringify(preview))}`];
  if (moreBytes !== undefined && moreBytes > 0) lines.push(`  stdin goes on: ${moreBytes} more bytes are not shown here; approve only if you know what they are`);
  return lines;
}

/** The whole plan for a person: what runs, then its lines. */
export function planText(plan: AnyPlan, id?: { plan_id: string; expires_at: string }): string {
  return [`${escapeForPerson(subjectOf(plan))}:`, ...planLines(plan, id)].join("\n");
}
