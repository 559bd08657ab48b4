// A one-shot `hcp run` judges arguments with an interpreting validator before (or instead of) compiling Ajv's
// (src/pack/interpreted.ts). Values an attacker would aim at the gap between two validators are refused exactly as
// Ajv refuses them, words and exit code, and the wrapped program never runs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { hcp } from "../transports/support.js";
import { isolatedEnv, probePack, witness } from "./hardening.js";

const object = (properties: object, extra: object = {}) => ({ type: "object", properties, ...extra });

/** One verb per schema class, each running the probe, which first records that it ran. */
const SCHEMAS: Record<string, object> = {
  upper: object({ v: { type: "string", pattern: "^\\p{Lu}+$" } }),
  one: object({ v: { type: "string", maxLength: 1 } }),
  two: object({ v: { type: "string", minLength: 2 } }),
  int: object({ v: { type: "integer" } }),
  small: object({ v: { type: "number", maximum: 10 } }),
  tenth: object({ v: { type: "number", multipleOf: 0.1 } }),
  exact: object({ v: { const: { a: 1, b: [1, 2] } } }),
  ctor: object({ v: { const: { constructor: {} } } }),
  pair: object({ v: { enum: [[1, 2]] } }),
  uniq: object({ v: { type: "array", uniqueItems: true } }),
  closed: object({ v: { type: "string" } }, { additionalProperties: false }),
  inherited: object({ constructor: { type: "string" } }),
  valueof: object({ v: { enum: [{ valueOf: 1 }] } }),
};

const refused = (verb: string, what: string) => `Error: invalid arguments for verb "${verb}": ${what}\n`;

/** [verb, argument flags, hcp's stderr]: every one exits 1 on main before this change, with these words. */
const ATTACKS: [string, string[], string][] = [
  ["upper", ["--arg", "v=abc"], refused("upper", 'argument "v": must match pattern "^\\p{Lu}+$"')],
  ["upper", ["--arg", "v=\ud83d"], refused("upper", 'argument "v": must match pattern "^\\p{Lu}+$"')],
  ["one", ["--arg", "v=😀😀"], refused("one", 'argument "v": must NOT have more than 1 characters')],
  ["one", ["--arg", "v=e\u0301"], refused("one", 'argument "v": must NOT have more than 1 characters')],
  ["two", ["--arg", "v=😀"], refused("two", 'argument "v": must NOT have fewer than 2 characters')],
  ["int", ["--arg", "v:=1.5"], refused("int", 'argument "v": must be integer')],
  ["int", ["--arg", 'v:="1"'], refused("int", 'argument "v": must be integer')],
  ["small", ["--arg", "v:=1e308"], refused("small", 'argument "v": must be <= 10')],
  ["small", ["--arg", "v=NaN"], refused("small", 'argument "v": must be number (--arg v=… passes a string: give the number as JSON, --arg v:=…)')],
  ["tenth", ["--arg", "v:=0.3"], refused("tenth", 'argument "v": must be multiple of 0.1')],
  ["exact", ["--args", '{"v":{"b":[1,2],"a":2}}'], refused("exact", 'argument "v": must be equal to constant')],
  ["ctor", ["--args", '{"v":{"constructor":{}}}'], refused("ctor", 'argument "v": must be equal to constant')],
  ["pair", ["--arg", "v:=[2,1]"], refused("pair", 'argument "v": must be one of [1,2]')],
  ["uniq", ["--args", '{"v":[{"a":1,"b":2},{"b":2,"a":1}]}'], refused("uniq", 'argument "v": must NOT have duplicate items (items ## 0 and 1 are identical)')],
  ["uniq", ["--arg", "v:=[1,1.0]"], refused("uniq", 'argument "v": must NOT have duplicate items (items ## 0 and 1 are identical)')],
  ["closed", ["--args", '{"__proto__":"x"}'], refused("closed", 'unknown argument "__proto__" (its arguments: v)')],
  ["closed", ["--arg", "constructor=x"], refused("closed", 'unknown argument "constructor" (its arguments: v)')],
  ["closed", ["--args", '{"v":"x","v":1}'], refused("closed", 'argument "v": must be string')],
  // `--arg __proto__:=…` is an argument named __proto__, as in --args (it never sets the arguments' prototype)
  ["closed", ["--arg", "v=x", "--arg", '__proto__:={"w":"x"}'], refused("closed", 'unknown argument "__proto__" (its arguments: v)')],
  ["inherited", ["--arg", "w=x"], refused("inherited", 'argument "constructor": must be string')],
];

test("a one-shot run refuses what Ajv refuses, with Ajv's words and exit code, and runs nothing: patterns, code points, integers, huge numbers, multipleOf, const/enum/uniqueItems, __proto__ and constructor keys, duplicate keys, an own valueOf", async () => {
  const env = isolatedEnv();
  const witnesses = Object.fromEntries(Object.keys(SCHEMAS).map((verb) => [verb, witness()]));
  const verbs = Object.fromEntries(
    Object.entries(SCHEMAS).map(([verb, args]) => [verb, { description: "Record the run.", cli: ["probe", "run", `pid:${witnesses[verb]!.path}`], args, policy: "read" }]),
  );
  const root = probePack("oneshot", verbs);
  for (const [verb, flags, stderr] of ATTACKS) {
    const r = await hcp(["run", root, verb, ...flags], { env });
    assert.deepEqual([r.code, r.stderr, r.stdout], [1, stderr, ""], `${verb} ${flags.join(" ")}`);
    assert.equal(witnesses[verb]!.ran(), false, `${verb} ${flags.join(" ")}: the program ran`);
  }
  // An own valueOf makes Ajv's comparison throw: refused as arguments its schema cannot judge, and no run.
  const thrown = await hcp(["run", root, "valueof", "--args", '{"v":{"valueOf":1}}'], { env });
  assert.deepEqual([thrown.code, thrown.stdout], [1, ""], thrown.stderr);
  assert.equal(thrown.stderr, refused("valueof", "its schema cannot judge them (a.valueOf is not a function)"));
  assert.equal(witnesses["valueof"]!.ran(), false);
  // The witness is real: values the schemas accept run.
  for (const [verb, flags] of [["one", ["--arg", "v=😀"]], ["exact", ["--args", '{"v":{"b":[1,2],"a":1}}']], ["int", ["--arg", "v:=1e308"]]] as const) {
    const r = await hcp(["run", root, verb, ...flags], { env });
    assert.equal(r.code, 0, `${verb}: ${r.stderr}`);
    assert.equal(witnesses[verb]!.ran(), true, verb);
  }
});
