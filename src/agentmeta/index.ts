// Public API of agentmeta: the rungrad-agentmeta/1 document and its projection from a manifest.

export * from "./types.js";
export { AgentMetaError, canonicalGlobals, fromManifest, type CanonicalGlobal } from "./project.js";
