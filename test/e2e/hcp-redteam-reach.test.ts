// Red team: doors the other red-team files leave open. A credential that is a number (a PIN) printed as a JSON number
// by a program or an API, where masking text alone would leave it whole in the parsed `json`.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { execSession, hcp, mcpClient, rawHttp, serveHttp, tempDir } from "../transports/support.js";
import { isolatedEnv, probePack } from "./hardening.js";
import { isolatedEnv as openapiEnv, openapiPack } from "./openapi-support.js";
import { trustPack } from "./helpers.js";

const GUARD = { timeoutMs: 60_000 };

/** Every text an MCP client gets from these calls (results or errors), then the server's stderr. */
async function mcpOutputs(paths: string[], env: NodeJS.ProcessEnv, names: string[]): Promise<string> {
  const { client, stderr } = await mcpClient(paths, { env });
  const out: string[] = [];
  try {
    for (const name of names) out.push(JSON.stringify(await client.callTool({ name, arguments: {} })));
  } finally {
    await client.close();
  }
  return [...out, stderr()].join("\n");
}

const PIN = "48291375";

test("a secret printed as a JSON number (a PIN, by a program or an API) never shows in `json`: run --json, exec and MCP structuredContent", async () => {
  // A program printing the PIN as a bare number, and inside a bigger one.
  const cred = join(tempDir("hcp-cred-"), "credentials.json");
  writeFileSync(cred, JSON.stringify({ fam: { env: { PIN } } }), { mode: 0o600 });
  const verbs = {
    pin: { description: "Print the PIN.", cli: ["probe", "run", "env:PIN"], policy: "read" },
    within: { description: "Print a number holding the PIN.", cli: ["probe", "run", `print:[1${PIN}0, 7]`], policy: "read" },
    plain: { description: "Print JSON without the PIN.", cli: ["probe", "run", "print:[7]"], policy: "read" },
  };
  const root = probePack("pin", verbs, { binding: { mode: "user", hub: "local-credential", family: "fam" } }, { verbs: { pin: "read", within: "read", plain: "read" } });
  const env = isolatedEnv({ HCP_CREDENTIALS: cred });
  await trustPack(root, env);
  const outputs: string[] = [];
  const run = await hcp(["run", root, "pin", "--json"], { env, ...GUARD });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).stdout, "***\n");
  assert.equal("json" in JSON.parse(run.stdout), false, "the masked stdout is no JSON: no json field");
  outputs.push(run.stdout, run.stderr);
  const lines = ["pin", "within", "plain"].map((verb, id) => JSON.stringify({ id, pack: "pin", verb, args: {} }));
  const exec = await execSession([root], lines, [], { env, ...GUARD });
  assert.equal(exec.responses.length, 3, exec.stderr);
  const within = exec.responses.find((r) => r.id === 1)!;
  assert.equal(within.result?.["stdout"], "[1***0, 7]\n");
  // Output holding no secret keeps its json.
  assert.deepEqual(exec.responses.find((r) => r.id === 2)!.result?.["json"], [7]);
  outputs.push(exec.stdout, exec.stderr, await mcpOutputs([root], env, ["pin_pin", "pin_within"]));

  // An API answering with the key it received as a number: the body is masked, and so is `json`.
  const api = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(`{"key": ${String(req.headers["x-api-key"])}, "n": 1}`);
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  try {
    const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const doc = {
      openapi: "3.1.0",
      info: { title: "Pin", version: "1" },
      servers: [{ url: origin }],
      security: [{ key: [] }],
      paths: { "/key": { get: { operationId: "key", responses: { "200": { description: "The key." } } } } },
      components: { securitySchemes: { key: { type: "apiKey", in: "header", name: "X-API-Key" } } },
    };
    const pack = openapiPack({ ref: { path: "api.json" }, verbs: { key: { description: "The key." } } });
    writeFileSync(join(pack, "api.json"), JSON.stringify(doc));
    const apiEnv = openapiEnv({ notes: { openapi: { key: PIN } } });
    await trustPack(pack, apiEnv);
    const r = await hcp(["run", pack, "key", "--json"], { env: apiEnv, ...GUARD });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).body, `{"key": ***, "n": 1}`);
    assert.equal("json" in JSON.parse(r.stdout), false);
    outputs.push(r.stdout, r.stderr);
    const s = await execSession([pack], [JSON.stringify({ id: 1, pack: "notes", verb: "key", args: {} })], [], { env: apiEnv, ...GUARD });
    outputs.push(s.stdout, s.stderr, await mcpOutputs([pack], apiEnv, ["notes_key"]));
  } finally {
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
  const all = outputs.join("\n");
  assert.ok(all.includes("***"), "the PIN came back masked");
  assert.equal(all.includes(PIN), false, "the PIN shows somewhere");
});

