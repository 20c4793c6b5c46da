/**
 * resource://pubmed/info — what this server is and how it talks to NCBI, for operators and agents
 * deciding how hard they may push. Never carries a secret (API keys, tokens, DATABASE_URL, URLs
 * that could embed credentials); the resources test sets them and searches the JSON for them.
 */
import { getConfig, getEutils, getState } from "../state.js";
import { VERSION } from "../version.js";
import { defineResource } from "./resource.js";

export const infoResource = defineResource({
  uri: "resource://pubmed/info",
  name: "info",
  description:
    "Server identity and runtime state as JSON: version, transport, read-only mode, toolsets, " +
    "NCBI compliance (API key in use yes/no, tool name, e-mail set yes/no, request-rate " +
    "ceiling), E-utilities queue length, last NCBI contact, response-cache hits/misses, and " +
    "which stores are in use.",
  mimeType: "application/json",
  read: async (ctx) => {
    const config = getConfig();
    const eutils = getEutils().info();
    const info = {
      name: ctx.serverName,
      version: VERSION,
      transport: config.transport,
      readOnly: config.readOnly,
      toolsets: ctx.toolsets,
      startedAt: getState().startedAt.toISOString(),
      tools: ctx.tools.map((t) => t.name),
      ncbi: {
        apiKeyInUse: eutils.apiKeyInUse,
        tool: eutils.tool,
        emailSet: config.ncbi.email !== undefined,
        maxRps: eutils.maxRps,
      },
      queue: {
        waiting: eutils.queueSize,
        running: eutils.pending,
        started: eutils.requestsStarted,
      },
      lastContact: eutils.lastContact,
      cache: eutils.cache,
      stores: {
        metadata: config.databaseUrl ? "postgres" : "pglite",
        vectors: config.vectorStore,
        embeddings: {
          provider: config.embeddings.provider,
          model:
            config.embeddings.provider === "cohere"
              ? config.embeddings.cohereModel
              : config.embeddings.provider,
        },
      },
      http:
        config.transport === "http"
          ? {
              authRequired: config.http.authToken !== undefined || config.http.jwt !== undefined,
              originsRestricted: config.http.allowedOrigins !== undefined,
            }
          : null,
    };
    return JSON.stringify(info, null, 2);
  },
});
