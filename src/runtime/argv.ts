// argv templates (§6.2, §6.3): parse and check them, derive an args schema, substitute values. Pure.

import { parseArgvToken } from "../pack/placeholders.js";
import { ArgvError, showValue } from "./errors.js";

/** One parsed template token. */
export type TemplateToken =
  | { readonly kind: "literal"; readonly text: string }
  | { readonly kind: "whole"; readonly name: string }
  /** `prefix` is the flag with its `=`: `--to=`, `-f=`. */
  | { readonly kind: "flag"; readonly prefix: string; readonly name: string }
  | { readonly kind: "verb" };

/** A placeholder of a template, as schema derivation sees it. */
export interface Placeholder {
  readonly name: string;
  /** `whole` when the placeholder is a whole token, `flag` when it is the value of `--flag=`. */
  readonly kind: "whole" | "flag";
  /** Whole-token placeholders are required; flag placeholders are optional. */
  readonly required: boolean;
}

/** A problem with one template token. */
export interface TemplateIssue {
  readonly index: number;
  readonly message: string;
}

export interface TemplateOptions {
  /** True for `wrap.argv_template`, the only place `{{verb}}` may stand. */
  readonly allowVerb?: boolean;
}

export interface SubstituteOptions extends TemplateOptions {
  /** The verb key `{{verb}}` expands to (one token per dot segment). */
  readonly verb?: string;
  /**
   * The names the args schema requires (§6.2). When given, an absent whole-token placeholder not
   * among them is optional and its token is dropped; without it every whole-token placeholder is required.
   */
  readonly required?: ReadonlySet<string>;
}

/** A JSON object of verb arguments. */
export type Args = Readonly<Record<string, unknown>>;

/** Parses one token with the pack's classifier, or says why it is not a valid template token. */
function parseToken(token: string, opts: TemplateOptions): TemplateToken | string {
  if (token.includes("\0")) return "a template token must not contain NUL";
  const t = parseArgvToken(token);
  switch (t.kind) {
    case "invalid":
      return t.reason;
    case "literal":
      return t;
    case "whole":
      if (t.name !== "verb") return t;
      return opts.allowVerb ? { kind: "verb" } : "{{verb}} is only allowed in wrap.argv_template";
    case "flag":
      return t.name === "verb" ? "{{verb}} must be a whole token" : t;
  }
}

/** Every problem of a template, for validators that report all issues at once. */
export function templateIssues(template: readonly string[], opts: TemplateOptions = {}): TemplateIssue[] {
  const issues: TemplateIssue[] = [];
  template.forEach((token, index) => {
    const parsed = parseToken(token, opts);
    if (typeof parsed === "string") issues.push({ index, message: parsed });
  });
  return issues;
}

/** Parses a template; throws ArgvError `invalid_template` on the first bad token. */
export function parseTemplate(template: readonly string[], opts: TemplateOptions = {}): TemplateToken[] {
  return template.map((token, index) => {
    const parsed = parseToken(token, opts);
    if (typeof parsed === "string") throw new ArgvError("invalid_template", `argv template token ${index}: ${parsed}`);
    return parsed;
  });
}

/** The placeholders of a template, each name once, in first-use order (`{{verb}}` excluded). */
export function placeholdersOf(template: readonly string[], opts: TemplateOptions = {}): Placeholder[] {
  const byName = new Map<string, Placeholder>();
  for (const token of parseTemplate(template, opts)) {
    if (token.kind !== "whole" && token.kind !== "flag") continue;
    const seen = byName.get(token.name);
    const required = token.kind === "whole" || (seen?.required ?? false);
    byName.set(token.name, { name: token.name, kind: seen?.kind ?? token.kind, required });
  }
  return [...byName.values()];
}

/** The derived args schema of §6.3: whole-token placeholders required strings, flag ones optional strings. */
export function deriveArgsSchema(template: readonly string[], opts: TemplateOptions = {}): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const p of placeholdersOf(template, opts)) {
    properties[p.name] = { type: "string" };
    if (p.required) required.push(p.name);
  }
  return { type: "object", properties, required, additionalProperties: false };
}

/** Renders one scalar value as an argv token, or throws. Numbers and booleans render as JSON text. */
function renderScalar(name: string, value: unknown): string {
  switch (typeof value) {
    case "string":
      if (value.includes("\0")) throw new ArgvError("nul_in_argument", `argument ${name}: a value must not contain NUL`);
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new ArgvError("invalid_argument", `argument ${name}: ${value} is not a JSON number`);
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    default:
      throw new ArgvError(
        "invalid_argument",
        `argument ${name}: ${value === null ? "null" : Array.isArray(value) ? "a nested array" : typeof value === "object" ? "an object" : typeof value} cannot be an argv value`,
      );
  }
}

/** A whole-token value may not look like a flag unless a literal `--` ended the options before it. */
function checkWhole(name: string, token: string, afterDoubleDash: boolean): string {
  if (token.startsWith("-") && !afterDoubleDash) {
    throw new ArgvError(
      "flag_injection",
      `argument ${name}: value ${showValue(token)} starts with "-", which the program would read as a flag, so hcp refuses it: give a value that does not start with "-" (a verb whose argv template has a literal "--" before {{${name}}} takes such values)`,
    );
  }
  return token;
}

/**
 * Substitutes args into a template. Each template token yields zero or more whole tokens;
 * nothing is ever split, joined or re-parsed, and a value can never become a flag.
 */
export function substitute(template: readonly string[], args: Args, opts: SubstituteOptions = {}): string[] {
  const out: string[] = [];
  let afterDoubleDash = false;
  for (const token of parseTemplate(template, opts)) {
    switch (token.kind) {
      case "literal":
        out.push(token.text);
        if (token.text === "--") afterDoubleDash = true;
        break;
      case "verb": {
        if (opts.verb === undefined || opts.verb === "") throw new ArgvError("invalid_template", "{{verb}} needs a verb key");
        for (const segment of opts.verb.split(".")) out.push(checkWhole("verb", renderScalar("verb", segment), afterDoubleDash));
        break;
      }
      case "whole": {
        const value = Object.hasOwn(args, token.name) ? args[token.name] : undefined;
        const optional = opts.required !== undefined && !opts.required.has(token.name);
        if (value === undefined || value === null) {
          if (optional) break;
          throw new ArgvError("missing_argument", `argument ${token.name} is required`);
        }
        const items = Array.isArray(value) ? value : [value];
        // An empty array would drop the token and shift every operand after it (§6.2); an optional one may be dropped.
        if (items.length === 0 && !optional) throw new ArgvError("missing_argument", `argument ${token.name}: an empty array cannot stand for a required operand`);
        for (const item of items) out.push(checkWhole(token.name, renderScalar(token.name, item), afterDoubleDash));
        break;
      }
      case "flag": {
        const value = Object.hasOwn(args, token.name) ? args[token.name] : undefined;
        if (value === undefined || value === null) break;
        // An array repeats the flag, one token per element (a repeatable flag such as pflag's stringArray).
        const items = Array.isArray(value) ? value : [value];
        for (const item of items) out.push(`${token.prefix}${renderScalar(token.name, item)}`);
        break;
      }
    }
  }
  return out;
}
