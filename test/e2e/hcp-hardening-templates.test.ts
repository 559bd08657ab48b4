// Templates an attacker could write or fill: reserved placeholder names and empty arrays never reach a program.

import assert from "node:assert/strict";
import { test } from "node:test";
import { execSession, hcp } from "../transports/support.js";
import { PROBE, isolatedEnv, probePack, witness } from "./hardening.js";

test("{{__proto__}}, {{constructor}} and {{prototype}} are validation errors, as whole tokens and flag values", async () => {
  const env = isolatedEnv();
  for (const name of ["__proto__", "constructor", "prototype"]) {
    for (const token of [`{{${name}}}`, `--v={{${name}}}`]) {
      const root = probePack("reserved", { go: { description: "Go.", cli: ["probe", "run", token], policy: "read" } });
      const r = await hcp(["validate", root], { env });
      assert.equal(r.code, 1, `${token}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout + r.stderr, new RegExp(`verbs\\["go"\\]\\.cli\\[2\\]: invalid_meta: placeholder name "${name}" is reserved`));
      // and the verb is refused before anything runs
      const run = await hcp(["run", root, "go", "--args", JSON.stringify({ [name]: "x" })], { env });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /validation errors/);
    }
  }
  const withTemplate = probePack("reserved-tpl", { go: { description: "Go.", policy: "read" } }, { wrap: { bin: PROBE, argv_template: ["{{verb}}", "{{constructor}}"] } });
  const v = await hcp(["validate", withTemplate], { env });
  assert.equal(v.code, 1);
  assert.match(v.stdout + v.stderr, /argv_template\[1\]: invalid_meta: placeholder name "constructor" is reserved/);
});

test("an empty array for a required whole-token placeholder is refused before anything runs, on run and exec", async () => {
  const env = isolatedEnv();
  const w = witness();
  const args = {
    type: "object",
    properties: { files: { type: "array", items: { type: "string" } }, dest: { type: "string" } },
    required: ["files", "dest"],
    additionalProperties: false,
  };
  const root = probePack("empty", { copy: { description: "Copy.", cli: ["probe", "run", `pid:${w.path}`, "{{files}}", "{{dest}}"], args, policy: "read" } });
  const run = await hcp(["run", root, "copy", "--args", JSON.stringify({ files: [], dest: "print:shifted" })], { env });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, /argument files: an empty array cannot stand for a required operand/);
  const exec = await execSession([root], [JSON.stringify({ id: 1, pack: "empty", verb: "copy", args: { files: [], dest: "print:shifted" } })], [], { env });
  assert.equal(exec.responses[0]?.ok, false);
  assert.equal(exec.responses[0]?.error?.code, "missing_argument");
  assert.equal(w.ran(), false, "the program never ran");
  // the same verb with one file does run: the witness is real
  const ok = await hcp(["run", root, "copy", "--args", JSON.stringify({ files: ["print:one"], dest: "print:two" })], { env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "one\ntwo\n");
  assert.equal(w.ran(), true);
});
