/**
 * Extra MCP sessions on the state a harness installed, each with its own official SDK client,
 * recording the notifications a protocol test looks at.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type LoggingMessageNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { createSession } from "../../src/server.js";

export type LogMessage = LoggingMessageNotification["params"];

export interface Session {
  client: Client;
  messages: LogMessage[];
  /** URIs of notifications/resources/updated, in arrival order. */
  updated: string[];
  close: () => Promise<void>;
}

export async function connectSession(): Promise<Session> {
  const session = createSession();
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await session.connect(serverTransport);
  const client = new Client({ name: "protocol-test", version: "1.0.0" });
  const messages: LogMessage[] = [];
  const updated: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    messages.push(n.params);
  });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
  });
  await client.connect(clientTransport);
  return {
    client,
    messages,
    updated,
    close: async () => {
      await client.close();
      await session.close();
    },
  };
}

export async function waitFor(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Lets notifications already on their way arrive before asserting that others did not. */
export const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 150));
