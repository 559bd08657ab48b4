// What an openapi verb puts on the wire beyond JSON, checked on a loopback API that records every request: a form
// body (Stripe's writes), query values by their style (Stripe's deepObject, Graph's comma-joined $select), and an
// operation whose required body hcp cannot send (multipart), which must never go out empty.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { execSession, hcp, tempDir } from "../transports/support.js";
import { recorder } from "./notes-api.js";
import { isolatedEnv } from "./openapi-support.js";

const ok = { "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } } };

const DOC = {
  openapi: "3.0.3",
  info: { title: "payments", version: "1" },
  servers: [{ url: "https://api.payments.example/v1" }],
  paths: {
    "/customers": {
      post: {
        operationId: "PostCustomers",
        description: "<p>Creates a new customer &amp; its <code>metadata</code>.</p><p>See the guide.</p>",
        requestBody: {
          required: true,
          content: {
            "application/x-www-form-urlencoded": {
              schema: { type: "object", properties: { email: { type: "string" }, metadata: { type: "object" }, expand: { type: "array", items: { type: "string" } }, items: { type: "array", items: { type: "object" } } } },
              encoding: { metadata: { style: "deepObject", explode: true }, items: { style: "deepObject", explode: true } },
            },
          },
        },
        responses: ok,
      },
    },
    "/charges": {
      get: {
        operationId: "GetCharges",
        parameters: [
          { name: "created", in: "query", style: "deepObject", explode: true, schema: { type: "object" } },
          { name: "$select", in: "query", style: "form", explode: false, schema: { type: "array", items: { type: "string" } } },
        ],
        responses: ok,
      },
    },
    "/markdown": { post: { operationId: "PostMarkdown", requestBody: { required: true, content: { "text/plain": { schema: { type: "string" } } } }, responses: ok } },
    "/files": { post: { operationId: "PostFiles", requestBody: { required: true, content: { "multipart/form-data": { schema: { type: "object" } } } }, responses: ok } },
    // Its file optional, as the document says: an empty POST would still be an upload of nothing the API answers 201.
    "/blobs": { post: { operationId: "PostBlobs", requestBody: { content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } }, responses: ok } },
  },
};

