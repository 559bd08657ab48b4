import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, symlinkSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadPack } from "../../src/pack/load.js";
import type { LoadedPack } from "../../src/pack/types.js";
import { executeVerb, planVerb, runPassThrough, argsSchemaOf, isDryRun, type ExecResult, type DryRun } from "../../src/runtime/execute.js";
import { RuntimeError } from "../../src/runtime/errors.js";
import type { Plan } from "../../src/runtime/plan.js";
import { PROBE, alive, eventually, tempDir, writePack, writeCredentials } from "./support.js";

const SECRET = 'tok-"9f8e\\7d6c';
const credFile = writeCredentials({ probe: { env: { PROBE_TOKEN: SECRET } } });
const gcFile = join(tempDir(), "gc.pid");
const hangFile = join(tempDir(), "hang.pid");

/** The runtime's environment in these tests: PATH for the probe's shebang, a credential file, noise. */
const STATE = tempDir("hcp-state-");
const ENV = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: "/home/tester",
  XDG_STATE_HOME: STATE,
  HCP_AUDIT: join(STATE, "audit.jsonl"),
  HCP_CREDENTIALS: credFile,
  UNRELATED_PARENT_VAR: "must-not-leak",
  PROBE_HOME: "/srv/probe",
};

function load(root: string): LoadedPack {
  const pack = loadPack(root);
  assert.ok(pack.ok, JSON.stringify(pack.issues));
  return pack;
}

const probePack = load(
  writePack(
    {
      id: "probe",
      kind: "wrap",
      cliBin: "probe",
      binding: { mode: "local", hub: "local-credential", family: "probe" },
      wrap: { bin: PROBE, agent_env: { PROBE_MODE: "agent" } },
      pass_through: { allowedSubcommands: ["run", "show"], maxArgv: 3 },
      verbs: {
        show: { description: "Echo.", cli: ["probe", "show", "{{target}}", "--format={{format}}"] },
        tagged: {
          description: "Typed args.",
          cli: ["probe", "tag", "--", "{{names}}", "--n={{n}}"],
          args: { type: "object", properties: { names: { type: "array", items: { type: "string" } }, n: { type: "integer" } }, required: ["names"], additionalProperties: false },
        },
        leak: { description: "Prints the credential.", cli: ["probe", "run", "env:PROBE_TOKEN", "print:the end"] },
        slow: { description: "Outlives its timeout.", cli: ["probe", "run", `grandchild:60000:${gcFile}`, "sleep:60000"] },
        hang: { description: "Waits to be cancelled.", cli: ["probe", "run", `grandchild:60000:${hangFile}`, "sleep:60000"] },
        flood: { description: "Floods.", cli: ["probe", "run", "out:5000000"] },
        fail: { description: "Fails.", cli: ["probe", "run", "print:oops", "exit:7"] },
        "setup.status": { description: "Uses the argv template." },
        transfer: { description: "Gated.", cli: ["probe", "transfer", "{{amount}}", "--to={{payee}}"], policy: "write" },
        remove: { description: "Plain write.", cli: ["probe", "rm", "{{path}}"], policy: "write" },
        nuke: { description: "Denied.", cli: ["probe", "nuke"] },
      },
    },
    {
      surface_id: "probe",
      default: "read",
      verbs: {
        transfer: { policy: "write", confirm: true },
        remove: "write",
        nuke: "deny",
        // Long enough for a loaded machine to start the (node) probe and its grandchild before the timeout.
        slow: { policy: "read", timeout_ms: 5000 },
        flood: { policy: "read", max_output_bytes: 1000 },
      },
      pass_through: "read",
      env: ["PROBE_HOME"],
    },
  ),
);

async function run(verb: string, args: object = {}, opts: object = {}): Promise<ExecResult> {
  const r = await executeVerb(probePack, verb, args, { env: ENV, ...opts });
  assert.ok(!isDryRun(r) && "argv" in r);
  return r;
}

async function rejects(p: Promise<unknown> | (() => unknown), code: string, message?: RegExp): Promise<void> {
  const check = (e: unknown): boolean => {
    assert.ok(e instanceof RuntimeError, String(e));
    assert.equal(e.code, code, e.message);
    if (message) assert.match(e.message, message);
    return true;
  };
  if (typeof p === "function") assert.throws(p, check);
  else await assert.rejects(p, check);
}

