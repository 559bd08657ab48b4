// An agent chooses argument values: against a schema pattern with nested repetition (`^([a-z]+)+$`, as in hand-written
// e-mail and URL patterns and as OpenAPI documents carry them), a value that almost matches takes a backtracking
// engine time exponential in its length (2^40 steps for 40 letters and a `!`), during which hcp would answer nothing,
// handle no signal and end no run at its timeout. hcp matches patterns in linear time (RE2): every such call is
// answered invalid_args at once on hcp run, hcp exec and hcp serve --mcp, the program never runs, and the server
// answers the next call. A pattern hcp cannot match in linear time (lookaround, backreferences) is a validation error.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { execSession, hcp, mcpClient, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack, witness } from "./hardening.js";
import { trustPack } from "./helpers.js";

/** Far more than a linear-time answer needs on a loaded machine, far less than 2^40 backtracking steps take. */
const PROMPT_MS = 20_000;
/** A run still going after this is killed, so that a regression fails instead of hanging the suite. */
const HANG_GUARD = { timeoutMs: 120_000 };

const ATTACK = `${"a".repeat(40)}!`;
const PATTERNS: Record<string, string> = { nested: "^([a-z]+)+$", either: "^(a|a)*$", words: "^(\\w+\\s?)*$" };
const refusal = (verb: string) => `invalid arguments for verb "${verb}": argument "v": must match pattern "${PATTERNS[verb]!}"`;

/** A pack with one verb per catastrophic pattern, each running the probe, which records that it ran. */
function redosPack() {
  const witnesses = Object.fromEntries(Object.keys(PATTERNS).map((verb) => [verb, witness()]));
  const verbs = Object.fromEntries(
    Object.entries(PATTERNS).map(([verb, pattern]) => [
      verb,
      { description: "Record the run.", cli: ["probe", "run", `pid:${witnesses[verb]!.path}`, "print:ran"], args: { type: "object", properties: { v: { type: "string", pattern } }, required: ["v"] }, policy: "read" },
    ]),
  );
  return { root: probePack("redos", verbs), witnesses };
}

async function timed<T>(call: () => Promise<T>): Promise<[T, number]> {
  const start = Date.now();
  const result = await call();
  return [result, Date.now() - start];
}

test("hcp run: a value crafted against nested repetition is refused invalid_args at once, and the program never runs", async () => {
  const env = isolatedEnv();
  const { root, witnesses } = redosPack();
  for (const verb of Object.keys(PATTERNS)) {
    const [r, ms] = await timed(() => hcp(["run", root, verb, "--arg", `v=${ATTACK}`], { env, ...HANG_GUARD }));
    assert.deepEqual([r.code, r.stderr, r.stdout], [1, `Error: ${refusal(verb)}\n`, ""], verb);
    assert.ok(ms < PROMPT_MS, `${verb}: answered after ${ms} ms`);
    assert.equal(witnesses[verb]!.ran(), false, `${verb}: the program ran`);
  }
  // The witness is real: a matching value runs.
  const ok = await hcp(["run", root, "nested", "--arg", "v=abc"], { env, ...HANG_GUARD });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(witnesses["nested"]!.ran(), true);
});

test("hcp exec: each crafted value is answered invalid_args at once, and the session answers the next request", async () => {
  const env = isolatedEnv();
  const { root, witnesses } = redosPack();
  const lines = [...Object.keys(PATTERNS).map((verb, i) => JSON.stringify({ id: i, pack: "redos", verb, args: { v: ATTACK } })), JSON.stringify({ id: "after", pack: "redos", verb: "words", args: { v: "two words" } })];
  const [r, ms] = await timed(() => execSession([root], lines, [], { env, ...HANG_GUARD }));
  assert.equal(r.timedOut, false);
  assert.ok(ms < PROMPT_MS * 2, `answered after ${ms} ms`);
  assert.deepEqual(
    r.responses.slice(0, 3).map((x) => [x.id, x.ok, x.error?.code, x.error?.message]),
    Object.keys(PATTERNS).map((verb, i) => [i, false, "invalid_args", refusal(verb)]),
  );
  assert.equal(witnesses["nested"]!.ran() || witnesses["either"]!.ran(), false, "a refused call ran");
  assert.deepEqual([r.responses[3]?.id, r.responses[3]?.ok, r.responses[3]?.result?.["stdout"]], ["after", true, "ran\n"]);
});

test("hcp serve --mcp: a crafted value is an invalid_args result at once, and the server answers the next call", async () => {
  const env = isolatedEnv();
  const { root, witnesses } = redosPack();
  const { client } = await mcpClient([root], { env });
  try {
    for (const verb of Object.keys(PATTERNS)) {
      // The SDK gives up on a request unanswered after `timeout`: a server stalled in a backtracking match fails here.
      const [r, ms] = await timed(() => client.callTool({ name: `redos_${verb}`, arguments: { v: ATTACK } }, undefined, { timeout: PROMPT_MS }));
      assert.equal(r.isError, true, verb);
      assert.deepEqual((r.structuredContent as { error: { code: string; message: string } }).error, { code: "invalid_args", message: refusal(verb) });
      assert.ok(ms < PROMPT_MS, `${verb}: answered after ${ms} ms`);
      assert.equal(witnesses[verb]!.ran(), false, `${verb}: the program ran`);
    }
    const next = await client.callTool({ name: "redos_nested", arguments: { v: "abc" } }, undefined, { timeout: PROMPT_MS });
    assert.equal(next.isError, undefined, JSON.stringify(next));
    assert.equal(witnesses["nested"]!.ran(), true);
  } finally {
    await client.close();
  }
});

