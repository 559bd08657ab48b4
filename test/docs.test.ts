// The generated reference pages (docs/reference/) are what `npm run docs` makes from the built programs today, and
// SECURITY.md's guarantees point at tests that exist.

import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO, run } from "./e2e/helpers.js";
import { EXIT_CODES, exitCodeOf } from "../src/transports/errors.js";

test("docs/reference is up to date with the command trees and the error-code table (else: run npm run docs)", async () => {
  const r = await run(process.execPath, [join(REPO, "scripts/docs.mjs"), "--check"]);
  assert.equal(r.stderr, "", "run npm run docs, and commit docs/reference");
  assert.equal(r.code, 0, "run npm run docs, and commit docs/reference");
});

test("docs/reference/error-codes.md gives every machine code the exit code hcp uses for it", () => {
  const text = readFileSync(join(REPO, "docs/reference/error-codes.md"), "utf8");
  const rows = [...text.matchAll(/^\| `([a-z_]+)` \| (\d+) \|$/gm)].map((m) => [m[1]!, Number(m[2])] as const);
  assert.equal(rows.length, Object.keys(EXIT_CODES).length);
  for (const [code, exit] of rows) assert.equal(exitCodeOf(code), exit, code);
});

interface Manifest {
  global_flags: { name: string }[];
  commands: { path: string[]; local_flags: { name: string }[] }[];
}

/** The command lines a page shows: lines of its ```sh blocks, its indented code lines and its inline code spans. */
function shownCommandLines(text: string): { line: number; code: string }[] {
  const out: { line: number; code: string }[] = [];
  let fence: string | undefined;
  for (const [i, l] of text.split("\n").entries()) {
    if (l.startsWith("```")) {
      fence = fence === undefined ? l.slice(3).trim() || "plain" : undefined;
      continue;
    }
    if (fence === "sh") out.push({ line: i + 1, code: l });
    else if (fence === undefined && l.startsWith("    ")) out.push({ line: i + 1, code: l.trim() });
    else if (fence === undefined) for (const m of l.matchAll(/`([^`]+)`/g)) out.push({ line: i + 1, code: m[1]! });
  }
  return out;
}

/** Shell words, quotes removed (enough for documentation: no escapes, no expansions). */
function words(s: string): string[] {
  return [...s.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** What is wrong with `program args…` against the program's own command tree: an unknown command or flag. */
function mistakes(m: Manifest, args: string[]): string[] {
  const paths = new Map(m.commands.map((c) => [c.path.join(" "), c]));
  const path: string[] = [];
  while (args.length > 0 && paths.has([...path, args[0]].join(" "))) path.push(args.shift()!);
  const flags = new Set([...paths.get(path.join(" "))!.local_flags, ...m.global_flags].map((f) => f.name).concat("help", "version"));
  const wrong = path.length === 0 && args[0] !== undefined && !args[0].startsWith("-") ? [`unknown command ${args[0]}`] : [];
  for (const a of args) {
    if (a === "--") break;
    if (a.startsWith("--") && !flags.has(a.slice(2).split("=")[0]!)) wrong.push(`unknown flag ${a}`);
  }
  return wrong;
}

test("every hcp and rungrad command line the README and docs/ show names a command and flags the program has", async () => {
  const manifests: Record<string, Manifest> = {};
  for (const program of ["hcp", "rungrad"]) {
    const r = await run(process.execPath, [join(REPO, "dist/bin", `${program}.cjs`), "__rungrad_manifest"]);
    manifests[program] = JSON.parse(r.stdout) as Manifest;
  }
  const pages = ["README.md", "SECURITY.md", ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  const wrong: string[] = [];
  let checked = 0;
  for (const page of pages) {
    for (const { line, code } of shownCommandLines(readFileSync(join(REPO, page), "utf8"))) {
      // Each command of a pipeline or list; `npx hcp` is hcp; a comment ends the line.
      for (const part of code.split(/\s*(?:\|\||&&|\||;|\$\()\s*/)) {
        const m = /^(?:npx\s+)?(hcp|rungrad)\s+(.*)$/.exec(part.trim());
        if (!m) continue;
        checked++;
        const args = m[2]!.replace(/\s+#\s.*$/, "");
        for (const w of mistakes(manifests[m[1]!]!, words(args))) wrong.push(`${page}:${line}: ${m[1]} ${args}: ${w}`);
      }
    }
  }
  assert.ok(checked > 100, `the pages show ${checked} command lines`);
  assert.deepEqual(wrong, []);
});

/** A test's name as a pattern: a template literal's `${…}` parts match any text. */
function namePattern(quote: string, body: string): RegExp {
  const literal = (text: string) => (quote === '"' ? (JSON.parse(`"${text}"`) as string) : text.replace(/\\(.)/g, "$1"));
  const parts = quote === "`" ? body.split(/\$\{[^}]*\}/) : [body];
  return new RegExp(`^${parts.map((p) => literal(p).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s");
}

test("SECURITY.md names only tests that exist: every guarantee's file, and each test it quotes by name", () => {
  const text = readFileSync(join(REPO, "SECURITY.md"), "utf8");
  const sources = new Map<string, RegExp[]>();
  let quoted = 0;
  for (const [, file, names] of text.matchAll(/(test\/[\w./-]+\.test\.ts)((?: ?\("(?:[^"\\]|\\.)*"\),?)*)/g)) {
    if (!sources.has(file!)) {
      assert.ok(existsSync(join(REPO, file!)), `SECURITY.md names a test file that does not exist: ${file}`);
      const source = readFileSync(join(REPO, file!), "utf8");
      sources.set(file!, [...source.matchAll(/\btest\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g)].map((m) => namePattern(m[1]!, m[2]!)));
    }
    for (const [, name] of names!.matchAll(/\("((?:[^"\\]|\\.)*)"\)/g)) {
      quoted += 1;
      // Quoted as the test's source writes it: `\"` stands for a quote.
      const named = name!.replace(/\\"/g, '"');
      assert.ok(sources.get(file!)!.some((p) => p.test(named)), `SECURITY.md quotes a test ${file} does not have: "${name}"`);
    }
  }
  assert.ok(sources.size > 50 && quoted > 250, `SECURITY.md's references were all found (${sources.size} files, ${quoted} tests)`);
});
