/**
 * The words docs/reference.md needs that no definition carries at run time: what each
 * configuration variable means (src/config.ts keeps its schema private and its comments are not
 * data), what each error code means, and the JSON-RPC errors the protocol layer answers with.
 * scripts/reference.ts reads the variables and codes themselves from the sources and refuses to
 * write the reference while one of them has no entry here, or an entry here names none of them.
 */
import { DEFAULT_CROSSREF_BASE_URL } from "../src/config.js";

export interface ConfigNote {
  /** What the variable does, one line. */
  meaning: string;
  /** The default when src/config.ts derives it (no `.default(...)` in the schema). */
  default?: string;
}

/** Every variable of src/config.ts's environment schema. */
export const CONFIG_NOTES: Record<string, ConfigNote> = {
  NCBI_EUTILS_BASE_URL: {
    meaning: "E-utilities base URL (tests and offline demos point it at a local server).",
  },
  NCBI_API_KEY: {
    meaning:
      "NCBI API key: raises the rate from 3 to 10 requests/s. Secret: never logged or returned.",
  },
  NCBI_TOOL: { meaning: "Sent as `tool` with every NCBI request." },
  NCBI_EMAIL: { meaning: "Sent as `email` with every NCBI request, as NCBI asks." },
  NCBI_MAX_RPS: {
    meaning:
      "Ceiling on NCBI requests started in any sliding second (shared by replicas on one database).",
    default: "3, or 10 with `NCBI_API_KEY`",
  },
  NCBI_MAX_RETRIES: { meaning: "Retries on 429, 5xx, timeouts, HTML or truncated replies." },
  NCBI_TIMEOUT_MS: { meaning: "Timeout of one request to an outside service (ms)." },
  NCBI_DEADLINE_MS: {
    meaning:
      "Total deadline of one tool call that reaches outside services, queue waits included (ms).",
  },
  CORPUS_DEADLINE_MS: {
    meaning:
      "Total deadline of a corpus-only call (`rag_search`, `rag_get`, checkpoints), its wait for the store included; past it: `STORE` (ms).",
  },
  NCBI_CACHE_TTL_SECONDS: {
    meaning: "Overrides every response-cache time to live; `0` disables the cache.",
    default: "per utility (EInfo and records a day, searches an hour)",
  },
  NCBI_CACHE_MAX_MB: { meaning: "Size cap of the in-memory response cache (MB)." },
  NCBI_IDCONV_BASE_URL: { meaning: "PMC ID Converter service root; shares NCBI's rate limit." },
  EUROPEPMC_BASE_URL: {
    meaning: "Europe PMC REST (search, full-text XML, citations); its own limiter.",
  },
  UNPAYWALL_BASE_URL: { meaning: "Unpaywall v2 (the last tier of `pubmed_fulltext`)." },
  UNPAYWALL_EMAIL: {
    meaning: "E-mail Unpaywall requires on every request; unset, the Unpaywall tier is skipped.",
  },
  PUBTATOR_BASE_URL: { meaning: "PubTator3 API (`pubmed_annotations`); its own limiter, 3/s." },
  CROSSREF_BASE_URL: {
    meaning:
      "Crossref REST API, for integrity notices on DOIs; Crossref is consulted only when this or `CROSSREF_MAILTO` is set.",
    default: `unset (Crossref off); \`${DEFAULT_CROSSREF_BASE_URL}\` with \`CROSSREF_MAILTO\``,
  },
  CROSSREF_MAILTO: {
    meaning: "Crossref's polite-pool `mailto`; setting it turns Crossref on. Never echoed.",
  },
  DATABASE_URL: {
    meaning:
      "PostgreSQL for the corpus; unset, the embedded store (PGlite) in `PUBMED_MCP_DATA_DIR`.",
  },
  PUBMED_MCP_DATA_DIR: {
    meaning: "Folder of the embedded store, held under an exclusive lock.",
    default: "`${XDG_DATA_HOME:-~/.local/share}/pubmed-mcp`",
  },
  XDG_DATA_HOME: {
    meaning: "Where `PUBMED_MCP_DATA_DIR` defaults to.",
    default: "`~/.local/share`",
  },
  XDG_CACHE_HOME: {
    meaning: "Where the template for fresh embedded stores is kept, in `…/pubmed-mcp`.",
    default: "`~/.cache`",
  },
  VECTOR_STORE: {
    meaning: "Where chunk vectors and BM25 postings live.",
    default: "`qdrant` when `QDRANT_URL` is set, else `pgvector`",
  },
  QDRANT_URL: { meaning: "Qdrant URL." },
  QDRANT_API_KEY: { meaning: "Qdrant API key. Secret." },
  QDRANT_COLLECTION: { meaning: "Qdrant collection of the chunks." },
  EMBEDDINGS_PROVIDER: {
    meaning:
      "`none`: lexical only (BM25); `cohere`: hybrid dense + BM25; `hash`: offline hashed vectors.",
    default: "`cohere` when `COHERE_API_KEY` is set, else `none`",
  },
  COHERE_API_KEY: { meaning: "Cohere API key (dense embeddings). Secret." },
  COHERE_BASE_URL: { meaning: "Cohere API base URL.", default: "Cohere's" },
  COHERE_EMBED_MODEL: { meaning: "Cohere embedding model." },
  MCP_TRANSPORT: { meaning: "`stdio`, or `http` (as `pubmed-mcp serve --http`)." },
  MCP_HTTP_HOST: { meaning: "Address the HTTP server binds." },
  MCP_HTTP_PORT: { meaning: "Port the HTTP server listens on (`0`: any free port)." },
  MCP_AUTH_TOKEN: { meaning: "Static bearer token for `/mcp` and `/sse`. Secret." },
  MCP_ALLOWED_ORIGINS: {
    meaning: "Comma list of `Origin`s allowed (they get CORS).",
    default: "origins on an allowed host",
  },
  MCP_ALLOWED_HOSTS: {
    meaning: "Comma list of `Host` values served (DNS-rebinding guard).",
    default: "loopback names on a loopback bind",
  },
  MCP_PUBLIC_URL: { meaning: "Public base URL of the server; the OAuth resource identifier." },
  MCP_AUTH_JWT_SECRET: {
    meaning: "Accept HS256 JWT bearer tokens signed with this secret. Secret.",
  },
  MCP_AUTH_JWKS_URL: { meaning: "Accept JWT bearer tokens signed by the keys of this JWKS." },
  MCP_AUTH_JWT_AUDIENCE: { meaning: "The `aud` a JWT must carry.", default: "`MCP_PUBLIC_URL`" },
  MCP_AUTH_JWT_ISSUER: {
    meaning: "The `iss` a JWT must carry.",
    default: "the only `MCP_AUTH_AUTHORIZATION_SERVERS` entry",
  },
  MCP_AUTH_AUTHORIZATION_SERVERS: {
    meaning: "Comma list of issuers named in the OAuth protected-resource metadata (RFC 9728).",
  },
  MCP_SESSION_IDLE_SECONDS: {
    meaning: "Idle time after which a Streamable HTTP session is closed (s).",
  },
  MCP_MAX_SESSIONS: { meaning: "Most Streamable HTTP sessions kept at once." },
  MCP_READ_ONLY: { meaning: "Hide the tools that write." },
  MCP_TOOLSETS: { meaning: "Offer only these toolsets.", default: "all" },
  MCP_MAX_ANSWER_BYTES: { meaning: "The most bytes of JSON text one tool answer holds." },
  LOG_LEVEL: { meaning: "winston level; logs go to stderr." },
};