test("hcp validate: a pattern hcp cannot match in linear time is an error naming the file, the pattern's JSON path and why", async () => {
  const env = isolatedEnv();
  const root = probePack("lookaround", {
    mail: { description: "Mail.", cli: ["probe", "{{to}}"], args: { type: "object", properties: { to: { type: "string", pattern: "^(?=[^@]+@)\\S+$" } } }, policy: "read" },
    quote: { description: "Quote.", cli: ["probe"], args: { type: "object", patternProperties: { "^(['\"]).*\\1$": { type: "string" } } }, policy: "read" },
  });
  const r = await hcp(["validate", root], { env, ...HANG_GUARD });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const tail = "(hcp matches patterns with RE2, which has no lookaround or backreferences)";
  assert.ok(
    r.stdout.includes(`error: ${root}/surface.json: verbs["mail"].args.properties.to.pattern: invalid_meta: pattern "^(?=[^@]+@)\\\\S+$" cannot be matched in linear time: it has a lookahead, (?=…) or (?!…), which needs backtracking ${tail}\n`),
    r.stdout,
  );
  assert.ok(
    r.stdout.includes(`error: ${root}/surface.json: verbs["quote"].args.patternProperties["^(['\\"]).*\\\\1$"]: invalid_meta: pattern "^(['\\"]).*\\\\1$" cannot be matched in linear time: it has a backreference (\\1), which needs backtracking ${tail}\n`),
    r.stdout,
  );
  assert.ok(r.stdout.endsWith("1 pack: 0 valid, 1 invalid; 2 errors, 0 warnings\n"), r.stdout);
});

const OPENAPI = {
  openapi: "3.0.3",
  info: { title: "Redos", version: "1" },
  servers: [{ url: "http://127.0.0.1:9/" }],
  paths: {
    "/users/{name}": {
      get: {
        operationId: "users.get",
        parameters: [
          { name: "name", in: "path", required: true, schema: { type: "string", pattern: "^([a-z]+)+$" } },
          { name: "email", in: "query", schema: { type: "string", pattern: "^(?=[^@]+@).+$" } },
        ],
        responses: { "200": { description: "The user." } },
      },
    },
  },
};
const EMAIL_REFUSED = 'pattern "^(?=[^@]+@).+$" cannot be matched in linear time: it has a lookahead, (?=…) or (?!…), which needs backtracking (hcp matches patterns with RE2, which has no lookaround or backreferences)';

test("an OpenAPI document's patterns: hcp init leaves out one it cannot match (saying so) and the pack validates; a pack whose document has one fails; a crafted value is refused at once and nothing is sent", async () => {
  const env = isolatedEnv();
  const doc = join(tempDir("hcp-redos-doc-"), "api.json");
  writeFileSync(doc, JSON.stringify(OPENAPI));
  const out = join(tempDir("hcp-redos-init-"), "redos");
  const init = await hcp(["init", "--from-openapi", doc, "--out", out], { env, ...HANG_GUARD });
  assert.equal(init.code, 0, init.stderr);
  assert.ok(init.stderr.includes(`note: verb "users.get": args.properties.email.pattern left out (surface.json gives the verb its arguments without it): ${EMAIL_REFUSED}\n`), init.stderr);
  const v = await hcp(["validate", out], { env, ...HANG_GUARD });
  assert.equal(v.code, 0, v.stdout + v.stderr);

  // The same document in a pack whose verb takes its arguments from it: a validation error at the verb.
  const handWritten = tempDir("hcp-redos-openapi-");
  writeFileSync(join(handWritten, "api.json"), JSON.stringify(OPENAPI));
  writeFileSync(join(handWritten, "surface.json"), JSON.stringify({ id: "redos", kind: "openapi", openapi: { path: "api.json" }, binding: { mode: "public", hub: "none" }, verbs: { "users.get": { description: "Get a user." } } }));
  writeFileSync(join(handWritten, "HARNESS.md"), "---\nname: redos\ndescription: Test pack.\n---\n\nTest pack.\n");
  const bad = await hcp(["validate", handWritten], { env, ...HANG_GUARD });
  assert.equal(bad.code, 1, bad.stdout + bad.stderr);
  assert.ok(bad.stdout.includes(`error: ${handWritten}/surface.json: verbs["users.get"]: invalid_meta: the arguments the OpenAPI document gives it, at args.properties.email.pattern: ${EMAIL_REFUSED}\n`), bad.stdout);

  // The pattern hcp matches is matched in linear time: the crafted value is invalid_args at once, and no request leaves.
  let requests = 0;
  const api = createServer((_req, res) => {
    requests++;
    res.end("{}");
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  try {
    writeFileSync(join(out, "policy.json"), JSON.stringify({ surface_id: "redos", verbs: { "users.get": "read" }, openapi: { base_url: `http://127.0.0.1:${(api.address() as { port: number }).port}/` } }));
    await trustPack(out, env);
    const [r, ms] = await timed(() => hcp(["run", out, "users.get", "--arg", `name=${ATTACK}`], { env, ...HANG_GUARD }));
    assert.deepEqual([r.code, r.stderr], [1, `Error: invalid arguments for verb "users.get": argument "name": must match pattern "^([a-z]+)+$"\n`]);
    assert.ok(ms < PROMPT_MS, `answered after ${ms} ms`);
    assert.equal(requests, 0);
    const ok = await hcp(["run", out, "users.get", "--arg", "name=ada", "--arg", "email=(?=x"], { env, ...HANG_GUARD });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(requests, 1);
  } finally {
    api.close();
  }
});
