import assert from "node:assert/strict";
import { test } from "node:test";
import type { DocumentHead } from "../../src/runtime/openapi/document.js";
import { serverChoice } from "../../src/runtime/openapi/server-choice.js";

const doc = (servers: unknown[] | undefined, url?: string): Pick<DocumentHead, "servers" | "source" | "url"> => ({
  servers,
  source: "api.json",
  ...(url ? { url: new URL(url) } : {}),
});
const NO_ABSOLUTE = 'the document names no absolute server URL: give the API\'s base URL in policy.json: "openapi": {"base_url": "https://…"}';
const region = { region: { default: "us-east-1", enum: ["us-east-1", "eu-west-1"] } };

test("the base URL a generated pack's policy.json names: none when the first server serves as it is", () => {
  assert.deepEqual(serverChoice(doc([{ url: "https://api.example.com/v1" }, { url: "http://api.example.com/v1" }])), {});
  assert.deepEqual(serverChoice(doc([{ url: "http://127.0.0.1:8080" }])), {});
});

test("an http server first: the first of the servers hcp calls (its variables at their defaults), said; none of them: said", () => {
  const aws = [
    { url: "http://ram.{region}.amazonaws.com", variables: region },
    { url: "https://ram.{region}.amazonaws.com", variables: region },
  ];
  assert.deepEqual(serverChoice(doc(aws)), {
    baseUrl: "https://ram.us-east-1.amazonaws.com/",
    note: "the document's first server http://ram.us-east-1.amazonaws.com/ is http:, which hcp calls only on loopback: policy.json openapi.base_url is https://ram.us-east-1.amazonaws.com/, the first of its servers hcp calls",
  });
  assert.deepEqual(serverChoice(doc([{ url: "http://api.example.com" }])), {
    note: 'the document\'s servers are http: (http://api.example.com/), which hcp calls only on loopback: if the API answers over https, give the API\'s base URL in policy.json: "openapi": {"base_url": "https://…"}',
  });
});

test("a server without a scheme: //host from a file is https, said; a relative one resolves against the document's URL; else said", () => {
  assert.deepEqual(serverChoice(doc([{ url: "//api.example.com/v2" }])), {
    baseUrl: "https://api.example.com/v2",
    note: 'the document\'s first server "//api.example.com/v2" names no scheme: policy.json openapi.base_url is https://api.example.com/v2 (hcp calls an API over https)',
  });
  assert.deepEqual(serverChoice(doc([{ url: "/api" }], "https://example.com/openapi.json")), { baseUrl: "https://example.com/api" });
  assert.deepEqual(serverChoice(doc([{ url: "//api.example.com" }], "https://example.com/openapi.json")), { baseUrl: "https://api.example.com/" });
  for (const servers of [[{ url: "/api" }], [{ url: "api.example.com" }], [{ url: "localhost:8080" }], [], undefined, [{ description: "no url" }]]) {
    assert.deepEqual(serverChoice(doc(servers)), { note: NO_ABSOLUTE }, JSON.stringify(servers));
  }
});
