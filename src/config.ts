/**
 * The only reader of process.env. Validates everything once, lists every problem at once, and
 * returns a frozen Config. docs/configuration.md gives the public meaning of each variable.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { httpConfig, type HttpConfig } from "./config-http.js";
import { excerpt, listSome } from "./excerpt.js";
import { TOOLSETS, isToolset, type Toolset } from "./toolsets.js";

export type { HttpConfig, JwtConfig } from "./config-http.js";
export { httpProblems, isLoopback, LOOPBACK_HOSTS, normalizeHost } from "./config-http.js";

const bool = z
  .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
  .transform((v) => v === "true" || v === "1" || v === "yes");

const int = (min: number, max: number) =>
  z.coerce
    .number({ error: "must be a number" })
    .int({ error: "must be a whole number" })
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });

const url = z.url({ error: "must be an http(s) URL" }).refine((u) => /^https?:\/\//.test(u), {
  error: "must be an http(s) URL",
});

/** Crossref's REST API (https://api.crossref.org/swagger-ui/index.html). */
export const DEFAULT_CROSSREF_BASE_URL = "https://api.crossref.org";
/**
 * The most bytes of JSON text one tool answer holds (docs/configuration.md, "Answer size"):
 * 256 KiB, about 64,000 tokens, a fair share of a model's context for one call.
 */
export const DEFAULT_MAX_ANSWER_BYTES = 256 * 1024;
/**
 * MCP_TOOLSETS: a comma list of toolsets, any case, spaces ignored; a list naming none (or the
 * variable unset) is every toolset. Kept in TOOLSETS' order, each once.
 */
const toolsetList = z.string().transform((value, ctx): readonly Toolset[] => {
  const names = value
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  const unknown = [...new Set(names.filter((n) => !isToolset(n)))];
  if (unknown.length > 0) {
    const quoted = unknown.map((n) => `"${excerpt(n)}"`);
    ctx.addIssue({
      code: "custom",
      message: `has unknown toolset ${listSome(quoted, ", ")}: use a comma list of ${TOOLSETS.join(", ")}`,
    });
    return z.NEVER;
  }
  return names.length > 0 ? TOOLSETS.filter((t) => names.includes(t)) : TOOLSETS;
});

export const DEFAULT_IDCONV_BASE_URL = "https://pmc.ncbi.nlm.nih.gov/tools/idconv/api/v1/articles/";

