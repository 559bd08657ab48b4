import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { substitute, parseTemplate, templateIssues, placeholdersOf, deriveArgsSchema } from "../../src/runtime/argv.js";
import { ArgvError } from "../../src/runtime/errors.js";
import { runProcess } from "../../src/runtime/process/process.js";
import { PROBE, BASE_ENV } from "./support.js";

function refused(fn: () => unknown, code: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ArgvError, String(e));
    assert.equal(e.code, code, e.message);
    return true;
  });
}

async function probeArgv(args: string[]): Promise<string[]> {
  const r = await runProcess({ file: PROBE, args, env: BASE_ENV, timeoutMs: 10_000, maxOutputBytes: 8 << 20 });
  assert.equal(r.exit_code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { argv: string[] }).argv;
}

test("templates: whole tokens, flag values, {{verb}} only where allowed, anything else is an error", () => {
  assert.deepEqual(parseTemplate(["ls", "{{path}}", "--sort={{order}}", "-n={{n}}"]), [
    { kind: "literal", text: "ls" },
    { kind: "whole", name: "path" },
    { kind: "flag", prefix: "--sort=", name: "order" },
    { kind: "flag", prefix: "-n=", name: "n" },
  ]);
  assert.deepEqual(parseTemplate(["{{verb}}"], { allowVerb: true }), [{ kind: "verb" }]);
  refused(() => parseTemplate(["{{verb}}"]), "invalid_template");
  for (const bad of ["{{ x }}", "pre{{x}}", "{{x}}post", "{{1x}}", "{x}}", "{{x}", "--a={{x}}{{y}}", "--a={{verb}}", "a\0b"]) {
    refused(() => parseTemplate([bad], { allowVerb: true }), "invalid_template");
  }
  assert.deepEqual(
    templateIssues(["ok", "{{bad-name}}", "{{verb}}"]).map((i) => i.index),
    [1, 2],
  );
});

test("placeholders and the derived schema: whole tokens required strings, flags optional strings", () => {
  const t = ["tool", "{{verb}}", "{{target}}", "--mode={{mode}}", "--again={{target}}"];
  assert.deepEqual(placeholdersOf(t, { allowVerb: true }), [
    { name: "target", kind: "whole", required: true },
    { name: "mode", kind: "flag", required: false },
  ]);
  assert.deepEqual(deriveArgsSchema(t, { allowVerb: true }), {
    type: "object",
    properties: { target: { type: "string" }, mode: { type: "string" } },
    required: ["target"],
    additionalProperties: false,
  });
});

test("substitution: {{verb}} segments, dropped optional flags, arrays, JSON scalars", () => {
  assert.deepEqual(substitute(["{{verb}}", "--x={{x}}"], {}, { allowVerb: true, verb: "setup.status" }), ["setup", "status"]);
  assert.deepEqual(substitute(["add", "{{files}}", "--n={{n}}", "--dry={{dry}}"], { files: ["a", "b c"], n: 1.5, dry: false }), [
    "add",
    "a",
    "b c",
    "--n=1.5",
    "--dry=false",
  ]);
  assert.deepEqual(substitute(["x", "--opt={{o}}"], { o: null }), ["x"]);
  assert.deepEqual(substitute(["{{n}}"], { n: 7 }), ["7"]);
  // A repeatable flag: one token per element, each keeping its flag prefix.
  assert.deepEqual(substitute(["x", "--tag={{tags}}"], { tags: ["a", "-b"] }), ["x", "--tag=a", "--tag=-b"]);
  assert.deepEqual(substitute(["{{b}}"], { b: true }), ["true"]);
});

test("substitution refuses what would be unsafe or ambiguous, with stable codes", () => {
  refused(() => substitute(["rm", "{{path}}"], {}), "missing_argument");
  refused(() => substitute(["rm", "{{path}}"], { path: null }), "missing_argument");
  refused(() => substitute(["rm", "{{path}}"], { path: "-rf" }), "flag_injection");
  refused(() => substitute(["rm", "{{path}}"], { path: ["ok", "--no-preserve-root"] }), "flag_injection");
  refused(() => substitute(["rm", "{{path}}"], { path: -1 }), "flag_injection");
  refused(() => substitute(["rm", "{{path}}"], { path: "a\0b" }), "nul_in_argument");
  refused(() => substitute(["rm", "--x={{path}}"], { path: "a\0b" }), "nul_in_argument");
  refused(() => substitute(["rm", "{{path}}"], { path: { a: 1 } }), "invalid_argument");
  refused(() => substitute(["rm", "{{path}}"], { path: [["nested"]] }), "invalid_argument");
  refused(() => substitute(["rm", "--x={{path}}"], { path: ["a", "b\0"] }), "nul_in_argument");
  refused(() => substitute(["rm", "--x={{path}}"], { path: [["nested"]] }), "invalid_argument");
  // a literal "--" before the value makes a leading dash an operand; a flag value may start with "-"
  assert.deepEqual(substitute(["rm", "--", "{{path}}"], { path: "-rf" }), ["rm", "--", "-rf"]);
  assert.deepEqual(substitute(["grep", "--regexp={{p}}"], { p: "-v" }), ["grep", "--regexp=-v"]);
  // an inherited "__proto__" is not an argument
  refused(() => substitute(["{{toString}}"], {}), "missing_argument");
});

