// The MCP SDK's modules that hcp's servers use, each imported when first asked for. The programs' bundles replace
// this module (scripts/postbuild.mjs) by one that loads them from a bundle of their own, mcp-sdk.bundle.cjs (the SDK
// with zod and Ajv), with a V8 code cache (src/cli/launch.cjs): from node_modules, resolving and compiling their
// files was most of a server's start-up after tools/list, and the wait of a call that comes before it is done.

/** The SDK's Server. */
export function sdkServerModule(): Promise<typeof import("@modelcontextprotocol/sdk/server/index.js")> {
  return import("@modelcontextprotocol/sdk/server/index.js");
}

/** The SDK's message types and their schemas. */
export function sdkTypesModule(): Promise<typeof import("@modelcontextprotocol/sdk/types.js")> {
  return import("@modelcontextprotocol/sdk/types.js");
}

/** The SDK's Streamable HTTP server transport (hcp serve --mcp --http). */
export function sdkStreamableHttpModule(): Promise<typeof import("@modelcontextprotocol/sdk/server/streamableHttp.js")> {
  return import("@modelcontextprotocol/sdk/server/streamableHttp.js");
}
