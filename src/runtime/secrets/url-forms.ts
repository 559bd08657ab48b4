// How a secret looks once written into a URL (§12): a program printing a link, a server echoing the request URL.
// A form is as specific as the value itself, so masking it hides nothing else. Pure.

const lowerHex = (s: string) => s.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());

/**
 * A value as written into a URL (a Location, a login URL's `next=`, a remote printed by a CLI): percent-encoded (either
 * hex case, `/` kept or not, as Python's quote does) or form-encoded (spaces as +); and each of those encoded once more,
 * as a server writes the whole request URL, or a header it received, into another URL. None of a value that is not
 * valid Unicode (a lone surrogate): it has no UTF-8 form to encode.
 */
export function urlForms(value: string): string[] {
  let percent: string;
  try {
    percent = encodeURIComponent(value);
  } catch {
    return []; // URIError: a lone surrogate
  }
  const once = [percent, percent.replace(/%2F/g, "/"), new URLSearchParams({ v: value }).toString().slice(2)];
  const forms = [...once, ...once.map(encodeURIComponent)];
  return [...forms, ...forms.map(lowerHex)].filter((form) => form !== value);
}
