// The base URL hcp init writes into a generated pack's policy.json when the document's first server is not one hcp
// calls as it is (§6.7: hcp calls https, or http to loopback): a relative server resolved against the document's URL,
// a scheme-less `//host` (Swagger 2 documents converted without one) as https, an http server's https sibling (AWS's
// documents list http first). Pure.

import { isObject } from "../../pack/issues.js";
import type { DocumentHead } from "./document.js";
import { checkTransportSecurity } from "./http.js";
import { SET_BASE_URL, serverUrl } from "./request.js";
import { placeholderLabel } from "./placeholder-host.js";

export interface ServerChoice {
  /** policy.json `openapi.base_url`; undefined when the first server serves as it is, or none does. */
  readonly baseUrl?: string;
  /** What hcp init says of it. */
  readonly note?: string;
}

const usable = (url: URL) => checkTransportSecurity(url, "") === undefined;
const NO_ABSOLUTE = `the document names no absolute server URL: ${SET_BASE_URL}`;

/** An http: or https: URL (`localhost:8080` is no scheme of those, but a relative reference gone wrong). */
function absolute(text: string, base?: URL): URL | undefined {
  try {
    const url = new URL(text, base);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The base URL hcp init writes, or none (the first server serves as it is; or none can), and what it says. A URL that
 * stands for the reader's own host is never written: the runtime refuses to call it only while no base URL is set.
 */
export function serverChoice(doc: Pick<DocumentHead, "servers" | "source" | "url">): ServerChoice {
  const choice = chosenServer(doc);
  const url = choice.baseUrl === undefined ? firstServer(doc) : absolute(choice.baseUrl);
  const placeholder = url === undefined ? undefined : placeholderLabel(url.hostname);
  if (placeholder === undefined) return choice;
  return { note: `the document's server ${url!.origin} stands for your own host (${JSON.stringify(placeholder)}): no verb runs until you ${SET_BASE_URL}` };
}

/** The first server's URL as written (its variables at their defaults), when absolute. */
function firstServer(doc: Pick<DocumentHead, "servers">): URL | undefined {
  const first = (Array.isArray(doc.servers) ? doc.servers : []).find((s) => isObject(s) && typeof s["url"] === "string");
  return first === undefined ? undefined : absolute(serverUrl(first as Record<string, unknown>));
}

function chosenServer(doc: Pick<DocumentHead, "servers" | "source" | "url">): ServerChoice {
  const servers = (Array.isArray(doc.servers) ? doc.servers : []).filter((s) => isObject(s) && typeof s["url"] === "string").map((s) => serverUrl(s as Record<string, unknown>));
  const first = servers[0];
  if (first === undefined) return { note: NO_ABSOLUTE };
  const own = absolute(first);
  if (own !== undefined && usable(own)) return {};
  if (own === undefined) {
    // Relative: the document's own URL says where it is; a file says nothing but `//host`, which https completes.
    const resolved = doc.url !== undefined ? absolute(first, doc.url) : first.startsWith("//") ? absolute(`https:${first}`) : undefined;
    if (resolved !== undefined && usable(resolved)) {
      return doc.url !== undefined ? { baseUrl: resolved.href } : { baseUrl: resolved.href, note: `the document's first server ${JSON.stringify(first)} names no scheme: policy.json openapi.base_url is ${resolved.href} (hcp calls an API over https)` };
    }
    return { note: NO_ABSOLUTE };
  }
  const https = servers.map((s) => absolute(s)).find((u) => u !== undefined && usable(u));
  if (https !== undefined) {
    return { baseUrl: https.href, note: `the document's first server ${own.href} is http:, which hcp calls only on loopback: policy.json openapi.base_url is ${https.href}, the first of its servers hcp calls` };
  }
  return { note: `the document's servers are http: (${own.href}), which hcp calls only on loopback: if the API answers over https, ${SET_BASE_URL}` };
}
