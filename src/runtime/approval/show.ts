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

/**
 * The most of one value, and of one line's values, a person is shown (in characters as shown): a value the agent
 * made long can neither push the rest of the plan out of sight nor be taken for whole. What is cut is counted.
 */
const VALUE_SHOWN = 500;
const LINE_SHOWN = 2000;

/** What a plan's text left out: how many characters, and of which fields. */
class Omitted {
  chars = 0;
  readonly fields: string[] = [];
  add(field: string, chars: number): void {
    this.chars += chars;
    if (!this.fields.includes(field)) this.fields.push(field);
  }
}

/** How many characters (code points) a text has, as a person counts them. */
const characters = (text: string) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

/**
 * `show(raw)`, or, when that is longer than `room`, `show` of the longest start of `raw` that fits, followed by how many
 * characters are not shown (outside the quotes `show` puts around a value), and that count.
 */
function cut(raw: string, room: number, show: (raw: string) => string): { text: string; left: number } {
  // The shown form is never shorter than the value: a value longer than the room is not shown whole.
  if (raw.length <= room) {
    const whole = show(raw);
    if (whole.length <= room) return { text: whole, left: 0 };
  }
  // The shown form only grows with the start it shows: the longest start that fits, by halving.
  let lo = 0;
  let hi = Math.min(raw.length, room);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (show(raw.slice(0, mid)).length <= room) lo = mid;
    else hi = mid - 1;
  }
  // Never half a surrogate pair.
  const last = raw.charCodeAt(lo - 1);
  if (last >= 0xd800 && last <= 0xdbff) lo--;
  const left = characters(raw.slice(lo));
  return { text: `${show(raw.slice(0, lo))}…(+${left} characters)`, left };
}

/** One value as a person reads it, cut to `room` (what is cut counted in `omitted`). */
function cutValue(raw: string, room: number, show: (raw: string) => string, omitted: Omitted, field: string): string {
  const { text, left } = cut(raw, room, show);
  if (left > 0) omitted.add(field, left);
  return text;
}

/**
 * Values as a person reads them (`show(value, i)`), each cut to VALUE_SHOWN; once the next would pass LINE_SHOWN,
 * it and the values after it are only counted.
 */
function shownValues(values: readonly string[], show: (raw: string, i: number) => string, omitted: Omitted, field: string): string[] {
  const shown: string[] = [];
  let room = LINE_SHOWN;
  for (const [i, value] of values.entries()) {
    const one = cut(value, VALUE_SHOWN, (raw) => show(raw, i));
    if (one.text.length > room) {
      const rest = values.slice(i);
      const left = rest.reduce((n, v) => n + characters(v), 0);
      omitted.add(field, left);
      shown.push(`…(+${rest.length} more ${rest.length === 1 ? "value" : "values"}: ${left} characters)`);
      break;
    }
    if (one.left > 0) omitted.add(field, one.left);
    room -= one.text.length + 2; // and the separator
    shown.push(one.text);
  }
  return shown;
}

/** A string quoted and escaped as a person reads it. */
const quoted = (text: string) => forPerson(JSON.stringify(text));

/** What a confirm mode asks for, in words. */
export function confirmWords(confirm: Plan["policy"]["confirm"]): string {
  return confirmMark(confirm) ?? "no confirmation";
}

/** `NAME="value" …` sorted by name, escaped. */
function assignments(vars: Readonly<Record<string, string>>, omitted: Omitted, field: string): string {
  const names = Object.keys(vars).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (names.length === 0) return "(none)";
  const values = names.map((k) => vars[k]!);
  return shownValues(values, (value, i) => forPerson(`${names[i]}=${JSON.stringify(value)}`), omitted, field).join(" ");
}

/** What a program plan runs: argv, environment, stdin and working directory. */
function programLines(plan: Plan, omitted: Omitted): string[] {
  return [
    `  argv:    [${shownValues(plan.argv, quoted, omitted, "argv").join(", ")}]`,
    `  env:     ${assignments(plan.env, omitted, "env")}`,
    `  stdin:   ${plan.stdin ?? "(closed)"}`,
    `  cwd:     ${forPerson(plan.cwd)}`,
  ];
}

/** What a request plan sends: method and URL, header parameters, body and the credentials it carries. */
function requestLines(plan: RequestPlan, omitted: Omitted): string[] {
  const lines = [`  request: ${cutValue(`${plan.method} ${plan.url}`, LINE_SHOWN, forPerson, omitted, "URL")}`];
  if (plan.headers !== undefined) lines.push(`  headers: ${assignments(plan.headers, omitted, "headers")}`);
  if (plan.body !== undefined) lines.push(`  body:    ${cutValue(visibleJSON(plan.body), LINE_SHOWN, forPerson, omitted, "body")}`);
  if (plan.credentials !== undefined) lines.push(`  credentials: ${assignments(plan.credentials, omitted, "credentials")}`);
  return lines;
}

/**
 * The plan's fields, one indented line each; `plan_id` and its expiry last when given, then, when a value was too
 * long to show whole, how much is not shown and where the whole plan is.
 */
export function planLines(plan: AnyPlan, id?: { plan_id: string; expires_at: string }): string[] {
  const p = plan.policy;
  const omitted = new Omitted();
  const lines = [
    ...(isRequestPlan(plan) ? requestLines(plan, omitted) : programLines(plan, omitted)),
    `  pack:    ${forPerson(plan.root ?? "-")} (surface.json ${plan.surface_sha256 ?? "-"}, policy.json ${plan.policy_sha256 ?? "absent"})`,
    `  policy:  ${p.policy}, ${confirmWords(p.confirm)}; timeout ${p.timeout_ms} ms; output up to ${p.max_output_bytes} bytes per stream`,
  ];
  if (id !== undefined) lines.push(`  plan_id: ${escapeForPerson(id.plan_id)}`, `  expires: ${id.expires_at}`);
  if (omitted.chars > 0) {
    // A plan a person approves is kept for `hcp approve`, whose JSON has every value whole.
    const whole = p.confirm === "person" ? "; hcp approve --list --json shows the whole plan" : "";
    lines.push(`  not shown: ${omitted.chars} characters of ${omitted.fields.join(", ")}, too long to show here: approve only if you know what they are${whole}`);
  }
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
