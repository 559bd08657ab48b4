// Issue construction, JSON path building and the one-line text form of an issue.

import type { Issue, IssueCode, PackFile } from "./types.js";

/** Collects issues for one file; validators call error/warn and never throw. */
export class IssueSink {
  constructor(
    readonly file: PackFile,
    readonly issues: Issue[] = [],
  ) {}

  error(code: IssueCode, path: string, message: string): void {
    this.issues.push({ severity: "error", code, path, message, file: this.file });
  }

  warn(code: IssueCode, path: string, message: string): void {
    this.issues.push({ severity: "warning", code, path, message, file: this.file });
  }

  /** True when any error has been recorded since the sink held `since` issues. */
  hasErrorsSince(since: number): boolean {
    for (let i = since; i < this.issues.length; i++) if (this.issues[i]!.severity === "error") return true;
    return false;
  }
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `base.key`, or `base["key"]` when the key is not an identifier; a bare key at the top. */
export function prop(base: string, key: string): string {
  if (IDENT.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}

/** `base["key"]` always: the form for verb keys, which contain dots. */
export function keyed(base: string, key: string): string {
  return `${base}[${JSON.stringify(key)}]`;
}

export function index(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** `<file>: <path>: <code>: <message>`; an issue of the whole document (empty path) is `<file>: <code>: <message>`. */
export function formatIssue(issue: Issue, file: string = issue.file): string {
  return `${file}${issue.path === "" ? "" : `: ${issue.path}`}: ${issue.code}: ${issue.message}`;
}

export function hasErrors(issues: readonly Issue[]): boolean {
  return issues.some((i) => i.severity === "error");
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A short JSON rendering of a value for messages. An object or an array is named, never shown: a pack file may be a
 * link to a file of the person's (the credential file's `"env": {"family": {"TOKEN": "…"}}` under policy.json's `env`),
 * and its content would come back to whoever wrote the link in the message.
 */
export function show(v: unknown): string {
  if (v === undefined) return "undefined";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "object" && v !== null) return "an object";
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = typeof v; // BigInt
  }
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}
