/**
 * The NCBI fault matrix: every live tool (and resource://pubmed/stats) through a real SDK client
 * against the fake NCBI answering every request with one fault. Free of jest: the test
 * (faults.test.ts) asserts each cell's code and advice, the bench (bench/sections/faults.ts) times
 * the same cells against their deadline.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  rateLimitReply,
  startFakeEutils,
  type FakeEutils,
  type FakeReply,
} from "../helpers/fake-eutils.js";
import { startHarness } from "../helpers/mcp.js";

/** Small limits so the matrix runs in seconds; a hang is ended by the deadline, not the timeout. */
export const FAULT_ENV = {
  NCBI_DEADLINE_MS: "2000",
  NCBI_TIMEOUT_MS: "5000",
  NCBI_MAX_RETRIES: "1",
  NCBI_MAX_RPS: "50",
  NCBI_CACHE_TTL_SECONDS: "0",
};
export const DEADLINE_MS = Number(FAULT_ENV.NCBI_DEADLINE_MS);
/** Retries back off 0–10 ms instead of 0–1 s (the client's injected backoff base). */
const BACKOFF_BASE_MS = 10;

export type Code = "RATE_LIMIT" | "UPSTREAM" | "ENTREZ";

export interface Fault {
  name: string;
  code: Code;
  /** Ends long before the deadline (nothing to wait for), or at the deadline (a hang). */
  ends: "early" | "deadline";
  reply: (utility: string) => FakeReply;
}

/** The root element NCBI gives each utility's XML reply. */
const ROOTS: Record<string, string> = {
  einfo: "eInfoResult",
  esearch: "eSearchResult",
  esummary: "eSummaryResult",
  efetch: "PubmedArticleSet",
  elink: "eLinkResult",
  espell: "eSpellResult",
  ecitmatch: "eCitMatchResult",
};
const root = (utility: string) => ROOTS[utility] ?? "eResult";

const HTML =
  "<!DOCTYPE html><html><head><title>Service unavailable</title></head>" +
  "<body><h1>NCBI is down for maintenance</h1></body></html>";

export const FAULTS: Fault[] = [
  {
    name: "429, no Retry-After",
    code: "RATE_LIMIT",
    ends: "early",
    reply: () => rateLimitReply(429),
  },
  {
    name: "429, Retry-After 1 s",
    code: "RATE_LIMIT",
    ends: "early",
    reply: () => rateLimitReply(429, 1),
  },
  {
    name: "429, Retry-After 3600 s",
    code: "RATE_LIMIT",
    ends: "early",
    reply: () => rateLimitReply(429, 3600),
  },
  {
    name: "JSON rate-limit body, HTTP 200",
    code: "RATE_LIMIT",
    ends: "early",
    reply: () => rateLimitReply(200),
  },
  {
    name: "HTTP 503",
    code: "UPSTREAM",
    ends: "early",
    reply: () => ({ status: 503, body: "Service Unavailable" }),
  },
  {
    name: "HTTP 500",
    code: "UPSTREAM",
    ends: "early",
    reply: () => ({ status: 500, body: "Internal Server Error" }),
  },
  // Ten minutes: only the call's deadline can end it (fake.close() cuts the wait short).
  {
    name: "hang",
    code: "UPSTREAM",
    ends: "deadline",
    reply: () => ({ body: "", delayMs: 600_000 }),
  },
  { name: "HTML page", code: "UPSTREAM", ends: "early", reply: () => ({ body: HTML }) },
  {
    name: "truncated XML",
    code: "UPSTREAM",
    ends: "early",
    reply: (u) => ({
      body: `<?xml version="1.0" encoding="UTF-8" ?>\n<${root(u)}><Count>12</Count><IdList><Id>3145`,
      contentType: "text/xml; charset=UTF-8",
    }),
  },
  {
    name: "<ERROR> document",
    code: "ENTREZ",
    ends: "early",
    reply: (u) => ({
      body: `<?xml version="1.0" encoding="UTF-8" ?>\n<${root(u)}><ERROR>Invalid query: unbalanced parentheses</ERROR></${root(u)}>`,
      contentType: "text/xml; charset=UTF-8",
    }),
  },
  {
    name: "JSON error body, HTTP 200",
    code: "ENTREZ",
    ends: "early",
    reply: () => ({ body: '{"error":"Search Backend failed: Invalid query"}' }),
  },
  { name: "empty 200", code: "UPSTREAM", ends: "early", reply: () => ({ body: "" }) },
  {
    name: "connection reset",
    code: "UPSTREAM",
    ends: "early",
    reply: () => ({ body: "", hangup: true }),
  },
  {
    name: "reply cut mid-body",
    code: "UPSTREAM",
    ends: "early",
    reply: (u) => ({
      body: `<${root(u)}>${"<Id>31452104</Id>".repeat(40)}</${root(u)}>`,
      truncate: true,
    }),
  },
];