const envSchema = z.object({
  NCBI_EUTILS_BASE_URL: url.default("https://eutils.ncbi.nlm.nih.gov/entrez/eutils"),
  NCBI_API_KEY: z.string().min(1).optional(),
  NCBI_TOOL: z.string().min(1).default("pubmed-mcp"),
  NCBI_EMAIL: z.email({ error: "must be an e-mail address" }).optional(),
  NCBI_MAX_RPS: int(1, 100).optional(),
  NCBI_MAX_RETRIES: int(0, 10).default(4),
  NCBI_TIMEOUT_MS: int(100, 600_000).default(30_000),
  NCBI_DEADLINE_MS: int(100, 3_600_000).default(120_000),
  CORPUS_DEADLINE_MS: int(100, 3_600_000).default(120_000),
  NCBI_CACHE_TTL_SECONDS: int(0, 7 * 86_400).optional(),
  NCBI_CACHE_MAX_MB: int(0, 4096).default(64),
  // NCBI's documented service root (https://pmc.ncbi.nlm.nih.gov/tools/id-converter-api/), trailing
  // slash included; it replaced https://www.ncbi.nlm.nih.gov/pmc/utils/idconv/v1.0/.
  NCBI_IDCONV_BASE_URL: url.default(DEFAULT_IDCONV_BASE_URL),
  EUROPEPMC_BASE_URL: url.default("https://www.ebi.ac.uk/europepmc/webservices/rest"),
  UNPAYWALL_BASE_URL: url.default("https://api.unpaywall.org/v2"),
  UNPAYWALL_EMAIL: z.email({ error: "must be an e-mail address" }).optional(),
  PUBTATOR_BASE_URL: url.default("https://www.ncbi.nlm.nih.gov/research/pubtator3-api"),
  // No default here: whether the operator set it is what turns Crossref on (see Config).
  CROSSREF_BASE_URL: url.optional(),
  CROSSREF_MAILTO: z.email({ error: "must be an e-mail address" }).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, { error: "must be a postgres:// URL" })
    .optional(),
  PUBMED_MCP_DATA_DIR: z.string().min(1).optional(),
  XDG_DATA_HOME: z.string().min(1).optional(),
  XDG_CACHE_HOME: z.string().min(1).optional(),
  VECTOR_STORE: z.enum(["qdrant", "pgvector"], { error: "must be qdrant or pgvector" }).optional(),
  QDRANT_URL: url.optional(),
  QDRANT_API_KEY: z.string().min(1).optional(),
  QDRANT_COLLECTION: z.string().min(1).default("pubmed_chunks"),
  EMBEDDINGS_PROVIDER: z
    .enum(["cohere", "hash", "none"], { error: "must be cohere, hash or none" })
    .optional(),
  COHERE_API_KEY: z.string().min(1).optional(),
  COHERE_BASE_URL: url.optional(),
  COHERE_EMBED_MODEL: z.string().min(1).default("embed-v4.0"),
  MCP_TRANSPORT: z.enum(["stdio", "http"], { error: "must be stdio or http" }).default("stdio"),
  MCP_HTTP_HOST: z.string().min(1).default("127.0.0.1"),
  MCP_HTTP_PORT: int(0, 65_535).default(3000),
  MCP_AUTH_TOKEN: z.string().min(1).optional(),
  MCP_ALLOWED_ORIGINS: z.string().min(1).optional(),
  MCP_ALLOWED_HOSTS: z.string().min(1).optional(),
  MCP_PUBLIC_URL: url.optional(),
  MCP_AUTH_JWT_SECRET: z
    .string()
    .min(32, { error: "must be at least 32 characters (HS256 needs a 256-bit secret)" })
    .optional(),
  MCP_AUTH_JWKS_URL: url.optional(),
  MCP_AUTH_JWT_AUDIENCE: z.string().min(1).optional(),
  MCP_AUTH_JWT_ISSUER: z.string().min(1).optional(),
  MCP_AUTH_AUTHORIZATION_SERVERS: z.string().min(1).optional(),
  MCP_SESSION_IDLE_SECONDS: int(10, 7 * 86_400).default(1800),
  MCP_MAX_SESSIONS: int(1, 100_000).default(1000),
  MCP_READ_ONLY: bool.default(false),
  MCP_TOOLSETS: toolsetList.optional(),
  MCP_MAX_ANSWER_BYTES: int(16_384, 64 * 1024 * 1024).default(DEFAULT_MAX_ANSWER_BYTES),
  LOG_LEVEL: z
    .enum(["error", "warn", "info", "http", "verbose", "debug", "silly"], {
      error: "must be one of error, warn, info, http, verbose, debug, silly",
    })
    .default("info"),
});

