// Setting a key of a record whatever its name: `record[key] = value` sets the prototype for "__proto__"
// instead of adding a key, where JSON (JSON.parse, Go) keeps "__proto__" as a key like any other.

/** Sets `key` as an own, enumerable, writable property of `record`, also for "__proto__". */
export function setOwn(record: object, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else (record as Record<string, unknown>)[key] = value;
}
