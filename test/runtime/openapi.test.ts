// Units of the openapi runtime: credentials per security scheme, request building, schema conversion, mock answers.

import assert from "node:assert/strict";
import { test } from "node:test";
import { headOf, parseDocument, type DocumentHead } from "../../src/runtime/openapi/document.js";
import { operationsOf, type Operation } from "../../src/runtime/openapi/operations.js";
import { buildRequest, formBody } from "../../src/runtime/openapi/request.js";
import { mockResult } from "../../src/runtime/openapi/result.js";
import { toJsonSchema } from "../../src/runtime/openapi/schema.js";
import { applyCredentials } from "../../src/runtime/openapi/security.js";
import { RuntimeError } from "../../src/runtime/errors.js";
import { redactText, secretSet } from "../../src/runtime/secrets/redact.js";

const DOC = {
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  components: {
    securitySchemes: {
      hdr: { type: "apiKey", in: "header", name: "X-Api-Key" },
      ck: { type: "apiKey", in: "cookie", name: "session" },
      basic: { type: "http", scheme: "basic" },
      oauth: { type: "oauth2", flows: {} },
    },
  },
  paths: {
    "/h": { get: { operationId: "h", security: [{ hdr: [] }], responses: { "200": { description: "ok" } } } },
    "/c": { get: { operationId: "c", security: [{ ck: [] }], responses: { "200": { description: "ok" } } } },
    "/either": { get: { operationId: "either", security: [{ basic: [] }, { oauth: [] }], responses: { "200": { description: "ok" } } } },
    "/items/{id}": {
      get: {
        operationId: "item",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "string" } },
          { name: "q", in: "query", schema: { type: "array", items: { type: "string" } } },
        ],
        responses: { "200": { description: "ok", content: { "application/json": { examples: { one: { value: { id: "x" } } } } } } },
      },
    },
    "/styles": {
      get: {
        operationId: "styles",
        parameters: [
          { name: "csv", in: "query", explode: false, schema: { type: "array" } },
          { name: "spaced", in: "query", style: "spaceDelimited", schema: { type: "array" } },
          { name: "piped", in: "query", style: "pipeDelimited", schema: { type: "array" } },
          { name: "created", in: "query", style: "deepObject", explode: true, schema: { type: "object" } },
          { name: "filter", in: "query", schema: { type: "object" } },
          { name: "color", in: "query", explode: false, schema: { type: "object" } },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
    "/customers": {
      post: {
        operationId: "customer",
        requestBody: {
          required: true,
          content: { "application/x-www-form-urlencoded": { schema: { type: "object" }, encoding: { metadata: { style: "deepObject", explode: true }, tags: { explode: false } } } },
        },
        responses: { "200": { description: "ok" } },
      },
    },
    "/render": { post: { operationId: "render", requestBody: { content: { "text/plain": {} } }, responses: { "200": { description: "ok" } } } },
    "users/{id}": {
      get: { operationId: "noslash", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }, { name: "X-Trace", in: "header", schema: { type: "string" } }], responses: { "200": { description: "ok" } } },
      patch: {
        operationId: "patchUser",
        requestBody: { content: { "application/json-patch+json": { schema: { type: "array" } }, "application/merge-patch+json": { schema: { type: "object" } } } },
        responses: { "200": { description: "ok" } },
      },
    },
    "/paint/{simple}/{label}/{matrix}": {
      get: {
        operationId: "paint",
        parameters: [
          { name: "simple", in: "path", required: true, explode: true, schema: {} },
          { name: "label", in: "path", required: true, style: "label", schema: {} },
          { name: "matrix", in: "path", required: true, style: "matrix", explode: true, schema: {} },
          { name: "X-Color", in: "header", schema: {} },
          { name: "pref", in: "cookie", schema: {} },
        ],
        responses: { "200": { description: "ok" } },
      },
    },
    "/upload": { post: { operationId: "upload", requestBody: { required: true, content: { "multipart/form-data": { schema: { type: "object" } } } }, responses: { "200": { description: "ok" } } } },
  },
};

async function ops(): Promise<{ doc: DocumentHead; byId: (id: string) => Operation }> {
  const parsed = await parseDocument(JSON.stringify(DOC), "test.json");
  const all = operationsOf(parsed.doc);
  return { doc: headOf(parsed), byId: (id) => all.find((o) => o.operationId === id)! };
}

