// The rungrad library: the manifest, agentmeta and skill core, wire-compatible with Go rungrad.
export { stableJSON, compactJSON, JsonNumber } from "./json/stable.js";
export * from "./manifest/types.js";
export * from "./manifest/errors.js";
export * from "./agentmeta/types.js";
