// The rungrad library: the manifest, agentmeta and skill core, wire-compatible with Go rungrad.
// The framework is `rungrad/framework`; harness packs and their runtime are `rungrad/pack` and `rungrad/runtime`.

export { stableJSON, compactJSON, JsonNumber, dictionary, StableJSONError } from "./json/stable.js";
export { goQuote } from "./json/goquote.js";
export { decodeGoBytes } from "./json/gobytes.js";
export * from "./manifest/index.js";
export * from "./agentmeta/index.js";
export * from "./skill/index.js";
