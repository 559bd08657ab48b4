// `hcp exec`: many concurrent requests each answered with its id, malformed lines answered, stdin, refusals.

import assert from "node:assert/strict";
import { test } from "node:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PROBE_PACK, execSession, pack, tempDir } from "../transports/support.js";
import { PROBE } from "../runtime/support.js";

test("100 concurrent requests are all answered, each with its own id", async () => {
  const ids = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? `r${i}` : i));
  const lines = ids.map((id, i) => JSON.stringify({ id, pack: "hcp-probe", verb: "echo", args: { message: `m${i}` } }));
  const r = await execSession([PROBE_PACK], lines, ["--concurrency", "16"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.responses.length, 100);
  assert.deepEqual(new Set(r.responses.map((x) => x.id)), new Set(ids));
  for (const resp of r.responses) {
    assert.equal(resp.ok, true);
    const i = typeof resp.id === "number" ? resp.id : Number(String(resp.id).slice(1));
    assert.deepEqual((resp.result as { json: { argv: string[] } }).json.argv, ["echo", `m${i}`], `response ${resp.id} carries its own result`);
  }
});

test("malformed lines get an error each (id null when unknowable); blank lines are skipped; EOF waits for running work", async () => {
  const lines = [
    "not json",
    "[1,2]",
    "",
    JSON.stringify({ pack: "hcp-probe", verb: "quick", args: {} }),
    JSON.stringify({ id: "no-pack", verb: "quick" }),
    JSON.stringify({ id: "extra", pack: "hcp-probe", verb: "quick", args: {}, colour: "blue" }),
    JSON.stringify({ id: "bad-args", pack: "hcp-probe", verb: "quick", args: [] }),
    JSON.stringify({ id: "unknown-pack", pack: "nope", verb: "quick", args: {} }),
    JSON.stringify({ id: "unknown-verb", pack: "hcp-probe", verb: "nope", args: {} }),
    JSON.stringify({ id: "stdin", pack: "hcp-probe", verb: "quick", args: {}, stdin: "ignored" }),
    JSON.stringify({ id: "last-slow", pack: "hcp-probe", verb: "slow", args: {} }),
  ];
  const r = await execSession([PROBE_PACK], lines);
  assert.equal(r.code, 0, r.stderr);
  const byId = new Map(r.responses.filter((x) => x.id !== null).map((x) => [x.id, x]));
  const anonymous = r.responses.filter((x) => x.id === null);
  assert.equal(anonymous.length, 3);
  for (const a of anonymous) assert.deepEqual([a.ok, a.error!.code], [false, "invalid_request"]);
  assert.match(anonymous.map((a) => a.error!.message).join("\n"), /not valid JSON/);
  assert.equal(byId.get("no-pack")!.error!.message, 'pack is missing: give the id of a loaded pack (loaded: "hcp-probe")');
  assert.equal(byId.get("extra")!.error!.message, 'unknown request field "colour" (a request has id, pack, verb, args, dry_run, confirm, stdin; the verb\'s arguments go in args)');
  assert.equal(byId.get("bad-args")!.error!.code, "invalid_request");
  assert.equal(byId.get("unknown-pack")!.error!.code, "unknown_pack");
  assert.equal(byId.get("unknown-verb")!.error!.code, "unknown_verb");
  assert.equal(byId.get("stdin")!.ok, true);
  assert.equal((byId.get("last-slow")!.result as { timed_out: boolean }).timed_out, true, "answered after EOF");
});

test("a request without pack, or with a pack that is not a string, names the loaded pack ids; without verb, the pack's verbs (never a denied one); nothing runs", async () => {
  const lines = [
    JSON.stringify({ id: "none", verb: "echo", args: { message: "x" } }),
    JSON.stringify({ id: "number", pack: 1, verb: "echo", args: { message: "x" } }),
    JSON.stringify({ id: "no-verb", pack: "hcp-probe", args: { message: "x" } }),
    JSON.stringify({ id: "verb-number", pack: "hcp-probe", verb: 1 }),
    JSON.stringify({ id: "no-verb-unknown-pack", pack: "nope" }),
  ];
  const r = await execSession([PROBE_PACK, pack("hcp-secret")], lines);
  assert.equal(r.code, 0, r.stderr);
  const byId = new Map(r.responses.map((x) => [x.id, x]));
  assert.deepEqual(byId.get("none")!.error, { code: "invalid_request", message: 'pack is missing: give the id of a loaded pack (loaded: "hcp-probe", "hcp-secret")' });
  assert.deepEqual(byId.get("number")!.error, { code: "invalid_request", message: 'pack must be a string: give the id of a loaded pack (loaded: "hcp-probe", "hcp-secret")' });
  const verbs = "verbs: echo, fail, slow, quick, write, transfer, sleeper";
  assert.deepEqual(byId.get("no-verb")!.error, { code: "invalid_request", message: `verb is missing (${verbs})` });
  assert.deepEqual(byId.get("verb-number")!.error, { code: "invalid_request", message: `verb must be a string (${verbs})` });
  assert.deepEqual(byId.get("no-verb-unknown-pack")!.error, { code: "invalid_request", message: "verb is missing" });
});

test("stdin reaches the child; a pass-through pack excluding json_exec is refused at start", async () => {
  const { responses } = await execSession([PROBE_PACK], [JSON.stringify({ id: 1, pack: "hcp-probe", verb: "echo", args: { message: "x" }, stdin: "in" })]);
  assert.equal(responses[0]!.ok, true);
  const refused = await execSession([pack("hcp-cli-only")], []);
  assert.equal(refused.code, 4);
  assert.equal(refused.stderr, 'Error: pack "hcp-cli-only" does not allow the json_exec transport (its surface.json transports: cli)\n');
  const bad = await execSession([PROBE_PACK], [], ["--concurrency", "0"]);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^Error: --concurrency must be an integer/);
});

test("in a folder of packs, one whose transports exclude json_exec is skipped (and named); named directly, it is refused", async () => {
  const dir = tempDir("hcp-mixed-");
  const write = (name: string, extra: object) => {
    mkdirSync(join(dir, name));
    const surface = { id: name, kind: "wrap", wrap: { bin: PROBE }, verbs: { quick: { description: "Quick.", cli: ["probe", "run", "print:ok"], policy: "read" } }, ...extra };
    writeFileSync(join(dir, name, "surface.json"), JSON.stringify(surface));
    writeFileSync(join(dir, name, "policy.json"), JSON.stringify({ surface_id: name, verbs: { quick: "read" } }));
  };
  write("open", {});
  write("cli-only", { transports: ["cli"] });
  const r = await execSession([dir], [JSON.stringify({ id: 1, pack: "open", verb: "quick", args: {} })]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual([r.responses[0]?.id, r.responses[0]?.ok], [1, true]);
  assert.match(r.stderr, /skipped .*cli-only: pack "cli-only" does not allow the json_exec transport/);
  const direct = await execSession([join(dir, "cli-only")], []);
  assert.equal(direct.code, 4);
});
