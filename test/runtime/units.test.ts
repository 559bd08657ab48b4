import { test } from "node:test";
import assert from "node:assert/strict";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { childEnv } from "../../src/runtime/env.js";
import { searchedEntries, skippedEntries, withSearchedPath } from "../../src/runtime/search-path.js";
import { cutTruncatedTail, redact, redactEnvelope, redactText, secretSet } from "../../src/runtime/secrets/redact.js";
import { argSecrets } from "../../src/runtime/secrets/secrets.js";
import { loadCredentials, credentialFilePath } from "../../src/runtime/secrets/credentials.js";
import { canonicalPlanJSON, type Plan } from "../../src/runtime/plan.js";
import { issuePlanId, parsePlanId, planIdMatches } from "../../src/runtime/approval/plan-id.js";
import { CredentialError, RuntimeError } from "../../src/runtime/errors.js";
import { writeFileSync } from "node:fs";
import { writeCredentials } from "./support.js";

test("child env: allowlist from the parent, then policy env, agent_env, binding variables, credentials", () => {
  const env = childEnv({
    parent: { PATH: "/bin", HOME: "/h", SECRET_OF_PARENT: "x", LEDGER_HOME: "/l", LANG: undefined },
    policyEnv: ["LEDGER_HOME", "NOT_SET"],
    agentEnv: { MODE: "agent", PATH: "/pack/bin" },
    packId: "ledger",
    verb: "setup.status",
    bindingMode: "local",
    credentials: { TOKEN: "t" },
  });
  assert.deepEqual(env, {
    PATH: "/pack/bin",
    HOME: "/h",
    LEDGER_HOME: "/l",
    MODE: "agent",
    HCP_PACK_ID: "ledger",
    HCP_VERB: "setup.status",
    HCP_BINDING_MODE: "local",
    TOKEN: "t",
  });
});

test("search path: absolute entries outside the agent's folder only; none left, no PATH (an empty one is the working folder)", () => {
  const ws = join(tmpdir(), "hcp-unit-ws");
  assert.deepEqual(searchedEntries("node_modules/.bin::/usr/bin:.:bin:/bin:"), ["/usr/bin", "/bin"]);
  assert.deepEqual(searchedEntries(`${ws}/.venv/bin:/usr/bin:${ws}:${ws}2/bin:${ws}/../x/bin`, [ws]), ["/usr/bin", `${ws}2/bin`, `${ws}/../x/bin`]);
  assert.deepEqual(skippedEntries(`${ws}/.venv/bin:/usr/bin:bin:`, ws), [`${ws}/.venv/bin`, `${ws}/bin`]);
  assert.equal(withSearchedPath({ PATH: `.:node_modules/.bin:${ws}/bin:` }, [ws])["PATH"], undefined);
  assert.equal(withSearchedPath({ PATH: "/opt/tool/bin:bin" }, [ws])["PATH"], "/opt/tool/bin");
  // The home folder, or a folder holding it, is no workspace of its own: its entries stay.
  assert.deepEqual(searchedEntries(`${homedir()}/bin:/usr/bin`, [homedir()]), [`${homedir()}/bin`, "/usr/bin"]);
  assert.deepEqual(searchedEntries(`${homedir()}/bin:/usr/bin`, ["/"]), [`${homedir()}/bin`, "/usr/bin"]);
});

test("redaction: text, escaped JSON forms, Buffers, deep values and keys, truncated tails", () => {
  const secrets = ["s3cr3t-value", 'q"uo\\te', ""];
  assert.equal(redactText("a s3cr3t-value b s3cr3t-value", secrets), "a *** b ***");
  assert.equal(redactText(JSON.stringify({ k: 'q"uo\\te' }), secrets), '{"k":"***"}');
  assert.equal(redact(Buffer.from("x s3cr3t-value"), secrets), "x ***");
  assert.deepEqual(redact({ list: ["s3cr3t-value", 1, null], ["s3cr3t-value"]: { deep: 'q"uo\\te!' } }, secrets), {
    list: ["***", 1, null],
    "***": { deep: "***!" },
  });
  assert.equal(redactText("nothing", []), "nothing");
  const proto = redact(JSON.parse('{"__proto__": "s3cr3t-value"}'), secrets) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value, "***");
});