export interface Config {
  ncbi: {
    baseUrl: string;
    apiKey: string | undefined;
    tool: string;
    email: string | undefined;
    maxRps: number;
    maxRetries: number;
    timeoutMs: number;
    deadlineMs: number;
    /** Overrides every per-utility cache TTL when set; 0 disables the cache. */
    cacheTtlSeconds: number | undefined;
    cacheMaxBytes: number;
    /** PMC ID Converter service root (DEFAULT_IDCONV_BASE_URL when absent); shares the E-utilities limiter. */
    idconvBaseUrl?: string;
  };
  /** The literature services beside NCBI, each behind its own limiter (src/net/clients.ts). */
  services: {
    europePmcBaseUrl: string;
    unpaywallBaseUrl: string;
    /** Unpaywall requires an email on every request; without it the Unpaywall tier is skipped. */
    unpaywallEmail: string | undefined;
    pubtatorBaseUrl: string;
    /**
     * Crossref's REST API, for integrity notices on DOIs (src/crossref/crossref.ts). Consulted only
     * when the operator opts in: CROSSREF_MAILTO set (Crossref's polite pool) or CROSSREF_BASE_URL
     * set explicitly (a mirror, a stand-in); otherwise no request is ever made.
     */
    crossref: {
      enabled: boolean;
      baseUrl: string;
      /** Sent as Crossref's `mailto` parameter, never echoed in URLs, logs or messages. */
      mailto: string | undefined;
    };
  };
  databaseUrl: string | undefined;
  /**
   * Total time of a call that only reads or writes the local corpus (rag_search, rag_get, the
   * checkpoints), its wait for the store included: a local wait, so it is not NCBI's deadline.
   */
  corpusDeadlineMs: number;
  dataDir: string;
  /** Rebuildable files: the embedded store's template (src/store/pglite-template.ts). */
  cacheDir: string;
  vectorStore: "qdrant" | "pgvector";
  qdrant: { url: string | undefined; apiKey: string | undefined; collection: string };
  embeddings: {
    /** `none`: lexical only (BM25), no vectors; `hash`: offline lexical-flavoured vectors. */
    provider: "cohere" | "hash" | "none";
    cohereApiKey: string | undefined;
    cohereBaseUrl: string | undefined;
    cohereModel: string;
  };
  transport: "stdio" | "http";
  http: HttpConfig;
  readOnly: boolean;
  /**
   * MCP_TOOLSETS: the toolsets whose tools (and corpus resources) are offered; every toolset by
   * default. Read-only mode still hides writing tools among them (src/server.ts, `offers`).
   */
  toolsets: readonly Toolset[];
  /** MCP_MAX_ANSWER_BYTES: the ceiling on every tool's answer (src/tools/answer.ts). */
  maxAnswerBytes: number;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

/** Empty variables count as unset, as in most shells' `VAR= cmd`. */
function withoutEmpty(env: Env): Env {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
}

/** `overrides` are CLI flags expressed as variables (e.g. `serve --http` → MCP_TRANSPORT=http). */
export function loadConfig(env: Env = process.env, overrides: Env = {}): Config {
  const parsed = envSchema.safeParse(withoutEmpty({ ...env, ...overrides }));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => `${i.path.join(".") || "environment"} ${i.message}`),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  const vectorStore = e.VECTOR_STORE ?? (e.QDRANT_URL ? "qdrant" : "pgvector");
  if (vectorStore === "qdrant" && !e.QDRANT_URL) {
    problems.push("VECTOR_STORE=qdrant needs QDRANT_URL");
  }
  // Without a real embedding model the corpus is lexical only: the offline hash "dense" leg scored
  // no better than BM25 alone on held-out sets and cost half the sync (README "Retrieval quality").
  const provider = e.EMBEDDINGS_PROVIDER ?? (e.COHERE_API_KEY ? "cohere" : "none");
  if (provider === "cohere" && !e.COHERE_API_KEY) {
    problems.push("EMBEDDINGS_PROVIDER=cohere needs COHERE_API_KEY");
  }
  const http = httpConfig(e, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const dataHome = e.XDG_DATA_HOME ?? join(homedir(), ".local", "share");
  const config: Config = {
    ncbi: {
      baseUrl: e.NCBI_EUTILS_BASE_URL.replace(/\/+$/, ""),
      apiKey: e.NCBI_API_KEY,
      tool: e.NCBI_TOOL,
      email: e.NCBI_EMAIL,
      // NCBI: 3 requests/s without an API key, 10 with one.
      maxRps: e.NCBI_MAX_RPS ?? (e.NCBI_API_KEY ? 10 : 3),
      maxRetries: e.NCBI_MAX_RETRIES,
      timeoutMs: e.NCBI_TIMEOUT_MS,
      deadlineMs: e.NCBI_DEADLINE_MS,
      cacheTtlSeconds: e.NCBI_CACHE_TTL_SECONDS,
      cacheMaxBytes: e.NCBI_CACHE_MAX_MB * 1024 * 1024,
      idconvBaseUrl: e.NCBI_IDCONV_BASE_URL,
    },
    services: {
      europePmcBaseUrl: e.EUROPEPMC_BASE_URL.replace(/\/+$/, ""),
      unpaywallBaseUrl: e.UNPAYWALL_BASE_URL.replace(/\/+$/, ""),
      unpaywallEmail: e.UNPAYWALL_EMAIL,
      pubtatorBaseUrl: e.PUBTATOR_BASE_URL.replace(/\/+$/, ""),
      crossref: {
        enabled: e.CROSSREF_MAILTO !== undefined || e.CROSSREF_BASE_URL !== undefined,
        baseUrl: (e.CROSSREF_BASE_URL ?? DEFAULT_CROSSREF_BASE_URL).replace(/\/+$/, ""),
        mailto: e.CROSSREF_MAILTO,
      },
    },
    databaseUrl: e.DATABASE_URL,
    corpusDeadlineMs: e.CORPUS_DEADLINE_MS,
    dataDir: e.PUBMED_MCP_DATA_DIR ?? join(dataHome, "pubmed-mcp"),
    cacheDir: join(e.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pubmed-mcp"),
    vectorStore,
    qdrant: { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY, collection: e.QDRANT_COLLECTION },
    embeddings: {
      provider,
      cohereApiKey: e.COHERE_API_KEY,
      cohereBaseUrl: e.COHERE_BASE_URL,
      cohereModel: e.COHERE_EMBED_MODEL,
    },
    transport: e.MCP_TRANSPORT,
    http,
    readOnly: e.MCP_READ_ONLY,
    toolsets: e.MCP_TOOLSETS ?? TOOLSETS,
    maxAnswerBytes: e.MCP_MAX_ANSWER_BYTES,
    logLevel: e.LOG_LEVEL,
  };
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