/** Every code of src/errors.ts's ErrorCode. */
export const ERROR_NOTES: Record<string, string> = {
  VALIDATION:
    "The call's arguments are wrong (each bad path named), or its answer cannot fit `MCP_MAX_ANSWER_BYTES`: fix the call as the message says.",
  NOT_FOUND:
    "The call is well formed but names nothing that exists (a PMID, review, checkpoint, export).",
  RATE_LIMIT:
    'NCBI (or another service) kept saying "slow down" after the retries, or a wait would outlast the call\'s deadline; `details` may say when to retry.',
  UPSTREAM:
    "An outside service was unreachable, answered 5xx, timed out, or sent HTML or a truncated body; also a call past its deadline, or cancelled.",
  ENTREZ: "NCBI answered, reporting an error about the request itself (its `<ERROR>` document).",
  INVARIANT_FAILURE:
    "Something this server guarantees did not hold (a bug, or a thread that died).",
  STORE:
    "The local corpus store failed, is held by another process, is still opening, or did not answer within `CORPUS_DEADLINE_MS`.",
  EMBEDDINGS:
    "The embedding provider failed, or the corpus was built with another embedder (`pubmed-mcp reindex`).",
  VECTOR_STORE: "The vector store (Qdrant or pgvector) failed.",
  UNKNOWN:
    "Anything unexpected: logged in full, answered with a reference id only (`details.ref`).",
};

export interface ProtocolErrorNote {
  code: number;
  when: string;
}

/** JSON-RPC errors (not tool results): src/protocol, src/server.ts, src/http. */
export const PROTOCOL_ERRORS: ProtocolErrorNote[] = [
  { code: -32700, when: "The message is not JSON (id `null`); the session goes on." },
  {
    code: -32600,
    when: "JSON that is not one JSON-RPC message: a batch, a numeric id beyond ±(2^53 − 1), or a stdio line over 4 MiB.",
  },
  {
    code: -32602,
    when: "An unknown (or not offered) tool, prompt or completion reference, naming what exists; a prompt's bad arguments.",
  },
  {
    code: -32002,
    when: "`resources/read` of a URI this server does not hold, saying how to get it.",
  },
  {
    code: -32000,
    when: "HTTP only: a refused request (Host or Origin not allowed, a method /mcp does not take, a request without its session id, too many sessions).",
  },
  {
    code: -32001,
    when: "HTTP only: a missing or invalid bearer token (401), or an unknown, expired or ended session (404).",
  },
  { code: -32603, when: "HTTP only: the server failed to handle the request (500)." },
];