test("an empty array for a whole-token placeholder is refused: it would shift the operands after it", () => {
  refused(() => substitute(["cp", "{{src}}", "{{dest}}"], { src: [], dest: "/tmp/x" }), "missing_argument");
  assert.deepEqual(substitute(["cp", "{{src}}", "{{dest}}"], { src: ["a"], dest: "b" }), ["cp", "a", "b"]);
  // a flag placeholder with an empty array is simply absent
  assert.deepEqual(substitute(["ls", "--x={{x}}"], { x: [] }), ["ls"]);
});

test("__proto__, constructor and prototype are not placeholder names, whole or flag", () => {
  for (const name of ["__proto__", "constructor", "prototype"]) {
    for (const token of [`{{${name}}}`, `--v={{${name}}}`]) {
      refused(() => parseTemplate(["x", token]), "invalid_template");
      assert.match(templateIssues(["x", token])[0]?.message ?? "", /reserved/);
    }
  }
  // names that merely contain them are fine
  assert.deepEqual(placeholdersOf(["{{proto}}", "{{my_constructor}}"]).map((p) => p.name), ["proto", "my_constructor"]);
});

// Values an attacker might try. Each must arrive as exactly one argv token, or be refused.
const CORPUS: string[] = [
  "; rm -rf /",
  "a | cat /etc/passwd",
  "$(id)",
  "`id`",
  "${HOME}",
  "$HOME",
  "'single'",
  '"double"',
  "a\nb",
  "line\r\nfeed",
  "tab\there",
  "&& echo pwned",
  "> /tmp/owned",
  "* ? [a-z]",
  "~",
  "\\",
  "",
  "  spaced  ",
  "{{x}}",
  "{{verb}}",
  "%s%n",
  "héllo 世界 🎉 \u202e",
  "x".repeat(100_000),
  "-rf",
  "--help",
  "--",
  "-",
  "a\0b",
];

test("injection corpus: every value is one argv token at the real program, or refused", async () => {
  const accepted: string[] = [];
  const flagTemplate: string[] = [];
  const flagArgs: Record<string, string> = {};
  const flagExpected: string[] = [];
  CORPUS.forEach((value, i) => {
    // whole token without "--": leading dash refused, NUL refused, anything else kept verbatim
    if (value.includes("\0")) refused(() => substitute(["{{v}}"], { v: value }), "nul_in_argument");
    else if (value.startsWith("-")) refused(() => substitute(["{{v}}"], { v: value }), "flag_injection");
    else {
      assert.deepEqual(substitute(["{{v}}"], { v: value }), [value]);
      accepted.push(value);
    }
    if (!value.includes("\0")) {
      flagTemplate.push(`--v${i}={{v${i}}}`);
      flagArgs[`v${i}`] = value;
      flagExpected.push(`--v${i}=${value}`);
    }
  });
  const afterDash = CORPUS.filter((v) => !v.includes("\0"));
  // one real process per form: the program sees exactly the tokens substitution produced
  assert.deepEqual(await probeArgv(substitute(["{{vs}}"], { vs: accepted })), accepted);
  assert.deepEqual(await probeArgv(substitute(["--", "{{vs}}"], { vs: afterDash })), ["--", ...afterDash]);
  assert.deepEqual(await probeArgv(substitute(flagTemplate, flagArgs)), flagExpected);
});

test("property: any string without NUL or a leading dash is one identical token", async () => {
  const value = fc.string({ unit: "grapheme", maxLength: 40 }).filter((s) => !s.startsWith("-") && !s.includes("\0"));
  fc.assert(
    fc.property(fc.array(value, { minLength: 1, maxLength: 8 }), fc.option(value, { nil: undefined }), (vs, flag) => {
      const got = substitute(["cmd", "{{vs}}", "--f={{flag}}"], flag === undefined ? { vs } : { vs, flag });
      assert.deepEqual(got, ["cmd", ...vs, ...(flag === undefined ? [] : [`--f=${flag}`])]);
    }),
  );
  const sample = fc.sample(fc.array(value, { minLength: 50, maxLength: 50 }), { numRuns: 1, seed: 42 })[0]!;
  assert.deepEqual(await probeArgv(substitute(["{{vs}}"], { vs: sample })), sample);
});