test("a read verb runs: the §6.5 result, argv from the template, stdout parsed as JSON", async () => {
  const r = await run("show", { target: "a b; $(id)", format: "json" });
  assert.deepEqual(Object.keys(r), [
    "pack", "verb", "argv", "exit_code", "signal", "timed_out", "duration_ms", "stdout", "stderr",
    "stdout_bytes", "stderr_bytes", "stdout_truncated", "stderr_truncated", "json",
  ]);
  assert.equal(r.pack, "probe");
  assert.equal(r.verb, "show");
  assert.deepEqual(r.argv, [PROBE, "show", "a b; $(id)", "--format=json"]);
  assert.equal(r.exit_code, 0);
  assert.deepEqual((r.json as { argv: string[] }).argv, ["show", "a b; $(id)", "--format=json"]);
  const dropped = await run("show", { target: "x" });
  assert.deepEqual(dropped.argv, [PROBE, "show", "x"]);
});

test("the child environment is minimal; a credential reaches the child but never the result", async () => {
  // An entry of PATH inside the folder the verb runs in (a project's node_modules/.bin) never reaches the child, nor
  // does a relative one.
  const folder = tempDir("hcp-workspace-");
  const r = await run("show", { target: "x" }, { env: { ...ENV, PATH: `${join(folder, "node_modules", ".bin")}:bin:${ENV.PATH}` }, cwd: folder });
  const env = (r.json as { env: Record<string, string> }).env;
  assert.deepEqual(env, {
    PATH: ENV.PATH.split(":").filter((dir) => dir.startsWith("/")).join(":"),
    HOME: "/home/tester",
    PROBE_HOME: "/srv/probe",
    PROBE_MODE: "agent",
    HCP_PACK_ID: "probe",
    HCP_VERB: "show",
    HCP_BINDING_MODE: "local",
    HCP_BINDING_FAMILY: "probe",
    PROBE_TOKEN: "***",
    // The run's mark (src/runtime/process/run-mark.ts): random, checked in test/runtime/process.test.ts.
    HCP_RUN_ID: env["HCP_RUN_ID"]!,
  });
  assert.ok(!r.stdout.includes("must-not-leak"));
  // the child saw the real value (it printed it), the result shows only the mask
  const leak = await run("leak");
  assert.equal(leak.stdout, "***\nthe end\n");
  const all = JSON.stringify([r, leak]);
  for (const form of [SECRET, JSON.stringify(SECRET).slice(1, -1), "9f8e"]) assert.ok(!all.includes(form), form);
  // an agent passing the secret as an argument does not see it echoed either
  const echoed = await run("show", { target: SECRET });
  assert.ok(!JSON.stringify(echoed).includes("9f8e"));
  assert.deepEqual(echoed.argv, [PROBE, "show", "***"]);
  // nor in a plan, a dry run or a refusal that quotes the argument; the credential in the plan's env is its keyed digest
  const planned = (await planVerb(probePack, "remove", { path: SECRET }, { env: ENV })).plan as Plan;
  assert.deepEqual(planned.argv, [PROBE, "rm", "***"]);
  assert.match(planned.env["PROBE_TOKEN"]!, /^hmac-sha256:[0-9a-f]{64}$/);
  // (a keyed digest is random hex, which may hold "9f8e" by chance: about one plan in a thousand did)
  assert.ok(!JSON.stringify(planned).replace(/hmac-sha256:[0-9a-f]{64}/g, "hmac-sha256:…").includes("9f8e"));
  await assert.rejects(executeVerb(probePack, "show", { target: `-${SECRET}` }, { env: ENV }), (e: unknown) => {
    return e instanceof RuntimeError && e.code === "flag_injection" && !e.message.includes("9f8e") && e.message.includes("***");
  });
});

test("a wrap verb without cli runs wrap.argv_template, {{verb}} split on dots", async () => {
  const r = await run("setup.status");
  assert.deepEqual((r.json as { argv: string[] }).argv, ["setup", "status"]);
});