/** A text with its percent-encodings decoded `times` times, as an agent reading a URL would (with `+` as a space or not). */
function urlDecoded(text: string, times: number, plusIsSpace: boolean): string {
  let out = text;
  for (let i = 0; i < times; i++) {
    if (plusIsSpace) out = out.replace(/\+/g, " ");
    out = out.replace(/(%[0-9A-Fa-f]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
  return out;
}

test("header credentials a server writes into a URL (a Location, a body), percent-encoded any common way or twice, are masked: bearer, API key header, basic", async () => {
  // Credentials holding the characters URL encoding changes (base64 tokens end with =, hold + and /).
  const bearer = "tok/Zt8+Wq3Lr==bearer";
  const key = "hk/Vb6+Pn1Qs==header";
  const basic = "rt-user:Pw/9h+Kd2Xq?basic";
  const secrets = [bearer, key, basic, basic.split(":")[1]!, Buffer.from(basic).toString("base64")];
  assert.ok(Buffer.from(basic).toString("base64").endsWith("="), "the base64 form has padding to encode");
  const encoders: Record<string, (s: string) => string> = {
    percent: encodeURIComponent,
    lower: (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
    python: (s) => encodeURIComponent(s).replace(/%2F/g, "/"),
    form: (s) => new URLSearchParams({ v: s }).toString().slice(2),
    twice: (s) => encodeURIComponent(encodeURIComponent(s)),
  };
  // A server sending the caller back where it came from, its credentials written into the URL (300: never followed).
  const api = createServer((req, res) => {
    const enc = encoders[new URL(req.url ?? "/", "http://x").searchParams.get("how") ?? "percent"]!;
    const back = `/seen?auth=${enc(String(req.headers.authorization))}&key=${enc(String(req.headers["x-api-key"] ?? ""))}`;
    res.writeHead(300, { "content-type": "application/json", location: back });
    res.end(JSON.stringify({ back }));
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const outputs: string[] = [];
  try {
    const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const howParam = [{ name: "how", in: "query", schema: { type: "string" } }];
    const doc = {
      openapi: "3.1.0",
      info: { title: "Back", version: "1" },
      servers: [{ url: origin }],
      paths: {
        "/keyed": { get: { operationId: "keyed", security: [{ bearer: [], key: [] }], parameters: howParam, responses: { "300": { description: "Back." } } } },
        "/basic": { get: { operationId: "basic", security: [{ basic: [] }], parameters: howParam, responses: { "300": { description: "Back." } } } },
      },
      components: {
        securitySchemes: { bearer: { type: "http", scheme: "bearer" }, key: { type: "apiKey", in: "header", name: "X-API-Key" }, basic: { type: "http", scheme: "basic" } },
      },
    };
    const pack = openapiPack({ ref: { path: "api.json" }, verbs: { keyed: { description: "Keyed." }, basic: { description: "Basic." } } });
    writeFileSync(join(pack, "api.json"), JSON.stringify(doc));
    const env = openapiEnv({ notes: { openapi: { bearer, key, basic } } });
    await trustPack(pack, env);
    const calls = ["keyed", "basic"].flatMap((verb) => Object.keys(encoders).map((how) => ({ verb, how })));
    for (const { verb, how } of calls) {
      const r = await hcp(["run", pack, verb, "--arg", `how=${how}`, "--json"], { env, ...GUARD });
      assert.equal(JSON.parse(r.stdout).status, 300, r.stderr);
      outputs.push(r.stdout, r.stderr);
    }
    const lines = calls.map(({ verb, how }, id) => JSON.stringify({ id, pack: "notes", verb, args: { how } }));
    const s = await execSession([pack], lines, [], { env, ...GUARD });
    assert.equal(s.responses.length, calls.length, s.stderr);
    outputs.push(s.stdout, s.stderr);
    const { client, stderr } = await mcpClient([pack], { env });
    try {
      for (const { verb, how } of calls) outputs.push(JSON.stringify(await client.callTool({ name: `notes_${verb}`, arguments: { how } })));
    } finally {
      await client.close();
    }
    outputs.push(stderr());
  } finally {
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
  const all = outputs.join("\n");
  assert.ok(all.includes("%20***&key=***"), "the echoes came back masked");
  for (const plus of [false, true]) {
    for (const times of [0, 1, 2]) {
      const seen = urlDecoded(all, times, plus);
      for (const secret of secrets) assert.equal(seen.includes(secret), false, `${secret} shows, URL-decoded ${times} times`);
    }
  }
});

test("over HTTP with --token-file, a client without the token gets the same 401 whatever it asks (another path, method or session; the token in the query, a cookie or without Bearer): nothing tells it the endpoint or the mode", async () => {
  const token = "Tk-4fQz9Lw2Rb7Xc-http-door";
  const tokenFile = join(tempDir("hcp-token-"), "token");
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const root = probePack("door", { echo: { description: "Echo.", cli: ["probe", "run", "print:hi"], policy: "read" } });
  const init = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } } });
  for (const mode of [[], ["--stateful"]]) {
    const s = await serveHttp([root], { args: ["--token-file", tokenFile, ...mode], env: isolatedEnv() });
    try {
      const base = new URL(s.url);
      const at = (path: string) => new URL(path, base).href;
      const attempts: { url: string; method?: string; headers?: Record<string, string> }[] = [
        { url: s.url },
        { url: s.url, method: "GET" },
        { url: s.url, method: "DELETE", headers: { "mcp-session-id": "00000000-0000-0000-0000-000000000000" } },
        { url: s.url, method: "PUT" },
        { url: at("/"), method: "GET" },
        { url: at("/other") },
        { url: at(`/mcp?access_token=${token}`) },
        { url: at(`/mcp?token=${token}`) },
        { url: s.url, headers: { cookie: `token=${token}` } },
        { url: s.url, headers: { authorization: token } },
        { url: s.url, headers: { authorization: `Token ${token}` } },
        { url: s.url, headers: { authorization: `Bearer ${token}x` } },
        { url: s.url, headers: { "x-api-key": token } },
      ];
      const answers = [];
      for (const a of attempts) answers.push(await rawHttp(a.url, { method: a.method, headers: a.headers, body: a.method === undefined ? init : undefined }));
      for (const [i, r] of answers.entries()) {
        assert.equal(r.status, 401, `${JSON.stringify(attempts[i])}: ${r.status} ${r.body}`);
        assert.equal(r.body, answers[0]!.body, "every refusal says the same");
        assert.equal(r.headers["www-authenticate"], answers[0]!.headers["www-authenticate"]);
        assert.equal(r.headers["allow"], undefined, "no Allow header tells the methods");
        assert.doesNotMatch(r.body, /\/mcp|stateless|session|POST/i);
      }
      // With the token, the door answers as before.
      const other = await rawHttp(at("/other"), { body: init, headers: { authorization: `Bearer ${token}` } });
      assert.equal(other.status, 404);
      const ok = await rawHttp(s.url, { body: init, headers: { authorization: `Bearer ${token}` } });
      assert.equal(ok.status, 200, ok.body);
    } finally {
      await s.stop();
    }
  }
});

/** Arrays nested `levels` deep, as JSON text. */
const nested = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** A refusal of arguments nested too deep: invalid_args, naming where. */
function refusedAs(code: string | undefined, message: string): void {
  assert.equal(code, "invalid_args", message);
  assert.match(message, /nested more than 64 levels deep at (body\.x|q|x)\[0\]/);
}

test("arguments nested 60,000 levels deep (an API body, a query value, a program's argument) are invalid_args naming where, not an internal error, on run, exec and MCP over HTTP; nothing is sent and 50 levels still go", async () => {
  const received: string[] = [];
  const api = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push(`${req.method} ${req.url} ${body.length}`);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  const deep = nested(60_000); // under the 128 KiB a single argv string may take (hcp run --args)
  try {
    const origin = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    const doc = {
      openapi: "3.1.0",
      info: { title: "Deep", version: "1" },
      servers: [{ url: origin }],
      paths: {
        "/items": {
          post: { operationId: "create", requestBody: { required: true, content: { "application/json": { schema: { type: "object" } } } }, responses: { "200": { description: "Made." } } },
          get: { operationId: "list", parameters: [{ name: "q", in: "query", schema: {} }], responses: { "200": { description: "Items." } } },
        },
      },
    };
    const pack = openapiPack({ ref: { path: "api.json" }, binding: { mode: "local", hub: "none" }, verbs: { create: { description: "Create." }, list: { description: "List." } }, policy: { verbs: { create: "write", list: "read" } } });
    writeFileSync(join(pack, "api.json"), JSON.stringify(doc));
    const program = probePack("deep", { take: { description: "Take anything.", cli: ["probe", "run", "print:taken"], policy: "read", args: { type: "object", properties: { x: {} } } } });
    const env = isolatedEnv();
    const calls: [string, string, string][] = [
      ["notes", "create", `{"body":{"x":${deep}}}`],
      ["notes", "list", `{"q":${deep}}`],
      ["deep", "take", `{"x":${deep}}`],
    ];
    // exec, with --allow-write: only the depth stops the write.
    const lines = calls.map(([p, verb, args], id) => `{"id":${id},"pack":"${p}","verb":"${verb}","args":${args}}`);
    lines.push(JSON.stringify({ id: "shallow", pack: "notes", verb: "create", args: { body: { x: JSON.parse(nested(50)) } } }));
    const s = await execSession([pack, program], lines, ["--allow-write"], { env, ...GUARD });
    assert.equal(s.responses.length, 4, s.stderr);
    for (const r of s.responses.filter((x) => x.id !== "shallow")) refusedAs(r.error?.code, r.error?.message ?? JSON.stringify(r));
    assert.equal(s.responses.find((x) => x.id === "shallow")?.ok, true, "50 levels are arguments as usual");
    // hcp run --args: exit 1 (a usage error), no stack trace.
    for (const [p, verb, args] of calls) {
      const r = await hcp(["run", p === "notes" ? pack : program, verb, "--args", args, "--allow-write"], { env, ...GUARD });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /nested more than 64 levels deep/);
      assert.doesNotMatch(r.stderr, /internal|call stack|at .*\.js:\d+/);
    }
    // MCP over HTTP: the frame as a client writes it; the server answers each and goes on.
    const served = await serveHttp([pack, program], { args: ["--allow-write"], env });
    try {
      for (const [p, verb, args] of calls) {
        const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${p}_${verb}","arguments":${args}}}`;
        const r = await rawHttp(served.url, { body, headers: { "mcp-protocol-version": "2025-06-18" } });
        assert.equal(r.status, 200, r.body);
        assert.match(r.body, /invalid_args[^\n]*nested more than 64 levels deep/, r.body.slice(0, 500));
      }
      const after = await rawHttp(served.url, { body: '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"deep_take","arguments":{}}}', headers: { "mcp-protocol-version": "2025-06-18" } });
      assert.match(after.body, /taken/, "the server goes on");
    } finally {
      await served.stop();
    }
  } finally {
    api.closeAllConnections();
    await new Promise<void>((resolve) => api.close(() => resolve()));
  }
  assert.deepEqual(received.map((r) => r.split(" ")[0]), ["POST"], "only the 50-level body was sent");
});

test("a long credential (8,000 characters, a big JWT) is masked like a short one and breaks nothing: no error spells it out, on run, exec and MCP; an agent's 10,000 password values are refused at once", async () => {
  // Base64url, with a quote, a slash and a non-ASCII character that JSON encoders write differently.
  const long = `${randomBytes(6000).toString("base64url").slice(0, 7990)}"/é-end`;
  const cred = join(tempDir("hcp-cred-"), "credentials.json");
  writeFileSync(cred, JSON.stringify({ fam: { env: { PIN: long } } }), { mode: 0o600 });
  const verbs = {
    pin: { description: "Print the credential.", cli: ["probe", "run", "env:PIN"], policy: "read" },
    dump: { description: "Print argv and env as JSON.", cli: ["probe", "run", "json"], policy: "read" },
    login: { description: "Take a password.", cli: ["probe", "run", "print:in"], policy: "read", args: { type: "object", properties: { password: { type: "string", writeOnly: true } } } },
  };
  const root = probePack("long", verbs, { binding: { mode: "user", hub: "local-credential", family: "fam" } }, { verbs: { pin: "read", dump: "read", login: "read" } });
  const env = isolatedEnv({ HCP_CREDENTIALS: cred });
  await trustPack(root, env);
  const outputs: string[] = [];
  for (const verb of ["pin", "dump"]) {
    const r = await hcp(["run", root, verb, "--json"], { env, ...GUARD });
    assert.equal(r.code, 0, r.stderr.slice(0, 500));
    outputs.push(r.stdout, r.stderr);
  }
  const plain = await hcp(["run", root, "pin"], { env, ...GUARD });
  assert.equal(plain.stdout, "***\n", plain.stderr.slice(0, 500));
  const many = Array.from({ length: 10_000 }, (_, i) => `guess-${i}-${"x".repeat(40)}`);
  const lines = [
    JSON.stringify({ id: "pin", pack: "long", verb: "pin", args: {} }),
    JSON.stringify({ id: "dump", pack: "long", verb: "dump", args: {} }),
    JSON.stringify({ id: "many", pack: "long", verb: "login", args: { password: many } }),
    JSON.stringify({ id: "one", pack: "long", verb: "login", args: { password: "hunter2-is-long-enough" } }),
  ];
  const s = await execSession([root], lines, [], { env, ...GUARD });
  assert.equal(s.responses.length, 4, s.stderr.slice(0, 500));
  assert.equal(s.responses.find((r) => r.id === "pin")?.result?.["stdout"], "***\n");
  const refused = s.responses.find((r) => r.id === "many");
  assert.equal(refused?.error?.code, "invalid_args");
  assert.match(refused?.error?.message ?? "", /10000 values of arguments marked writeOnly or password were sent; at most 64/);
  assert.equal(s.responses.find((r) => r.id === "one")?.ok, true, "one password is an argument as usual");
  outputs.push(s.stdout, s.stderr, await mcpOutputs([root], env, ["long_pin", "long_dump"]));
  const all = outputs.join("\n");
  assert.doesNotMatch(all, /Invalid regular expression|Stack overflow|internal error/);
  assert.ok(all.includes("***"));
  // No stretch of the credential shows, raw or JSON-escaped.
  const escaped = JSON.stringify(long).slice(1, -1);
  for (let at = 0; at + 32 <= long.length; at += 500) assert.equal(all.includes(long.slice(at, at + 32)), false, `the credential shows at ${at}`);
  assert.equal(all.includes(escaped.slice(-32)), false, "its JSON-escaped end shows");
});
