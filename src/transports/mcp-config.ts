// `hcp mcp-config`: the configuration an MCP client needs to start `hcp serve --mcp`, in each client's own format. Pure.

export const MCP_CLIENTS = ["claude", "vscode", "cursor", "codex", "json"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

/** The server entry: its name in the client, and the program with its arguments (absolute paths). */
export interface ServerEntry {
  name: string;
  command: string;
  args: string[];
  /** Variables the server must see that the client would not pass on (where hcp's places are: placesEnv); absent when none. */
  env?: Record<string, string>;
}

/**
 * A server the client reaches over HTTP (`hcp serve --mcp --http`): its URL, and the variable of the client's environment
 * that holds the bearer token, when the server takes one. The configuration names the variable, never the token.
 */
export interface RemoteEntry {
  name: string;
  url: string;
  tokenEnv?: string;
}

/** Where each client reads its configuration, for the operator. */
export const CONFIG_FILES: Readonly<Record<McpClient, string>> = {
  claude:
    "Claude Desktop: claude_desktop_config.json (macOS: ~/Library/Application Support/Claude/, Windows: %APPDATA%\\Claude\\), under mcpServers; Claude Code: .mcp.json in the project, under mcpServers",
  vscode: "VS Code: .vscode/mcp.json in the workspace (or the user mcp.json), under servers",
  cursor: "Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in the project), under mcpServers",
  codex: "Codex: ~/.codex/config.toml",
  json: "the command and its arguments, for any other client",
};

/** A TOML basic string: JSON's escapes are TOML's (\", \\, \n, \t, \uXXXX). */
const tomlString = (s: string) => JSON.stringify(s).replace(/[\u007f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);

/** A TOML key: bare when it can be, quoted otherwise. */
const tomlKey = (s: string) => (/^[A-Za-z0-9_-]+$/.test(s) ? s : tomlString(s));

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

/** Where each client reads the entry of a server it reaches over HTTP. */
export const REMOTE_CONFIG_FILES: Readonly<Record<McpClient, string>> = {
  claude: "Claude Code: .mcp.json in the project, under mcpServers (Claude Desktop's claude_desktop_config.json takes only servers it starts)",
  vscode: "VS Code: .vscode/mcp.json in the workspace (or the user mcp.json), inputs and servers; it asks for the token once and keeps it",
  cursor: "Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in the project), under mcpServers",
  codex: "Codex: ~/.codex/config.toml",
  json: "the configuration of any other client, in its own form",
};

/** The id of the VS Code input that asks for the token. */
const TOKEN_INPUT = "hcp-token";

/**
 * The entry of a server reached over HTTP, in each client's own form: the token is the client's to fill in at the start
 * from its environment (`${VAR}`, Cursor's `${env:VAR}`, Codex's bearer_token_env_var) or, in VS Code, by asking.
 */
export function renderRemoteConfig(client: McpClient, server: RemoteEntry): string {
  const { name, url, tokenEnv } = server;
  const bearer = (reference: string) => (tokenEnv === undefined ? {} : { headers: { Authorization: `Bearer ${reference}` } });
  switch (client) {
    case "claude":
      return json({ mcpServers: { [name]: { type: "http", url, ...bearer(`\${${tokenEnv}}`) } } });
    case "cursor":
      return json({ mcpServers: { [name]: { url, ...bearer(`\${env:${tokenEnv}}`) } } });
    case "vscode": {
      const inputs = tokenEnv === undefined ? {} : { inputs: [{ type: "promptString", id: TOKEN_INPUT, description: `The bearer token of ${name} (${tokenEnv})`, password: true }] };
      return json({ ...inputs, servers: { [name]: { type: "http", url, ...bearer(`\${input:${TOKEN_INPUT}}`) } } });
    }
    case "codex":
      return `[mcp_servers.${tomlKey(name)}]\nurl = ${tomlString(url)}\n${tokenEnv === undefined ? "" : `bearer_token_env_var = ${tomlString(tokenEnv)}\n`}`;
    case "json":
      return json({ name, url, ...(tokenEnv === undefined ? {} : { token_env: tokenEnv }) });
  }
}

export function renderMcpConfig(client: McpClient, server: ServerEntry): string {
  const { name, command, args, env } = server;
  const withEnv = env === undefined ? {} : { env };
  switch (client) {
    case "claude":
    case "cursor":
      return json({ mcpServers: { [name]: { command, args, ...withEnv } } });
    case "vscode":
      return json({ servers: { [name]: { type: "stdio", command, args, ...withEnv } } });
    case "codex": {
      const table = env === undefined ? "" : `env = { ${Object.entries(env).map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`).join(", ")} }\n`;
      return `[mcp_servers.${tomlKey(name)}]\ncommand = ${tomlString(command)}\nargs = [${args.map(tomlString).join(", ")}]\n${table}`;
    }
    case "json":
      return json({ name, command, args, ...withEnv });
  }
}