test("attack and reach: a form body is sent as a form (fields by their encoding, a deepObject array's items indexed) and planned as it is sent, a field an object would send again beside its own refused; query values by their style; an operation requiring a multipart body is left out by hcp init and, in a pack written by hand, refused with nothing sent, never sent empty; a description in HTML (Stripe's) reads as text", async () => {
  const api = await recorder();
  const seen = () => api.requests.map((r) => ({ method: r.method, url: r.url, type: r.headers["content-type"], body: r.body }));
  try {
    const dir = tempDir("hcp-openapi-bodies-");
    const doc = join(dir, "payments.json");
    writeFileSync(doc, JSON.stringify(DOC));
    const out = join(dir, "payments");
    const env = isolatedEnv();
    const init = await hcp(["init", "--from-openapi", doc, "--out", out], { env });
    assert.equal(init.code, 0, init.stderr);
    assert.ok(init.stderr.includes(`note: 2 of 3 verbs write and run without a person wherever writes are allowed (hcp serve --allow-write), beside 1 read and 0 writes a person approves (DELETE, those named for a deletion, and batches): check policy.json before you trust the pack, and make a write {"policy": "write", "confirm": true} where a person must approve each run\n`), init.stderr);
    assert.match(init.stderr, /note: 2 operations are left out, as each takes its request body only as a type hcp cannot send \(it sends JSON, a form or plain text\): POST \/files \(multipart\/form-data\), POST \/blobs \(application\/octet-stream\)/);
    const surface = JSON.parse(readFileSync(join(out, "surface.json"), "utf8")) as { verbs: Record<string, { description?: string }> };
    assert.deepEqual(Object.keys(surface.verbs).sort(), ["get-charges", "post-customers", "post-markdown"]);
    assert.equal(surface.verbs["post-customers"]!.description, "Creates a new customer & its metadata.", "HTML reads as text");
    const policy = JSON.parse(readFileSync(join(out, "policy.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(out, "policy.json"), JSON.stringify({ ...policy, openapi: { base_url: `${api.origin}/v1` } }));

    const calls = [
      { id: 1, pack: "payments", verb: "post-customers", args: { body: { email: "ann@example.com", metadata: { plan: "pro" }, expand: ["a", "b"], items: [{ price: "p1", quantity: 2 }, { price: "p2" }] } } },
      { id: 2, pack: "payments", verb: "get-charges", args: { created: { gte: 1700000000 }, select: ["id", "amount"] } },
      { id: 3, pack: "payments", verb: "post-markdown", args: { body: '# Title\n"quoted"' } },
    ].map((c) => JSON.stringify(c));
    const s = await execSession([out], calls, ["--allow-write", "--concurrency", "1"], { env });
    assert.deepEqual(s.responses.map((r) => r.ok), [true, true, true], JSON.stringify(s.responses));
    assert.deepEqual(seen(), [
      { method: "POST", url: "/v1/customers", type: "application/x-www-form-urlencoded", body: "email=ann%40example.com&metadata%5Bplan%5D=pro&expand=a&expand=b&items%5B0%5D%5Bprice%5D=p1&items%5B0%5D%5Bquantity%5D=2&items%5B1%5D%5Bprice%5D=p2" },
      { method: "GET", url: "/v1/charges?created%5Bgte%5D=1700000000&%24select=id%2Camount", type: undefined, body: "" },
      { method: "POST", url: "/v1/markdown", type: "text/plain", body: '# Title\n"quoted"' },
    ]);

    // What a person approves is the form as it goes out; an object whose property would be sent as another field (a second
    // `email`, read by the server first or last as it likes) is refused, and nothing is sent.
    const shown = await execSession([out], [JSON.stringify({ id: 5, pack: "payments", verb: "post-customers", args: { body: { email: "ann@example.com", metadata: { plan: "pro" } } }, dry_run: true })], ["--allow-write"], { env });
    assert.equal((shown.responses[0]!.result as { plan: { body: unknown } }).plan.body, "email=ann%40example.com&metadata%5Bplan%5D=pro");
    const smuggled = { id: 6, pack: "payments", verb: "post-customers", args: { body: { email: "ann@example.com", extra: { email: "mallory@example.com" } } } };
    const twice = await execSession([out], [JSON.stringify(smuggled), JSON.stringify({ ...smuggled, id: 7, dry_run: true })], ["--allow-write"], { env });
    for (const r of twice.responses) assert.match(r.error?.message ?? "", /arguments "body\.email" and "body\.extra" would both be sent as "email"/, JSON.stringify(r));
    assert.equal(api.requests.length, 3, "nothing more reached the API");

    // A pack written by hand that binds the multipart operation: refused before anything is sent, dry run included.
    writeFileSync(join(out, "surface.json"), JSON.stringify({ ...surface, verbs: { ...surface.verbs, upload: { description: "Upload a file.", cli: ["POST", "/files"] } } }));
    const upload = JSON.stringify({ id: 3, pack: "payments", verb: "upload", args: {} });
    const dry = JSON.stringify({ id: 4, pack: "payments", verb: "upload", args: {}, dry_run: true });
    const refused = await execSession([out], [upload, dry], ["--allow-write"], { env });
    for (const r of refused.responses) {
      assert.equal(r.error?.code, "not_executable", JSON.stringify(r));
      assert.match(r.error!.message, /POST \/files requires a request body as multipart\/form-data, which hcp cannot send/);
    }
    assert.equal(api.requests.length, 3, "nothing more reached the API");
  } finally {
    await api.close();
  }
});

test("attack and reach: cookie parameters are sent in the Cookie header as the plan shows them, percent-encoded so a value cannot start another cookie; one named as the credential's cookie, in any case, is refused; an array item holding the comma that joins a path's or header's items is refused", async () => {
  const api = await recorder();
  const seen = () => api.requests.map((r) => ({ url: r.url, cookie: r.headers.cookie, tag: r.headers["x-tags"] }));
  try {
    const dir = tempDir("hcp-openapi-cookies-");
    const doc = join(dir, "shop.json");
    const key = "k-7f3a9c1e5b2d4086";
    writeFileSync(doc, JSON.stringify({
      openapi: "3.0.3",
      info: { title: "shop", version: "1" },
      servers: [{ url: `${api.origin}/v1` }],
      components: { securitySchemes: { session: { type: "apiKey", in: "cookie", name: "sid" } } },
      security: [{ session: [] }],
      paths: {
        "/cart/{ids}": {
          put: {
            operationId: "put-cart",
            parameters: [
              { name: "ids", in: "path", required: true, schema: { type: "array", items: { type: "string" } } },
              { name: "lang", in: "cookie", required: true, schema: { type: "string" } },
              { name: "sid", in: "cookie", schema: { type: "string" } },
              { name: "SID", in: "cookie", schema: { type: "string" } },
              { name: "X-Tags", in: "header", schema: { type: "array", items: { type: "string" } } },
            ],
            responses: ok,
          },
        },
      },
    }));
    const out = join(dir, "shop");
    const env = isolatedEnv({ shop: { openapi: { session: key } } });
    const init = await hcp(["init", "--from-openapi", doc, "--out", out], { env });
    assert.equal(init.code, 0, init.stderr);
    const surface = JSON.parse(readFileSync(join(out, "surface.json"), "utf8")) as { id: string };
    const pack = surface.id;
    const describe = await hcp(["describe", out, "put-cart", "--json"], { env });
    assert.equal(describe.code, 0, describe.stderr);
    const described = (JSON.parse(describe.stdout) as { verbs: { arguments: { name: string; required: boolean }[] }[] }).verbs[0]!.arguments;
    assert.ok(described.some((a) => a.name === "lang" && a.required), `a required cookie parameter is a required argument: ${describe.stdout}`);

    const call = (id: number, args: Record<string, unknown>, extra: Record<string, unknown> = {}) => JSON.stringify({ id, pack, verb: "put-cart", args, ...extra });
    const s = await execSession([out], [
      call(1, { ids: ["a", "b"], lang: "fr; admin=1", "X-Tags": ["x", "y"] }),
      call(2, { ids: ["a"], lang: "de" }),
      call(3, { ids: ["a"], lang: "de" }, { dry_run: true }),
    ], ["--allow-write", "--concurrency", "1"], { env });
    assert.deepEqual(s.responses.map((r) => r.ok), [true, true, true], JSON.stringify(s.responses));
    assert.deepEqual(seen(), [
      { url: "/v1/cart/a,b", cookie: `lang=fr%3B%20admin%3D1; sid=${key}`, tag: "x,y" },
      { url: "/v1/cart/a", cookie: `lang=de; sid=${key}`, tag: undefined },
    ], "each cookie as given, one value each, and the credential's");
    assert.deepEqual((s.responses[2]!.result as { plan: { headers?: unknown } }).plan.headers, { cookie: "lang=de" }, "the plan shows the cookies sent, without the credential");

    // An item holding the comma that joins the items would reach the server as two: refused, nothing sent.
    const refused = await execSession([out], [call(4, { ids: ["a,b", "c"], lang: "de" }), call(5, { ids: ["a"], lang: "de", "X-Tags": ["x,y"] })], ["--allow-write"], { env });
    for (const r of refused.responses) assert.match(r.error?.message ?? "", /holds ",", which separates its items here/, JSON.stringify(r));
    // A cookie named as the credential's, in any case: the plan would show the agent's session, and the credential's
    // would go out. Refused, dry run too.
    const forged = await execSession([out], [call(6, { ids: ["a"], lang: "de", sid: "forged" }), call(7, { ids: ["a"], lang: "de", SID: "test-account" }, { dry_run: true })], ["--allow-write"], { env });
    for (const r of forged.responses) assert.match(r.error?.message ?? "", /argument "(sid|SID)" would be sent as the cookie "(sid|SID)", where hcp puts the credential of security scheme "session"/, JSON.stringify(r));
    assert.equal(api.requests.length, 2, "nothing more reached the API");
  } finally {
    await api.close();
  }
});

/** An exec request line calling the pay pack's verb. */
const query = (name: string) => ({ name, in: "query", schema: { type: "string" } });

const pay = (id: number, args: object, dryRun = false) => JSON.stringify({ id, pack: "pay", verb: "pay", args, ...(dryRun && { dry_run: true }) });

test("attack: a secret field given an object whose properties a form or query would send as fields of their own is refused, nothing sent: a person would approve `amount=***`, a field the schema never marked secret; given as a string, it is sent and shown as `client_secret=***`", async () => {
  const api = await recorder();
  const seen = () => api.requests.map((r) => `${r.url} ${r.body}`);
  try {
    const dir = tempDir("hcp-openapi-secret-form-");
    const doc = join(dir, "pay.json");
    writeFileSync(doc, JSON.stringify({
      openapi: "3.0.3",
      info: { title: "pay", version: "1" },
      servers: [{ url: `${api.origin}/v1` }],
      paths: {
        "/pay": {
          post: {
            operationId: "pay",
            parameters: [{ name: "api_token", in: "query", schema: {} }],
            requestBody: { content: { "application/x-www-form-urlencoded": { schema: { type: "object", properties: { to: { type: "string" }, amount: { type: "string" }, client_secret: {} } } } } },
            responses: ok,
          },
        },
      },
    }));
    const out = join(dir, "pay");
    const env = isolatedEnv();
    assert.equal((await hcp(["init", "--from-openapi", doc, "--out", out], { env })).code, 0);
    const smuggled = [
      { body: { to: "alice", client_secret: { amount: "1000000" } } },
      { api_token: { amount: "1000000" }, body: { to: "alice" } },
    ];
    const s = await execSession([out], smuggled.flatMap((args, i) => [pay(2 * i + 1, args), pay(2 * i + 2, args, true)]), ["--allow-write"], { env });
    for (const r of s.responses) assert.match(r.error?.message ?? "", /argument "(client_secret|api_token)" is secret: an object here sends its properties as fields of their own/, JSON.stringify(r));
    assert.deepEqual(seen(), [], "nothing reached the API");

    const plain = await execSession([out], [pay(9, { body: { to: "alice", amount: "5", client_secret: "s3cr3t-value-17" } }, true), pay(10, { body: { to: "alice", amount: "5", client_secret: "s3cr3t-value-17" } })], ["--allow-write"], { env });
    assert.equal((plain.responses[0]!.result as { plan: { body: unknown } }).plan.body, "to=alice&amount=5&client_secret=***", JSON.stringify(plain.responses[0]));
    assert.equal(plain.responses[1]!.ok, true, JSON.stringify(plain.responses[1]));
    assert.deepEqual(seen(), ["/v1/pay to=alice&amount=5&client_secret=s3cr3t-value-17"]);
  } finally {
    await api.close();
  }
});

test("attack: a deepObject array nested 60 deep with 300,000 items (a 600 KB request) is refused at once, not written out as hundreds of megabytes of names: the call after it is answered and hcp goes on", async () => {
  const api = await recorder();
  try {
    const dir = tempDir("hcp-openapi-deep-");
    const doc = join(dir, "payments.json");
    // items: an array of anything (the document's own: of objects), so that arrays may nest in it.
    writeFileSync(doc, JSON.stringify({ ...DOC, servers: [{ url: `${api.origin}/v1` }] }).replace('"items":{"type":"array","items":{"type":"object"}}', '"items":{"type":"array"}'));
    const out = join(dir, "payments");
    const env = isolatedEnv();
    assert.equal((await hcp(["init", "--from-openapi", doc, "--out", out], { env })).code, 0);
    const deep = `{"id":1,"pack":"payments","verb":"post-customers","args":{"body":{"email":"a@b.c","items":${"[".repeat(60)}${Array(300_000).fill(1).join(",")}${"]".repeat(60)}}},"dry_run":true}`;
    const started = Date.now();
    const s = await execSession([out], [deep, JSON.stringify({ id: 2, pack: "payments", verb: "get-charges", args: {} })], ["--allow-write", "--concurrency", "1"], { env });
    assert.match(s.responses[0]!.error?.message ?? "", /argument "items": written as items\[…\]=value pairs, each value under its whole name, it comes to over 4194304 characters/, JSON.stringify(s.responses[0]).slice(0, 300));
    assert.equal(s.responses[1]!.ok, true, JSON.stringify(s.responses[1]));
    assert.ok(Date.now() - started < 60_000, `${Date.now() - started} ms`);
    assert.deepEqual(api.requests.map((r) => r.url), ["/v1/charges"], "only the second call reached the API");
  } finally {
    await api.close();
  }
});

/** An exec request line calling a verb of the payments pack. */
const payments = (id: number, verb: string, args: object) => JSON.stringify({ id, pack: "payments", verb, args });

test("attack: over hcp exec, nothing reaches the API that would stand where its query key goes (a form field api_key, a query object's API_KEY), nor an item holding the comma that joins a query value, nor a deepObject whose names come to megabytes as sent (a 15 KB key of € under 1,040 values); the call after them is answered", async () => {
  const api = await recorder();
  try {
    const dir = tempDir("hcp-openapi-key-places-");
    const doc = join(dir, "payments.json");
    const keyed = {
      ...DOC,
      servers: [{ url: `${api.origin}/v1` }],
      components: { securitySchemes: { key: { type: "apiKey", in: "query", name: "api_key" } } },
      security: [{ key: [] }],
    };
    // get-charges also takes an exploded object, whose properties are query parameters of their own.
    keyed.paths["/charges"].get.parameters.push({ name: "filter", in: "query", schema: { type: "object" } } as never);
    writeFileSync(doc, JSON.stringify(keyed));
    const out = join(dir, "payments");
    const env = isolatedEnv({ payments: { openapi: { key: "k-real-5e1d9a0b7c" } } });
    assert.equal((await hcp(["init", "--from-openapi", doc, "--out", out], { env })).code, 0);
    const s = await execSession(
      [out],
      [
        payments(1, "post-customers", { body: { email: "a@b.c", api_key: "test-account" } }),
        payments(2, "get-charges", { filter: { API_KEY: "test-account" } }),
        payments(3, "get-charges", { select: ["id,amount", "created"] }),
        payments(4, "get-charges", { created: { ["\u20ac".repeat(4000)]: Array(1040).fill(1) } }),
        payments(5, "get-charges", {}),
      ],
      ["--allow-write", "--concurrency", "1"],
      { env },
    );
    const why = s.responses.map((r) => r.error?.message ?? "");
    assert.match(why[0]!, /argument "body\.api_key" would be sent as the form field "api_key", where hcp puts the credential of security scheme "key"/);
    assert.match(why[1]!, /argument "filter" would be sent as the query parameter "API_KEY", where hcp puts the credential of security scheme "key"/);
    assert.match(why[2]!, /argument "\$select": "id,amount" holds ",", which separates its items here/);
    assert.match(why[3]!, /argument "created": written as created\[…\]=value pairs, each value under its whole name, it comes to over 4194304 characters/);
    assert.equal(s.responses[4]!.ok, true, JSON.stringify(s.responses[4]));
    assert.deepEqual(api.requests.map((r) => r.url), ["/v1/charges?api_key=k-real-5e1d9a0b7c"], "only the last call reached the API, with the key");
  } finally {
    await api.close();
  }
});

test("parameter names no client takes as an argument's (Twilio's DateSent<, Graph's $select, SendGrid's {field_name}, a filter[status]) are renamed so that every tool's arguments match ^[A-Za-z0-9_.-]{1,64}$ (Anthropic's API refuses the whole tool list otherwise), and sent under the document's names; a kept name never yields", async () => {
  const api = await recorder();
  try {
    const dir = tempDir("hcp-openapi-names-");
    writeFileSync(join(dir, "odd.json"), JSON.stringify({
      openapi: "3.0.3",
      info: { title: "odd", version: "1" },
      servers: [{ url: `${api.origin}/v1` }],
      paths: { "/messages/{Account Sid}": { get: { operationId: "list", parameters: [{ name: "Account Sid", in: "path", required: true, schema: { type: "string" } }, query("DateSent<"), query("DateSent>"), query("$select"), query("select"), query("{field_name}"), query("filter[status]")], responses: ok } } },
    }));
    writeFileSync(join(dir, "surface.json"), JSON.stringify({ id: "odd", kind: "openapi", openapi: { path: "odd.json" }, binding: { mode: "local", hub: "none" }, verbs: { list: {} } }));
    writeFileSync(join(dir, "policy.json"), JSON.stringify({ surface_id: "odd", verbs: { list: "read" } }));
    const env = isolatedEnv();
    const described = JSON.parse((await hcp(["describe", dir, "list", "--json"], { env })).stdout) as { verbs: { arguments: { name: string; description?: string }[] }[] };
    const names = described.verbs[0]!.arguments.map((a) => a.name);
    assert.deepEqual(names.toSorted(), ["Account_Sid", "DateSent_gt", "DateSent_lt", "field_name", "filter_status", "select", "select_2"]);
    for (const name of names) assert.match(name, /^[A-Za-z0-9_.-]{1,64}$/);
    assert.match(described.verbs[0]!.arguments.find((a) => a.name === "DateSent_lt")!.description!, /Sent as the query parameter "DateSent<"/);
    const r = await execSession([dir], [JSON.stringify({ id: 1, pack: "odd", verb: "list", args: { Account_Sid: "AC1", DateSent_lt: "2024-01-01", DateSent_gt: "2023-01-01", select: "plain", select_2: "id", field_name: "x", filter_status: "open" } })], [], { env });
    assert.equal(r.responses[0]!.ok, true, JSON.stringify(r.responses[0]));
    const url = new URL(api.requests[0]!.url, api.origin);
    assert.equal(url.pathname, "/v1/messages/AC1");
    assert.deepEqual([...url.searchParams].toSorted(), [["$select", "id"], ["DateSent<", "2024-01-01"], ["DateSent>", "2023-01-01"], ["filter[status]", "open"], ["select", "plain"], ["{field_name}", "x"]]);
  } finally {
    await api.close();
  }
});