test("redaction of an envelope: hcp's field names are kept, every value is masked, foreign data keys and all", () => {
  const secrets = secretSet(["x", "exit_code", "policy"]);
  const result = { exit_code: 0, verb: "x", json: { x: { exit_code: "x" } }, policy: { max_output_bytes: 1, policy: "policy" } };
  assert.deepEqual(redactEnvelope(result, secrets, { policy: {} }), {
    exit_code: 0,
    verb: "***",
    json: { "***": { "***": "***" } },
    policy: { max_output_bytes: 1, policy: "***" },
  });
  // Unnamed in the layout, a field's value is foreign however it looks; "public" constants are kept.
  assert.deepEqual(redactEnvelope({ policy: { policy: 1 }, method: "x" }, secrets, { method: "public" }), { policy: { "***": 1 }, method: "x" });
  // A value that is not the object its layout expects is foreign.
  assert.deepEqual(redactEnvelope(["x", { x: 1 }], secrets, {}), ["***", { "***": 1 }]);
  const proto = redactEnvelope(JSON.parse('{"__proto__": {"x": 1}}'), secrets, {}) as Record<string, unknown>;
  assert.deepEqual(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value, { "***": 1 });
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
});

test("redaction: every JSON string encoding of a secret, any mix of escapes, either hex case", () => {
  const secrets = secretSet(["p&ss<w>ord/é😀", "plain"]);
  const forms = [
    "p&ss<w>ord/é😀",
    JSON.stringify("p&ss<w>ord/é😀").slice(1, -1),
    String.raw`p\u0026ss\u003cw\u003eord/\u00e9\ud83d\ude00`, // Go's json.Marshal with Python's ensure_ascii
    String.raw`p&ss<w>ord\/\u00E9\uD83D\uDE00`, // PHP's json_encode, upper-case hex
    String.raw`\u0070\u0026\u0073\u0073\u003C\u0077\u003E\u006f\u0072\u0064\u002f\u00e9\uD83D\ude00`, // every character escaped
  ];
  for (const f of forms) assert.equal(redactText(`[${f}]`, secrets), "[***]", f);
  assert.equal(redactText(String.raw`"\u0070lain" and pl\u0061in`, secrets), '"***" and ***');
  // not a secret: one character different, or cut short
  assert.equal(redactText("p&ss<w>ord/e😀 plai", secrets), "p&ss<w>ord/e😀 plai");
});

test("redaction: every URL form of a secret, whole, in links and JSON alike; a secret with none adds nothing", () => {
  const secrets = secretSet(["a b/c+é", "plain"]);
  const forms = ["a%20b%2Fc%2B%C3%A9", "a%20b/c%2B%C3%A9", "a+b%2Fc%2B%C3%A9", "a%20b%2fc%2b%c3%a9", "a%2520b%252Fc%252B%25C3%25A9", "a%252520b"];
  for (const f of forms.slice(0, 5)) assert.equal(redactText(`https://h/?t=${f}&u=1`, secrets), "https://h/?t=***&u=1", f);
  assert.equal(redactText(JSON.stringify({ next: "/?t=a%20b%2Fc%2B%C3%A9" }).replace("/", "\\/"), secrets), '{"next":"\\/?t=***"}');
  assert.equal(redactText(forms[5]!, secrets), forms[5], "encoded three times: not a form");
  // The truncation cut covers the longest form: 6 bytes per character as JSON escapes, or a URL form when longer.
  assert.equal(secrets.longestForm, 6 * 7);
  assert.equal(secretSet(["漢字"]).longestForm, "%25E6%25BC%25A2%25E5%25AD%2597".length);
  assert.equal(cutTruncatedTail("0123456789".repeat(5) + "%25E6%25BC%25A2%25E5%25AD%259", secretSet(["漢字"])), "0123456789".repeat(5));
  assert.equal(redactText("\ud800", secretSet(["\ud800"])), "***", "a lone surrogate has no URL form, and breaks nothing");
});

