// The json package: Go-compatible JSON output (stable), input (literal), and Go string quoting.
export * from "./stable.js";
export * from "./literal.js";
export * from "./goquote.js";
