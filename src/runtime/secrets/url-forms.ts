// How a secret looks once written into a URL (§12): a program printing a link, a server echoing the request URL.
// A form is as specific as the value itself, so masking it hides nothing else. Pure.

const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());

/** Percent-encoding that keeps only RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`): where JavaScript keeps `!'()*`, Python, Go and PHP encode them. */
const strict = (percent: string) => percent.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * A value as written into a URL (a Location, a login URL's `next=`, a remote printed by a CLI), percent-encoded as the
 * common encoders write it: JavaScript's `encodeURIComponent` (with `/` kept or not) and `URLSearchParams` (Java's
 * URLEncoder alike); Python's `quote` (`/` kept, its default, or not; PHP's `rawurlencode`), `quote_plus` and
 * `urlencode` (Go's `QueryEscape`); PHP's `urlencode` (`~` encoded too); each in either hex case, and each encoded once
 * more, as a server writes the whole request URL, or a header it received, into another URL. None of a value that is
 * not valid Unicode (a lone surrogate): it has no UTF-8 form to encode.
 */
export function urlForms(value: string): string[] {
  let percent: string;
  try {
    percent = encodeURIComponent(value);
  } catch {
    return []; // URIError: a lone surrogate
  }
  const python = strict(percent);
  const plus = python.replace(/%20/g, "+");
  const once = [percent, percent.replace(/%2F/g, "/"), new URLSearchParams({ v: value }).toString().slice(2), python, python.replace(/%2F/g, "/"), plus, plus.replace(/~/g, "%7E")];
  const forms = [...once, ...once.map(encodeURIComponent)];
  return [...new Set([...forms, ...forms.map(lowerHex)])].filter((form) => form !== value);
}
