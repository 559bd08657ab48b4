// Every message an MCP server sends passes the redactor (§12), the SDK's own included: a request the SDK refuses,
// or a handler's error, may quote what the caller sent (a prompt name, a resource URI, a key of its params), and
// notifications carry stderr lines and warnings. Tool results are sent as they are: the runtime masked them. The
// message's structure (JSON-RPC's and MCP's field names, the method, a log level) is never masked: a secret that is
// such a word must not make the message one the client cannot read.

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { redactEnvelope, type Layout, type SecretSet } from "../runtime/secrets/redact.js";

type Message = Parameters<Transport["send"]>[0];

/** A server whose every transport masks what it sends with `secrets()` (read when a message is sent). */
export function maskOutgoing(server: { connect(transport: Transport): Promise<void> }, secrets: () => SecretSet): void {
  const connect = server.connect.bind(server);
  server.connect = (transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(masked(message, secrets), options);
    return connect(transport);
  };
}

/** A JSON-RPC message hcp's server sends: an error's message and data, and a notification's values, are foreign. */
export const MCP_MESSAGE: Layout = { jsonrpc: "public", method: "public", error: {}, params: { level: "public", logger: "public" } };

function masked(message: Message, secrets: () => SecretSet): Message {
  // A result is the runtime's (masked where it was made, numbers kept as their literal); anything else is masked here.
  if ("result" in message) return message;
  // The id is kept: it is how the client matches the answer to its request.
  const id = "id" in message ? { id: message.id } : {};
  return { ...(redactEnvelope(message, secrets(), MCP_MESSAGE) as Message), ...id } as Message;
}
