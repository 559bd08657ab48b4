import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
const dir = process.argv[2];
for (let r = 0; r < 3; r++) {
const client = new Client({ name: "bench", version: "1" });
const tr = new StdioClientTransport({ command: process.execPath, args: [`${dir}/dist/src/cli/hcp.js`, "serve", "--mcp", "/work/main/test/fixtures/packs/hcp-probe"], env: process.env, stderr: "inherit" });
await client.connect(tr);
await client.listTools();
await new Promise((r) => setTimeout(r, 1500));
for (let i = 0; i < 3; i++) { const t1 = performance.now();
await client.callTool({ name: "hcp-probe_echo", arguments: { message: "x", count: 1 } });
console.log("client", (performance.now() - t1).toFixed(1)); }
await client.close();
}