test("a truncated text always loses its last 6 × (longest secret) − 1 bytes, and never half a character", () => {
  const secrets = secretSet(["abcd", "xy"]);
  const kept = "0123456789".repeat(5); // 50 bytes
  // whatever the tail holds, a secret's beginning or not, the same number of bytes goes
  for (const tail of ["abc", "zzz", String.raw`\u0061\u0062`]) {
    assert.equal(cutTruncatedTail(kept + tail, secrets), (kept + tail).slice(0, kept.length + tail.length - 23));
  }
  assert.equal(cutTruncatedTail("short", secrets), "");
  // a cut falling inside "é" (2 bytes) removes the whole character
  assert.equal(cutTruncatedTail("é".repeat(20), secrets), "é".repeat(8));
  assert.equal(cutTruncatedTail("anything", secretSet([])), "anything");
});

test("secret arguments: writeOnly and format password values, nested in properties and items", () => {
  const schema = {
    type: "object",
    properties: {
      token: { type: "string", writeOnly: true },
      pin: { type: "integer", format: "password" },
      user: { type: "string" },
      keys: { type: "array", items: { type: "string", writeOnly: true } },
      nested: { type: "object", properties: { pass: { type: "string", format: "password" } } },
    },
  };
  assert.deepEqual(argSecrets(schema, { token: "t0k", pin: 1234, user: "bob", keys: ["k1", "k2"], nested: { pass: "pw" } }), ["t0k", "1234", "k1", "k2", "pw"]);
  assert.deepEqual(argSecrets(schema, "not an object"), []);
});

test("credentials: hubs none/public/mock load nothing; keyring without names to read is a clear error", () => {
  assert.deepEqual(loadCredentials(undefined, "p").env, {});
  assert.deepEqual(loadCredentials({ hub: "none" }, "p").env, {});
  assert.deepEqual(loadCredentials({ hub: "public" }, "p").env, {});
  assert.deepEqual(loadCredentials({ mode: "mock", hub: "local-credential" }, "p", { env: { HCP_CREDENTIALS: "/nonexistent" } }).env, {});
  assert.throws(() => loadCredentials({ hub: "keyring" }, "p"), (e: unknown) => {
    assert.ok(e instanceof CredentialError);
    assert.equal(e.code, "credentials_unavailable");
    assert.match(e.message, /policy\.json lists no credentials to read/);
    return true;
  });
  assert.equal(credentialFilePath({ HOME: "/home/u" }), "/home/u/.config/hcp/credentials.json");
  assert.equal(credentialFilePath({ HOME: "/home/u", HCP_CREDENTIALS: "/c.json" }), "/c.json");
});

function expectRefused(file: string, family: string, code: string, message: RegExp): void {
  assert.throws(() => loadCredentials({ hub: "local-credential", family }, "x", { env: { HCP_CREDENTIALS: file } }), (e: unknown) => {
    assert.ok(e instanceof RuntimeError);
    assert.equal(e.code, code);
    assert.match(e.message, message);
    assert.doesNotMatch(e.message, /tok-123/);
    return true;
  });
}

