// policy.json: strict validation, surface_id and verb cross-checks, hint contradictions, effective policy.

import { test } from "node:test";
import assert from "node:assert/strict";
import { effectivePolicy, parsePolicy, parseSurface, passThroughPolicy, validatePolicy, type Surface } from "../../src/pack/index.js";
import { codes, ledger } from "./helpers.js";

const surface = (): Surface => parseSurface(ledger()).surface!;
const example = () => ({
  surface_id: "ledger",
  default: "deny",
  verbs: { list: "read", transfer: { policy: "write", confirm: true, timeout_ms: 10000 } },
  pass_through: "deny",
  limits: { timeout_ms: 60000, max_output_bytes: 1048576 },
  env: ["LEDGER_HOME"],
});

test("confirm takes true, \"person\", \"plan\" or false; approval_ttl_s is a positive integer", () => {
  const withConfirm = (confirm: unknown) => ({ ...example(), verbs: { list: "read", transfer: { policy: "write", confirm } } });
  for (const ok of [true, false, "person", "plan"]) assert.deepEqual(validatePolicy(withConfirm(ok), surface()), [], String(ok));
  assert.deepEqual(codes(validatePolicy(withConfirm("yes"), surface())), [["policy", 'verbs["transfer"].confirm']]);
  const s = surface();
  const mode = (confirm: unknown) => effectivePolicy({ surface: s, policy: parsePolicy(withConfirm(confirm), s).policy }, "transfer").confirm;
  assert.deepEqual([mode(true), mode("person"), mode("plan"), mode(false)], ["person", "person", "plan", false]);
  assert.deepEqual(codes(validatePolicy({ ...example(), limits: { approval_ttl_s: 0 } }, s)), [["policy", "limits.approval_ttl_s"]]);
  assert.deepEqual(validatePolicy({ ...example(), limits: { approval_ttl_s: 60 } }, s), []);
});

test("the hcp.md §4 example policy is valid for the ledger pack", () => {
  const r = parsePolicy(example(), surface());
  assert.deepEqual(r.issues, []);
  assert.equal(r.policy?.surface_id, "ledger");
});

test("surface_id mismatch: missing_verb at surface.json id with the exact message", () => {
  const p = { ...example(), surface_id: "ledgr" };
  const issues = validatePolicy(p, surface());
  assert.deepEqual(issues, [{ severity: "error", code: "missing_verb", path: "id", message: 'id "ledger" does not match policy surface_id "ledgr"', file: "surface.json" }]);
});

test("a verb policy.json names but surface.json lacks: missing_verb", () => {
  const p = example();
  (p.verbs as Record<string, unknown>)["refund"] = "write";
  assert.deepEqual(codes(validatePolicy(p, surface())), [["missing_verb", 'verbs["refund"]']]);
});

test("strict: every unknown or malformed field is a policy error, all reported", () => {
  const p = {
    surface_id: "ledger",
    default: "allow",
    verbs: { list: "READ", transfer: { policy: "write", confirm: "yes", timeout_ms: -1, max_output_bytes: 1.5, retries: 2 }, status: {} },
    pass_through: true,
    limits: { timeout_ms: 0, cpu: 1 },
    env: ["OK", "1BAD", 3],
    extra: {},
  };
  assert.deepEqual(codes(validatePolicy(p, surface())), [
    ["policy", "extra"],
    ["policy", "default"],
    ["policy", "pass_through"],
    ["policy", 'verbs["list"]'],
    ["policy", 'verbs["transfer"].retries'],
    ["policy", 'verbs["transfer"].confirm'],
    ["policy", 'verbs["transfer"].timeout_ms'],
    ["policy", 'verbs["transfer"].max_output_bytes'],
    ["policy", 'verbs["status"].policy'],
    ["policy", "limits.cpu"],
    ["policy", "limits.timeout_ms"],
    ["policy", "env[1]"],
    ["policy", "env[2]"],
  ]);
  assert.equal(parsePolicy(p, surface()).policy, null);
  for (const doc of [null, [], "x", 1]) assert.deepEqual(codes(validatePolicy(doc, surface())), [["policy", ""]]);
  assert.deepEqual(codes(validatePolicy({}, surface())), [["policy", "surface_id"]]);
});

test("no policy.json is a policy warning", () => {
  const issues = validatePolicy(undefined, surface());
  assert.deepEqual(codes(issues, "warning"), [["policy", ""]]);
  assert.equal(issues[0]!.file, "policy.json");
});

test("a hint contradicted by policy.json is a policy warning; deny is not a contradiction", () => {
  const p = { surface_id: "ledger", default: "read", verbs: { "setup.apply": "read", transfer: "deny", connect: "write" } };
  const issues = validatePolicy(p, surface());
  assert.deepEqual(codes(issues, "warning"), [["policy", 'verbs["setup.apply"]']]);
  assert.match(issues[0]!.message, /hints "write" for verb "setup.apply" but policy.json says "read"/);
  const viaDefault = validatePolicy({ surface_id: "ledger", default: "read", verbs: { "setup.apply": "write", transfer: "write" } }, surface());
  assert.deepEqual(codes(viaDefault, "warning"), [["policy", "default"]]); // connect: hint write, default read
});

test("effective policy: entry, else default, else hint, else write; limits fall back to built-ins", () => {
  const s = surface();
  const policy = parsePolicy(example(), s).policy;
  assert.deepEqual(effectivePolicy({ surface: s, policy }, "transfer"), { policy: "write", confirm: "person", timeout_ms: 10000, max_output_bytes: 1048576, approval_ttl_s: 900, source: "policy" });
  assert.deepEqual(effectivePolicy({ surface: s, policy }, "list"), { policy: "read", confirm: false, timeout_ms: 60000, max_output_bytes: 1048576, approval_ttl_s: 900, source: "policy" });
  assert.deepEqual(effectivePolicy({ surface: s, policy }, "status"), { policy: "deny", confirm: false, timeout_ms: 60000, max_output_bytes: 1048576, approval_ttl_s: 900, source: "default" });
  const noDefault = { surface: s, policy: { surface_id: "ledger", limits: { timeout_ms: 5000, approval_ttl_s: 60 } } };
  assert.deepEqual(effectivePolicy(noDefault, "connect"), { policy: "write", confirm: false, timeout_ms: 5000, max_output_bytes: 1048576, approval_ttl_s: 60, source: "hint" });
  // Without policy.json every write is gated by a person: a forgotten file never removes a gate.
  assert.deepEqual(effectivePolicy({ surface: s, policy: null }, "status"), { policy: "write", confirm: "person", timeout_ms: 60000, max_output_bytes: 1048576, approval_ttl_s: 900, source: "fallback" });
  const readHint: Surface = { ...s, verbs: { ...s.verbs, list: { ...s.verbs["list"], policy: "read" } } };
  assert.deepEqual(effectivePolicy({ surface: readHint, policy: null }, "list").confirm, false, "a read hint stays ungated");
  assert.equal(effectivePolicy({ surface: s, policy }, "nope").policy, "deny");
  assert.equal(effectivePolicy({ surface: s, policy }, "__proto__").policy, "deny");
});

test("pass_through policy defaults to deny", () => {
  assert.equal(passThroughPolicy({ policy: null }).policy, "deny");
  assert.equal(passThroughPolicy({ policy: { surface_id: "x", pass_through: "read" } }).policy, "read");
});