test("arguments are validated against the verb's schema or the derived one", async () => {
  const r = await run("tagged", { names: ["-a", "b c"], n: 3 });
  assert.deepEqual(r.argv.slice(1), ["tag", "--", "-a", "b c", "--n=3"]);
  await rejects(run("tagged", { names: ["a"], n: "3" }), "invalid_args", /argument "n": must be integer/);
  await rejects(run("show", {}), "invalid_args", /argument "target" is required/);
  await rejects(run("show", { target: "x", extra: 1 }), "invalid_args", /unknown argument "extra"/);
  await rejects(run("show", { target: 5 }), "invalid_args", /must be string/);
  await rejects(run("show", [] as unknown as object), "invalid_args", /JSON object/);
  await rejects(run("show", { target: "-rf" }), "flag_injection");
  await rejects(run("show", { target: "a\0b" }), "nul_in_argument");
  assert.deepEqual(argsSchemaOf(probePack, "show"), {
    type: "object",
    properties: { target: { type: "string" }, format: { type: "string" } },
    required: ["target"],
    additionalProperties: false,
  });
});

test("a plan names the pack files as they were loaded: their SHA-256; once they change on disk, the pack loaded before runs nothing more (pack_changed), and a plan of it confirms no call of the pack loaded again", async () => {
  const surface = { id: "stamp", kind: "wrap", cliBin: "probe", binding: { mode: "local", hub: "none" }, wrap: { bin: PROBE }, verbs: { show: { description: "Echo.", cli: ["probe", "show"] } } };
  const root = writePack(surface, { surface_id: "stamp", default: "read", verbs: { show: { policy: "read", confirm: "plan" } } });
  const sha256 = (file: string) => createHash("sha256").update(readFileSync(join(root, file))).digest("hex");
  const loaded = { surface: sha256("surface.json"), policy: sha256("policy.json") };
  const pack = load(root);
  const dry = await planVerb(pack, "show", {}, { env: ENV });
  assert.equal(dry.plan.root, root);
  assert.equal(dry.plan.surface_sha256, loaded.surface);
  assert.equal(dry.plan.policy_sha256, loaded.policy);
  assert.deepEqual(JSON.parse(JSON.stringify(dry.plan)), { ...dry.plan }, "the stamp is in the plan's JSON");
  // Swapped after loading: the pack as loaded runs nothing more, its plan_id given or not.
  writeFileSync(join(root, "surface.json"), JSON.stringify({ ...surface, name: "swapped" }));
  writeFileSync(join(root, "policy.json"), JSON.stringify({ surface_id: "stamp", default: "read", verbs: { show: { policy: "read", confirm: "plan" } } }));
  await rejects(executeVerb(pack, "show", {}, { env: ENV, confirm: dry.plan_id }), "pack_changed", /changed since this server loaded it \(surface\.json\)/);
  const reloaded = await planVerb(load(root), "show", {}, { env: ENV });
  assert.notEqual(reloaded.plan.surface_sha256, loaded.surface);
  assert.notEqual(reloaded.plan.policy_sha256, loaded.policy);
  await rejects(executeVerb(load(root), "show", {}, { env: ENV, confirm: dry.plan_id }), "confirmation_mismatch", /what differs: surface_sha256, policy_sha256\)/);
});

test("policy: deny never runs, write needs allowWrite, unknown verbs are refused", async () => {
  await rejects(run("nuke"), "denied", /denied by policy/);
  await rejects(run("remove", { path: "x" }), "write_not_allowed", /--allow-write/);
  const ok = await run("remove", { path: "x" }, { allowWrite: true });
  assert.equal(ok.exit_code, 0);
  await rejects(run("nope"), "unknown_verb", /has no verb "nope"/);
});