test("local-credential: the family's env, only from an owner-only file, with clear errors", () => {
  const good = writeCredentials({ ledger: { env: { LEDGER_TOKEN: "tok-123" } } });
  const creds = loadCredentials({ hub: "local-credential", family: "ledger" }, "x", { env: { HCP_CREDENTIALS: good } });
  assert.deepEqual(creds, { env: { LEDGER_TOKEN: "tok-123" }, openapi: {}, secrets: ["tok-123"] });
  // security-scheme values for openapi packs, secrets too
  const schemes = writeCredentials({ ledger: { openapi: { bearerAuth: "tok-456" } } });
  assert.deepEqual(loadCredentials({ hub: "local-credential", family: "ledger" }, "x", { env: { HCP_CREDENTIALS: schemes } }), { env: {}, openapi: { bearerAuth: "tok-456" }, secrets: ["tok-456"] });
  // the family defaults to the pack id
  assert.deepEqual(loadCredentials({ hub: "local-credential" }, "ledger", { env: { HCP_CREDENTIALS: good } }).env, { LEDGER_TOKEN: "tok-123" });
  expectRefused(writeCredentials({ ledger: { env: { LEDGER_TOKEN: "tok-123" } } }, 0o644), "ledger", "credentials_insecure", /mode 0644.*chmod 600/);
  expectRefused(writeCredentials({ ledger: { env: { LEDGER_TOKEN: "tok-123" } } }, 0o640), "ledger", "credentials_insecure", /mode 0640/);
  expectRefused(good, "other", "credentials_unavailable", /no entry for family "other"/);
  expectRefused("/nonexistent/credentials.json", "ledger", "credentials_unavailable", /does not exist/);
  expectRefused(writeCredentials({ ledger: { env: { "BAD-NAME": "tok-123" } } }), "ledger", "credentials_invalid", /not a variable name/);
  expectRefused(writeCredentials({ ledger: { env: { T: 5 } } }), "ledger", "credentials_invalid", /must be a string/);
  expectRefused(writeCredentials({ ledger: "tok-123" }), "ledger", "credentials_invalid", /must be \{"env"/);
  // a file that is not JSON: the parser's message (which quotes the text) is not passed on
  const broken = writeCredentials({});
  writeFileSync(broken, '{"ledger": {"env": {"LEDGER_TOKEN": "tok-123"}}');
  expectRefused(broken, "ledger", "credentials_invalid", /is not valid JSON \(at line 1, column 48\)$/);
});

test("plan ids: an HMAC of nonce, expiry and the canonical plan (sorted keys), carried in the id", () => {
  const plan: Plan = {
    pack: "ledger",
    verb: "transfer",
    argv: ["/bin/ledger", "transfer", "10", "--to", "bob"],
    policy: { policy: "write", confirm: "person", timeout_ms: 10000, max_output_bytes: 1048576 },
    stdin: null,
    env: { LEDGER_TARGET: "sandbox" },
    cwd: "/w",
    root: "/packs/ledger",
    surface_sha256: "a".repeat(64),
    policy_sha256: null,
  };
  assert.equal(
    canonicalPlanJSON(plan),
    '{"argv":["/bin/ledger","transfer","10","--to","bob"],"cwd":"/w","env":{"LEDGER_TARGET":"sandbox"},"pack":"ledger","policy":{"confirm":"person","max_output_bytes":1048576,"policy":"write","timeout_ms":10000},"policy_sha256":null,"root":"/packs/ledger","stdin":null,"surface_sha256":"' +
      "a".repeat(64) +
      '","verb":"transfer"}',
  );
  const key = Buffer.alloc(32, 7);
  const issued = issuePlanId(key, canonicalPlanJSON(plan), 2_000_000_000);
  assert.match(issued.id, /^hcp1\.2000000000\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
  const parts = parsePlanId(issued.id)!;
  assert.deepEqual(parts, issued);
  assert.ok(planIdMatches(key, parts, canonicalPlanJSON(plan)));
  // key order does not matter; any change of content, expiry or key does
  const { verb, policy, argv, pack, ...others } = plan;
  assert.ok(planIdMatches(key, parts, canonicalPlanJSON({ ...others, verb, policy, argv, pack })));
  assert.ok(!planIdMatches(key, parts, canonicalPlanJSON({ ...plan, env: { LEDGER_TARGET: "PRODUCTION" } })));
  assert.ok(!planIdMatches(key, { ...parts, expiry: parts.expiry + 1 }, canonicalPlanJSON(plan)));
  assert.ok(!planIdMatches(Buffer.alloc(32, 8), parts, canonicalPlanJSON(plan)));
  // two ids of one plan differ (the nonce)
  assert.notEqual(issuePlanId(key, canonicalPlanJSON(plan), 2_000_000_000).id, issued.id);
  for (const bad of ["", "0".repeat(64), issued.id + "x", issued.id.replace("hcp1", "hcp2"), `hcp1.-1.${parts.nonce}.${parts.mac}`]) {
    assert.equal(parsePlanId(bad), undefined, bad);
  }
});