export interface Target {
  name: string;
  /** A tool's arguments; absent for the resource. */
  args?: Record<string, unknown>;
}

export const TARGETS: Target[] = [
  { name: "pubmed_search", args: { query: "asthma" } },
  { name: "pubmed_fetch", args: { pmids: ["31452104"] } },
  { name: "pubmed_related", args: { pmid: "31452104" } },
  { name: "pubmed_cite", args: { pmids: ["31452104"], styles: ["apa"] } },
  { name: "pubmed_spell", args: { query: "asthmaa" } },
  {
    name: "pubmed_match_citations",
    args: {
      citations: [
        {
          journal: "proc natl acad sci u s a",
          year: "1991",
          volume: "88",
          firstPage: "3248",
          authorName: "mann bj",
          key: "ref1",
        },
      ],
    },
  },
  { name: "pubmed_trend", args: { query: "asthma", startYear: 2020, endYear: 2022 } },
  { name: "resource://pubmed/stats" },
];

export interface CellResult {
  /** The envelope's code (tools) or the JSON-RPC error's data.code (resource); null on success. */
  code: string | null;
  message: string;
  /** From the call's send to its answer, ms. */
  ms: number;
  /** Requests the fake NCBI received, and how many of them the client hung up on. */
  requests: number;
  abandoned: number;
}

/**
 * One cell: a fresh server (so no cool-down carries over from the previous cell) whose every NCBI
 * request gets the fault. The client's own timeout is far past the deadline, so a call that hangs
 * shows up as an SDK timeout error, not as a pass.
 */
export async function runCell(fake: FakeEutils, target: Target, fault: Fault): Promise<CellResult> {
  fake.reset();
  fake.route((req) => fault.reply(req.utility));
  const h = await startHarness({
    fake,
    env: FAULT_ENV,
    eutils: { backoffBaseMs: BACKOFF_BASE_MS },
  });
  const opts = { timeout: 60_000 };
  try {
    const started = performance.now();
    let code: string | null = null;
    let message = "";
    if (target.args) {
      const res = await h.client.callTool(
        { name: target.name, arguments: target.args },
        undefined,
        opts,
      );
      const text = (res.content as { type: string; text?: string }[])[0]?.text ?? "";
      if (res.isError) {
        const env = JSON.parse(text) as { error: { code: string; message: string } };
        ({ code, message } = env.error);
      } else {
        message = text.slice(0, 200);
      }
    } else {
      try {
        await h.client.readResource({ uri: target.name }, opts);
      } catch (err) {
        const data =
          err instanceof McpError ? (err.data as { code?: string } | undefined) : undefined;
        code = data?.code ?? `not an envelope: ${String(err)}`;
        message = err instanceof Error ? err.message : String(err);
      }
    }
    const ms = performance.now() - started;
    // The fake hears of a hang-up a moment after the client gives up; wait for it (boundedly).
    if (fault.ends === "deadline") {
      const until = Date.now() + 10_000;
      while (fake.requests.some((r) => !r.abandoned) && Date.now() < until) await sleep(10);
    }
    return {
      code,
      message,
      ms,
      requests: fake.requests.length,
      abandoned: fake.requests.filter((r) => r.abandoned).length,
    };
  } finally {
    await h.close();
  }
}

/** A fake NCBI for the matrix (its routes are set per cell). */
export const startFaultyNcbi = (): Promise<FakeEutils> => startFakeEutils();

/** Short column names for the fault × tool table. */
const COLUMN: Record<string, string> = {
  pubmed_search: "search",
  pubmed_fetch: "fetch",
  pubmed_related: "related",
  pubmed_cite: "cite",
  pubmed_spell: "spell",
  pubmed_match_citations: "match_citations",
  pubmed_trend: "trend",
  "resource://pubmed/stats": "stats (resource)",
};

/** The fault × tool table in markdown: the code each cell ended with (`cells` keyed "fault × target"). */
export function faultTable(cells: ReadonlyMap<string, string | null>, targets = TARGETS): string {
  const head = ["fault", ...targets.map((t) => COLUMN[t.name] ?? t.name)];
  const rows = FAULTS.map((f) => [
    f.name.replace(/</g, "&lt;"),
    ...targets.map((t) => cells.get(`${f.name} × ${t.name}`) ?? "—"),
  ]);
  return [head, head.map(() => "---"), ...rows].map((r) => `| ${r.join(" | ")} |`).join("\n");
}
