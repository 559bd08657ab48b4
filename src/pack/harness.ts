// HARNESS.md (hcp.md §5): YAML frontmatter with `name` and `description`, then a Markdown body. Pure.

import { createRequire } from "node:module";
import type * as YamlModule from "yaml";
import { IssueSink, isObject, show } from "./issues.js";
import type { HarnessFrontmatter, Issue, PackHarness } from "./types.js";

/** Agent Skills name: 1 to 64 chars of a-z, 0-9 and single inner hyphens. */
export const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/m;

export interface HarnessResult {
  harness: PackHarness;
  issues: Issue[];
}

/** Splits HARNESS.md into frontmatter and body; every problem is an issue, never an exception. */
export function parseHarness(text: string): HarnessResult {
  const sink = new IssueSink("HARNESS.md");
  const split = splitFrontmatter(text);
  if (split === null) {
    sink.error("invalid_meta", "", "HARNESS.md must start with YAML frontmatter between --- lines, carrying name and description");
    return { harness: { frontmatter: null, body: text, source: "HARNESS.md" }, issues: sink.issues };
  }
  const frontmatter = checkFrontmatter(split.yaml, sink);
  return { harness: { frontmatter, body: split.body, source: "HARNESS.md" }, issues: sink.issues };
}

/** The YAML between the opening and closing `---` lines and the body after them; null without frontmatter. */
export function splitFrontmatter(text: string): { yaml: string; body: string } | null {
  const open = OPEN.exec(text);
  if (open === null) return null;
  const rest = text.slice(open[0].length);
  // The closing line may also directly follow the opening one (empty frontmatter).
  const close = CLOSE.exec(rest);
  if (close === null) return null;
  return { yaml: rest.slice(0, close.index), body: rest.slice(close.index + close[0].length) };
}

const SIMPLE_LINE = /^(name|description): (?:"((?:[ !#-[\]-~]|\\["\\])*)"|'((?:[ -&(-~]|'')*)'|([A-Za-z][A-Za-z0-9 ,.;!?=+()'/_-]*[A-Za-z0-9.)]|[A-Za-z]))$/;
const YAML_WORDS = /^(?:true|false|null|yes|no|on|off|y|n)$/i;

/**
 * The fast path for the common frontmatter (generated packs): only `name:` and `description:` lines,
 * each a quoted string of printable ASCII (hcp init quotes a description that holds `": "`: in single quotes, where
 * `''` is a quote, or in double quotes where it holds one, whose only escapes are then `\"` and `\\`), or a plain
 * word-like scalar YAML reads as that same text. Returns null for anything else, which the yaml library parses.
 */
export function simpleFrontmatter(src: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  for (const line of src.split("\n")) {
    if (line === "") continue;
    const m = SIMPLE_LINE.exec(line);
    if (m === null || Object.hasOwn(out, m[1]!)) return null;
    const value = m[2]?.replace(/\\(["\\])/g, "$1") ?? m[3]?.replaceAll("''", "'") ?? m[4]!;
    if (m[4] !== undefined && YAML_WORDS.test(value)) return null;
    out[m[1]!] = value;
  }
  return Object.keys(out).length > 0 ? out : null;
}

function checkFrontmatter(src: string, sink: IssueSink): HarnessFrontmatter | null {
  const simple = simpleFrontmatter(src);
  return checkFields(simple ?? parseYaml(src, sink), sink);
}

let yaml: typeof YamlModule | undefined;

/** The yaml library, loaded on first use: the frontmatter fast path usually makes it unnecessary (it costs ~50 ms to load). */
function yamlLib(): typeof YamlModule {
  // The package is CommonJS for Node (its `node` export).
  yaml ??= createRequire(import.meta.url)("yaml") as typeof YamlModule;
  return yaml;
}

function parseYaml(src: string, sink: IssueSink): unknown {
  const doc = yamlLib().parseDocument(src, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    for (const e of doc.errors) sink.error("invalid_meta", "", `frontmatter is not valid YAML: ${e.message.split("\n")[0]}`);
    return undefined;
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    sink.error("invalid_meta", "", `frontmatter is not valid YAML: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  return value;
}

function checkFields(value: unknown, sink: IssueSink): HarnessFrontmatter | null {
  if (value === undefined) return null; // a YAML error, already reported
  if (!isObject(value)) {
    sink.error("invalid_meta", "", `frontmatter must be a YAML mapping with name and description, got ${show(value ?? null)}`);
    return null;
  }
  const start = sink.issues.length;
  const { name, description } = value;
  if (typeof name !== "string" || name === "") sink.error("invalid_meta", "name", `name must be a non-empty string, got ${show(name)}`);
  else if (name.length > 64 || !SKILL_NAME.test(name)) {
    sink.warn("not_conforming", "name", "an Agent Skills name has 1 to 64 characters: lower-case letters, digits and single inner hyphens");
  }
  if (typeof description !== "string" || description.trim() === "") {
    sink.error("invalid_meta", "description", `description must be a non-empty string, got ${show(description)}`);
  } else if (description.length > 1024) {
    sink.warn("not_conforming", "description", "an Agent Skills description has at most 1024 characters");
  }
  return sink.hasErrorsSince(start) ? null : (value as HarnessFrontmatter);
}
