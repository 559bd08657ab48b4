// Replaces credential values with "***" in text, Buffers and JSON values. Pure.

import { dictionary } from "../json/stable.js";

export const MASK = "***";

/** A compiled set of secrets; build once per run with `secretSet`. */
export interface SecretSet {
  readonly secrets: readonly string[];
  /** Matches any secret, raw or as it appears inside a JSON string literal; null when there is none. */
  readonly pattern: RegExp | null;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Compiles secrets (empty values ignored); longest first, so a secret containing another is masked whole. */
export function secretSet(secrets: Iterable<string>): SecretSet {
  const forms = new Set<string>();
  const list: string[] = [];
  for (const s of secrets) {
    if (s === "") continue;
    list.push(s);
    forms.add(s);
    // The form a JSON encoder writes: a secret with quotes, backslashes or controls must not slip through escaped.
    forms.add(JSON.stringify(s).slice(1, -1));
  }
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  return { secrets: list, pattern: sorted.length === 0 ? null : new RegExp(sorted.map(escapeRegExp).join("|"), "g") };
}

function asSet(secrets: SecretSet | Iterable<string>): SecretSet {
  return "pattern" in secrets && "secrets" in secrets ? secrets : secretSet(secrets as Iterable<string>);
}

/** Masks every secret in a text. */
export function redactText(text: string, secrets: SecretSet | Iterable<string>): string {
  const set = asSet(secrets);
  return set.pattern === null ? text : text.replace(set.pattern, MASK);
}

/**
 * Masks a secret's beginning left at the end of a truncated text (at least 4 characters of it),
 * so cutting output at the cap cannot expose part of a credential.
 */
export function redactTruncatedTail(text: string, secrets: SecretSet | Iterable<string>): string {
  let cut = text.length;
  for (const s of asSet(secrets).secrets) {
    for (let k = Math.min(s.length - 1, text.length); k >= 4; k--) {
      if (text.endsWith(s.slice(0, k))) {
        cut = Math.min(cut, text.length - k);
        break;
      }
    }
  }
  return cut === text.length ? text : text.slice(0, cut) + MASK;
}

/**
 * Masks every secret in a value: strings, Buffers (decoded as UTF-8, returned as strings),
 * arrays and objects deeply (keys included). Other values are returned unchanged.
 */
export function redact(value: unknown, secrets: SecretSet | Iterable<string>): unknown {
  const set = asSet(secrets);
  if (set.pattern === null) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return redactText(v, set);
    if (Buffer.isBuffer(v)) return redactText(v.toString("utf8"), set);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null) {
      const out: Record<string, unknown> = Object.getPrototypeOf(v) === null ? dictionary<unknown>() : {};
      for (const [k, item] of Object.entries(v)) {
        // defineProperty: a "__proto__" key stays a key instead of replacing the prototype
        Object.defineProperty(out, redactText(k, set), { value: walk(item), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return v;
  };
  return walk(value);
}