test("credentials: apiKey in a header or a cookie, the first requirement whose schemes all have values", async () => {
  const { doc, byId } = await ops();
  assert.deepEqual(applyCredentials(doc, byId("h"), { hdr: "k1" }).headers, { "x-api-key": "k1" });
  const cookie = applyCredentials(doc, byId("c"), { ck: "a b;c" });
  assert.deepEqual(cookie.cookies, ["session=a%20b%3Bc"]);
  assert.equal(redactText("session=a%20b%3Bc", secretSet(cookie.wireForms)), "session=***", "the encoded form is masked too");
  // basic has no value: the oauth2 alternative applies as a bearer token
  assert.deepEqual(applyCredentials(doc, byId("either"), { oauth: "at-1" }).headers, { authorization: "Bearer at-1" });
  const basic = applyCredentials(doc, byId("either"), { basic: "u:p", oauth: "at-1" });
  assert.deepEqual(basic.headers, { authorization: `Basic ${Buffer.from("u:p").toString("base64")}` });
  assert.deepEqual(applyCredentials(doc, byId("h"), {}).headers, {}, "no value: nothing applied");
  assert.throws(() => applyCredentials(doc, byId("h"), { hdr: "k\r\nX-Evil: 1" }), (e: unknown) => e instanceof RuntimeError && e.code === "credentials_invalid" && !e.message.includes("X-Evil"));
});