test("a confirm: true plan needs a person: the agent's own dry run and plan_id are not enough; the plan covers what runs", async () => {
  const args = { amount: "10", payee: "bob" };
  // A dry run needs no --allow-write: it runs nothing.
  const dry = (await executeVerb(probePack, "transfer", args, { env: ENV, dryRun: true })) as DryRun;
  assert.ok(isDryRun(dry));
  assert.match(dry.plan_id, /^hcp1\.[0-9]+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
  const { env, ...rest } = dry.plan as Plan;
  assert.deepEqual(rest, {
    pack: "probe",
    verb: "transfer",
    argv: [PROBE, "transfer", "10", "--to=bob"],
    policy: { policy: "write", confirm: "person", timeout_ms: 60000, max_output_bytes: 1048576 },
    stdin: null,
    cwd: process.cwd(),
    root: probePack.root,
    surface_sha256: probePack.sha256!.surface,
    policy_sha256: probePack.sha256!.policy,
  });
  assert.deepEqual(Object.keys(env).sort(), ["HCP_BINDING_FAMILY", "HCP_BINDING_MODE", "HCP_PACK_ID", "HCP_VERB", "PROBE_HOME", "PROBE_MODE", "PROBE_TOKEN"]);
  await rejects(run("transfer", args, { allowWrite: true }), "approval_required", /hcp approve hcp1\./);
  await rejects(run("transfer", args, { allowWrite: true, confirm: dry.plan_id }), "approval_required", new RegExp(`hcp approve ${dry.plan_id.replaceAll(".", "\\.")}`));
  const other = await planVerb(probePack, "transfer", { amount: "10", payee: "mallory" }, { env: ENV });
  // What differs is named down to the item, as the plans stand, so that the agent can tell what it changed.
  await rejects(run("transfer", args, { allowWrite: true, confirm: other.plan_id }), "confirmation_mismatch", /\(what differs: argv\[3\]\)/);
  // Another stdin is another plan.
  await rejects(run("transfer", args, { allowWrite: true, confirm: dry.plan_id, stdin: "x" }), "confirmation_mismatch", /what differs: stdin/);
  // Without --allow-write the write is refused before any approval is asked for.
  await rejects(run("transfer", args, { confirm: dry.plan_id }), "write_not_allowed");
});

test("limits come from the effective policy: the timeout kills the group, output is capped", async () => {
  const r = await run("slow");
  assert.equal(r.timed_out, true);
  assert.equal(r.exit_code, null);
  assert.equal(r.signal, "SIGTERM");
  assert.ok(existsSync(gcFile), "the program started its grandchild before the timeout");
  const gc = Number(readFileSync(gcFile, "utf8"));
  assert.ok(await eventually(() => !alive(gc)), `grandchild ${gc} survived`);
  const f = await run("flood");
  // the cut loses 6 × (longest secret) − 1 bytes more, whatever they are (§12)
  assert.equal(f.stdout.length, 1000 - (6 * SECRET.length - 1));
  assert.equal(f.stdout_bytes, 5_000_000);
  assert.equal(f.stdout_truncated, true);
  assert.equal(f.json, undefined);
});

test("failures are reported as results; cancellation kills the group and rejects", async () => {
  const r = await run("fail");
  assert.equal(r.exit_code, 7);
  assert.equal(r.stdout, "oops\n");
  const ac = new AbortController();
  // Cancel once the grandchild exists, however slowly the machine starts the program (the verb's timeout is the default).
  void eventually(() => existsSync(hangFile), 30_000).then(() => ac.abort());
  await rejects(run("hang", {}, { signal: ac.signal }), "cancelled");
  const gc = Number(readFileSync(hangFile, "utf8"));
  assert.ok(await eventually(() => !alive(gc)), `grandchild ${gc} survived`);
});

test("pass-through: allowed subcommands, at most maxArgv tokens, its own policy", async () => {
  const r = (await runPassThrough(probePack, ["show", "--anything", "x"], { env: ENV })) as ExecResult;
  assert.equal(r.verb, null);
  assert.deepEqual((r.json as { argv: string[] }).argv, ["show", "--anything", "x"]);
  assert.equal((r.json as { env: Record<string, string> }).env["HCP_VERB"], undefined);
  await rejects(runPassThrough(probePack, ["rm", "x"], { env: ENV }), "subcommand_not_allowed", /"rm" is not allowed; pack "probe" allows "run", "show"/);
  await rejects(runPassThrough(probePack, [], { env: ENV }), "subcommand_not_allowed");
  await rejects(runPassThrough(probePack, ["show", "a", "b", "c"], { env: ENV }), "too_many_arguments");
  await rejects(runPassThrough(probePack, ["show", "a\0"], { env: ENV }), "nul_in_argument");
  const noPolicy = load(
    writePack({ id: "pt", kind: "wrap", wrap: { bin: PROBE }, pass_through: { allowedSubcommands: ["show"], maxArgv: 2 }, verbs: {} }),
  );
  await rejects(runPassThrough(noPolicy, ["show"], { env: ENV }), "denied", /pass-through of pack "pt" is denied/);
  await rejects(runPassThrough(load(writePack({ id: "np", kind: "wrap", wrap: { bin: PROBE }, verbs: { a: { description: "A.", cli: ["x"], policy: "read" } } })), ["a"], { env: ENV }), "not_executable");
});

test("programs: .-prefixed paths from the pack root, bare names on PATH, composite cli[0], clear errors", async () => {
  const root = writePack({
    id: "comp",
    kind: "composite",
    verbs: {
      rel: { description: "Relative.", cli: ["./bin/probe.mjs", "rel"], policy: "read" },
      onpath: { description: "On PATH.", cli: ["probe.mjs", "p"], policy: "read" },
      missing: { description: "Missing.", cli: ["no-such-program-xyz"], policy: "read" },
      gone: { description: "Missing file.", cli: ["./bin/gone"], policy: "read" },
      dotted: { description: "Dot-prefixed, no slash.", cli: [".probe", "dot"], policy: "read" },
    },
  });
  mkdirSync(join(root, "bin"));
  symlinkSync(PROBE, join(root, "bin", "probe.mjs"));
  symlinkSync(PROBE, join(root, ".probe"));
  const pack = load(root);
  const rel = (await executeVerb(pack, "rel", {}, { env: ENV })) as ExecResult;
  assert.deepEqual(rel.argv, [join(root, "bin", "probe.mjs"), "rel"]);
  assert.deepEqual((rel.json as { argv: string[] }).argv, ["rel"]);
  const env = { ...ENV, PATH: `${dirname(PROBE)}:${ENV.PATH}` };
  // Run in the pack's folder: the probe's, in this checkout, is then not in the folder the verb runs in.
  const onpath = (await executeVerb(pack, "onpath", {}, { env, cwd: root })) as ExecResult;
  assert.equal(onpath.argv[0], PROBE);
  // Run in the checkout, it is: not looked up there.
  await rejects(executeVerb(pack, "onpath", {}, { env, cwd: dirname(dirname(PROBE)) }), "program_not_found", /"probe\.mjs" is on PATH only at ".*", in the folder it would run in .*: hcp does not look programs up there/);
  await rejects(executeVerb(pack, "missing", {}, { env }), "program_not_found", /"no-such-program-xyz" was not found on PATH/);
  await rejects(executeVerb(pack, "gone", {}, { env }), "spawn_failed", /ENOENT/);
  // `.probe` is the pack's own program, never one of that name on PATH
  const dotted = (await executeVerb(pack, "dotted", {}, { env })) as ExecResult;
  assert.deepEqual(dotted.argv, [join(root, ".probe"), "dot"]);
});

test("sense_only packs are listed but not executable; an openapi pack needs its document loaded; invalid packs never run", async () => {
  const api = load(writePack({ id: "api", kind: "openapi", openapi: { url: "https://example.com/openapi.json" }, verbs: { get: { description: "Get.", policy: "read" } } }));
  await rejects(executeVerb(api, "get", {}, { env: ENV }), "not_executable", /OpenAPI document of pack "api" is not loaded/);
  const sense = load(writePack({ id: "sense", kind: "sense_only", stimulusTriggers: [{ ref: "inbox" }], verbs: {} }));
  await rejects(executeVerb(sense, "anything", {}, { env: ENV }), "not_executable", /sense_only: it has nothing to execute/);
  const broken = loadPack(writePack({ id: "broken", kind: "wrap", wrap: { bin: PROBE }, verbs: { a: { description: "A.", cli: ["x"] } } }, { surface_id: "broken", verbs: { a: "read" }, bogus: true }));
  assert.equal(broken.ok, false);
  await rejects(executeVerb(broken, "a", {}, { env: ENV }), "invalid_pack", /validation errors/);
});

test("credential problems stop the run before anything starts; mock mode loads nothing", async () => {
  const root = writePack(
    { id: "cred", kind: "wrap", binding: { mode: "local", hub: "local-credential", family: "cred" }, wrap: { bin: PROBE }, verbs: { a: { description: "A.", cli: ["x"] } } },
    { surface_id: "cred", default: "read" },
  );
  await rejects(executeVerb(load(root), "a", {}, { env: { ...ENV, HCP_CREDENTIALS: writeCredentials({ cred: { env: { T: "v" } } }, 0o644) } }), "credentials_insecure");
  const mock = load(
    writePack(
      { id: "mock", kind: "wrap", binding: { mode: "mock", hub: "local-credential", family: "probe" }, wrap: { bin: PROBE }, verbs: { a: { description: "A.", cli: ["x"] } } },
      { surface_id: "mock", default: "read" },
    ),
  );
  const r = (await executeVerb(mock, "a", {}, { env: ENV })) as ExecResult;
  const env = (r.json as { env: Record<string, string> }).env;
  assert.equal(env["HCP_BINDING_MODE"], "mock");
  assert.equal(env["PROBE_TOKEN"], undefined);
});