test("requests: one segment per path parameter, repeated query arrays, nothing outside the base URL", async () => {
  const { byId } = await ops();
  const base = new URL("https://api.example.com/v2/");
  assert.equal(buildRequest(byId("item"), { id: "a/../../b", q: ["x y", "&z"] }, base).url, "https://api.example.com/v2/items/a%2F..%2F..%2Fb?q=x+y&q=%26z");
  for (const id of [".", "..", ""]) assert.throws(() => buildRequest(byId("item"), { id }, base), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument");
  assert.throws(() => buildRequest(byId("item"), {}, base), (e: unknown) => e instanceof RuntimeError && e.code === "missing_argument");
});

test("query values as their style and explode say: form arrays repeated or joined by commas, space- and pipe-delimited, deepObject as name[key], form objects as parameters of their own or key,value", async () => {
  const { byId } = await ops();
  const base = new URL("https://api.example.com/");
  const query = (args: Record<string, unknown>) => decodeURIComponent(new URL(buildRequest(byId("styles"), args, base).url).search.replace(/\+/g, " "));
  assert.equal(query({ csv: ["id", "displayName"] }), "?csv=id,displayName");
  assert.equal(query({ spaced: ["a", "b"], piped: ["c", "d"] }), "?spaced=a b&piped=c|d");
  assert.equal(query({ created: { gte: 1700000000, lt: 1800000000 } }), "?created[gte]=1700000000&created[lt]=1800000000");
  assert.equal(query({ created: { range: { gte: 1 } } }), "?created[range][gte]=1", "deeper objects nest their brackets");
  assert.equal(query({ filter: { name: "n", size: 2 } }), "?name=n&size=2");
  assert.equal(query({ color: { R: 100, G: 200 } }), "?color=R,100,G,200");
  assert.equal(buildRequest(byId("styles"), { csv: ["a b", "c&d"] }, base).url, "https://api.example.com/styles?csv=a+b%2Cc%26d", "each value encoded, & never a new parameter");
  for (const args of [{ csv: ["a,b", "c"] }, { piped: ["a|b"] }, { color: { "R,G": 1 } }]) {
    assert.throws(() => buildRequest(byId("styles"), args, base), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument" && /which separates its items here/.test(e.message), JSON.stringify(args));
  }
});

test("path, header and cookie values as their style and explode say: simple, label and matrix paths, objects and arrays in a header or cookie; a part holding what separates the parts refused", async () => {
  const { byId } = await ops();
  const base = new URL("https://api.example.com/");
  const paint = (args: Record<string, unknown>) => buildRequest(byId("paint"), { simple: "s", label: "l", matrix: "m", ...args }, base);
  const path = (args: Record<string, unknown>) => new URL(paint(args).url).pathname;
  assert.equal(path({}), "/paint/s/.l/;matrix=m");
  assert.equal(path({ simple: { R: 100, G: 200 }, label: ["blue", "black"], matrix: ["a", "b"] }), "/paint/R=100,G=200/.blue,black/;matrix=a;matrix=b");
  assert.equal(path({ matrix: { R: 1, G: 2 } }), "/paint/s/.l/;R=1;G=2");
  assert.equal(path({ simple: ["a/b", "c d"] }), "/paint/a%2Fb,c%20d/.l/;matrix=m", "each part percent-encoded: / cannot change the path");
  assert.deepEqual(paint({ "X-Color": { R: 100, G: 200 }, pref: ["dark", "wide"] }).headers, { "x-color": "R,100,G,200", cookie: "pref=dark%2Cwide" });
  for (const args of [{ simple: ["a,b"] }, { simple: { "R=": 1 } }, { label: ["a,b"] }, { matrix: ["a;b"] }, { "X-Color": ["a,b"] }, { pref: { k: "a,b" } }]) {
    assert.throws(() => paint(args), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument" && /which separates its items here/.test(e.message), JSON.stringify(args));
  }
  assert.throws(() => paint({ simple: [["nested"]] }), (e: unknown) => e instanceof RuntimeError && /must be a string, number or boolean here \(inside its array or object\)/.test(e.message));
  // A key that is no text (a lone surrogate) is the agent's mistake, not hcp's internal error.
  for (const args of [{ simple: { "\ud800": "x" } }, { pref: { "\ud800": "x" } }]) {
    assert.throws(() => paint(args), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument" && /lone UTF-16 surrogate/.test(e.message), JSON.stringify(args));
  }
});

test("attack: no argument is sent where a credential goes, in any case, nor as a form field under the name of a credential sent in the query; a request past 4 MiB as sent (deepObject names repeated, each `€` as 9 characters) is refused before it is built whole", async () => {
  const { byId } = await ops();
  const base = new URL("https://api.example.com/");
  const credentials = new Map([["query:api_key", "qkey"]]);
  const refused = (op: string, args: Record<string, unknown>, why: RegExp) =>
    assert.throws(() => buildRequest(byId(op), args, base, { credentials }), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument" && why.test(e.message), JSON.stringify(args).slice(0, 80));
  refused("styles", { filter: { API_KEY: "test-account" } }, /would be sent as the query parameter "API_KEY", where hcp puts the credential of security scheme "qkey"/);
  refused("customer", { body: { api_key: "test-account" } }, /argument "body\.api_key" would be sent as the form field "api_key"/);
  const started = Date.now();
  refused("styles", { created: { ["\u20ac".repeat(4000)]: Array(1040).fill(1) } }, /comes to over 4194304 characters/);
  assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
  refused("styles", { csv: ["\u20ac".repeat(500_000)] }, /the request's URL would be \d+ characters as sent, over the 4194304 a request may be/);
});

test("request bodies: a form's fields written as its encoding says (deepObject, not exploded), plain text as it is; a required body hcp cannot send (multipart) refused before anything is planned", async () => {
  const { byId } = await ops();
  const base = new URL("https://api.example.com/");
  const customer = byId("customer");
  assert.equal(customer.body?.form, "form");
  const body = { email: "a b@example.com", metadata: { plan: "pro", seats: 3 }, tags: ["x", "y"], expand: ["data", "more"] };
  const wire = formBody(customer.body!, body);
  assert.equal(decodeURIComponent(wire), "email=a+b@example.com&metadata[plan]=pro&metadata[seats]=3&tags=x,y&expand=data&expand=more");
  assert.equal(buildRequest(customer, { body }, base).body, wire, "the plan holds the form as it is sent");
  // An exploded object's property beside a field of its name would be sent twice, one of them unseen as such: refused.
  for (const [refused, message] of [
    [{ email: "a@example.com", extra: { email: "mallory@example.com" } }, /arguments "body\.email" and "body\.extra" would both be sent as "email"/],
    [{ metadata: { "x][y": "1" } }, /the key "x\]\[y" holds a bracket/],
  ] as const) {
    assert.throws(() => buildRequest(customer, { body: refused }, base), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument" && message.test(e.message), JSON.stringify(refused));
  }
  assert.throws(() => buildRequest(byId("styles"), { csv: ["a"], filter: { csv: "b" } }, base), (e: unknown) => e instanceof RuntimeError && /arguments "csv" and "filter" would both be sent as "csv"/.test(e.message), "in the query too");
  assert.throws(() => buildRequest(customer, { body: "email=x" }, base), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument" && /a form .* is an object of its fields/.test(e.message));
  const render = byId("render");
  assert.deepEqual([render.body?.form, render.body?.schema], ["text", { type: "string" }]);
  assert.equal(buildRequest(render, { body: "# Title\n" }, base).body, "# Title\n", "plain text planned, and sent, as it is");
  assert.deepEqual(byId("upload").unsentBody, { required: true, mediaTypes: ["multipart/form-data"] });
  assert.throws(
    () => buildRequest(byId("upload"), {}, base),
    (e: unknown) => e instanceof RuntimeError && e.code === "not_executable" && e.message === "POST /upload requires a request body as multipart/form-data, which hcp cannot send (it sends JSON, a form or plain text); nothing was sent",
  );
});

test("a document's path without its leading / is sent under the base URL; a header value with a C1 control is refused; a PATCH body is the JSON type an agent means (merge patch before JSON Patch)", async () => {
  const { byId } = await ops();
  const base = new URL("https://api.example.com/v2");
  assert.equal(buildRequest(byId("noslash"), { id: "u1" }, base).url, "https://api.example.com/v2/users/u1");
  assert.throws(() => buildRequest(byId("noslash"), { id: "u1", "X-Trace": "a\u0085b" }, base), (e: unknown) => e instanceof RuntimeError && e.code === "invalid_argument" && /control character/.test(e.message));
  assert.equal(byId("patchUser").body?.mediaType, "application/merge-patch+json");
});

test("schemas: 3.0 nullable and boolean exclusive bounds become 2020-12; oneOf is anyOf; cycles and unresolved $refs become any", () => {
  assert.deepEqual(toJsonSchema({ type: "string", nullable: true }, true), { type: ["string", "null"] });
  assert.deepEqual(toJsonSchema({ type: "integer", minimum: 1, exclusiveMinimum: true }, true), { type: "integer", exclusiveMinimum: 1 });
  assert.deepEqual(toJsonSchema({ type: "integer", maximum: 9, exclusiveMaximum: false }, true), { type: "integer", maximum: 9 });
  // oneOf accepts what any branch does: a body matching two branches that require nothing is one the API takes.
  assert.deepEqual(toJsonSchema({ allOf: [{ type: "object" }, { oneOf: [{ properties: { a: { readOnly: true } } }, { properties: { b: { readOnly: true } } }] }] }, false), {
    allOf: [{ type: "object" }, { anyOf: [{ properties: { a: { readOnly: true } } }, { properties: { b: { readOnly: true } } }] }],
  });
  assert.deepEqual(toJsonSchema({ anyOf: [{ type: "string" }], oneOf: [{ minLength: 1 }] }, false), { anyOf: [{ type: "string" }], oneOf: [{ minLength: 1 }] }, "beside an anyOf, as it is");
  const node: Record<string, unknown> = { type: "object" };
  node["properties"] = { next: node, ext: { $ref: "https://elsewhere/x.json" } };
  assert.deepEqual(toJsonSchema(node, false), { type: "object", properties: { next: {}, ext: {} } });
});

test("mock answers come from the first 2xx response's first example, marked mock", async () => {
  const { byId } = await ops();
  const r = mockResult({ pack: "p", verb: "item", method: "GET", url: "https://x/items/1" }, byId("item"), secretSet([]));
  assert.equal(r.mock, true);
  assert.equal(r.status, 200);
  assert.deepEqual(r.json, { id: "x" });
  const empty = mockResult({ pack: "p", verb: "h", method: "GET", url: "https://x/h" }, byId("h"), secretSet([]));
  assert.deepEqual([empty.status, empty.body, empty.json], [200, "", undefined], "a 2xx without content answers an empty body");
  const no2xx = { ...byId("h"), raw: { responses: { "404": { description: "gone" } } } };
  assert.throws(() => mockResult({ pack: "p", verb: "h", method: "GET", url: "https://x/h" }, no2xx, secretSet([])), (e: unknown) => e instanceof RuntimeError && e.code === "not_executable");
});
