/**
 * A fake NCBI E-utilities server for tests: real HTTP on 127.0.0.1, plain node:http (no jest), so
 * the client under test goes through its whole network path. Point NCBI_EUTILS_BASE_URL at
 * `baseUrl`. Every request is recorded; replies come from routes you supply.
 *
 *   const fake = await startFakeEutils({ routes: [onUtility("esearch", fixtureReply("biopython/Entrez/esearch1.xml"))] });
 *   fake.failNext(2, { status: 503, body: "busy" });   // the next two requests fail, then routes answer
 *   expect(fake.requests.map((r) => r.utility)).toEqual(["esearch", "esearch", "esearch"]);
 *   await fake.close();
 *
 * Order of answering: queued `failNext` replies first, then routes (the most recently `route()`d
 * first, then `opts.routes` in order); the first route returning a reply wins. A request nothing
 * answers gets HTTP 404 with a body naming it, so a missing route shows up in the test.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_DIR, eutilsFixture } from "./paths.js";

export interface FakeRequest {
  /** "esearch", "efetch", … (the path's last segment without ".fcgi"). */
  utility: string;
  /** Query-string and form-body parameters merged (the body wins). */
  params: Record<string, string>;
  method: string;
  /** ms epoch when the request's headers arrived. */
  at: number;
  /** The client hung up before any reply was sent (it timed out, was cancelled, or gave up). */
  abandoned: boolean;
}

export interface FakeReply {
  status?: number;
  body: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (on top of `latencyMs`). */
  delayMs?: number;
  /** Defaults from the body: JSON, HTML, XML or plain text, as NCBI labels them. */
  contentType?: string;
  /** Send the headers and half the body, then destroy the socket (a reply cut mid-body). */
  truncate?: boolean;
  /** Destroy the socket without answering at all. */
  hangup?: boolean;
}

export type Route = (req: FakeRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeEutils {
  /** e.g. http://127.0.0.1:40123/entrez/eutils — same path shape as NCBI's. */
  baseUrl: string;
  /** Every request received, in arrival order. */
  requests: FakeRequest[];
  /** Adds a route ahead of all others. */
  route(r: Route): void;
  /** The next `n` requests get `reply` (or what the function builds), whatever the routes say. */
  failNext(n: number, reply: FakeReply | ((req: FakeRequest) => FakeReply)): void;
  /** Forgets recorded requests, pending failNext replies and routes added with route(). */
  reset(): void;
  close(): Promise<void>;
  /** The most requests that arrived within any sliding window of `ms` (default 1000). */
  maxInAnyWindow(ms?: number): number;
}

export async function startFakeEutils(
  opts: { routes?: Route[]; latencyMs?: number } = {},
): Promise<FakeEutils> {
  const baseRoutes = [...(opts.routes ?? [])];
  let added: Route[] = [];
  let forced: ((req: FakeRequest) => FakeReply)[] = [];
  const requests: FakeRequest[] = [];
  let resets = 0;
  /** Pending reply delays, cut short by close() so no timer outlives the server. */
  const delays = new Set<() => void>();

  /** Waits `ms`, or less if the client hangs up first (then `send` finds the reply destroyed). */
  const pause = (ms: number, res: ServerResponse) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        delays.delete(done);
        res.off("close", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      delays.add(done);
      res.once("close", done);
    });

  const answer = async (req: FakeRequest): Promise<FakeReply> => {
    if (!req.utility) {
      return {
        status: 404,
        body: "fake-eutils: not an endpoint NCBI documents",
        contentType: "text/plain",
      };
    }
    const next = forced.shift();
    if (next) return next(req);
    for (const r of [...added, ...baseRoutes]) {
      const reply = await r(req);
      if (reply) return reply;
    }
    const query = new URLSearchParams(req.params).toString();
    return {
      status: 404,
      body: `fake-eutils: no route answers ${req.method} ${req.utility}?${query}`,
      contentType: "text/plain",
    };
  };

  const server = createServer((inc, res) => {
    const at = Date.now();
    const era = resets;
    let gone = false;
    let req: FakeRequest | undefined;
    let replied = false;
    res.once("close", () => {
      gone = true;
      if (req && !replied) req.abandoned = true;
    });
    readParams(inc).then(
      async ({ utility, params }) => {
        // A request from before reset() belongs to the previous test: neither record nor answer it.
        if (era !== resets) return void res.destroy();
        req = { utility, params, method: inc.method ?? "GET", at, abandoned: gone };
        requests.push(req);
        // A client that already gave up must not use up a failNext reply meant for the next one.
        if (gone) return;
        let reply: FakeReply;
        try {
          reply = await answer(req);
        } catch (err) {
          reply = { status: 500, body: `fake-eutils: route threw: ${String(err)}` };
        }
        const delay = (opts.latencyMs ?? 0) + (reply.delayMs ?? 0);
        if (delay > 0) await pause(delay, res);
        if (gone) return;
        replied = true;
        send(res, reply);
      },
      () => res.destroy(), // the client went away mid-body
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/entrez/eutils`,
    requests,
    route: (r) => {
      added.unshift(r);
    },
    failNext: (n, reply) => {
      const build = typeof reply === "function" ? reply : () => reply;
      for (let i = 0; i < n; i++) forced.push(build);
    },
    reset: () => {
      resets += 1;
      requests.length = 0;
      forced = [];
      added = [];
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const done of [...delays]) done();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
    maxInAnyWindow: (ms = 1000) => maxInWindow(requests, ms),
  };
}

/** A route answering every request for one utility (optionally only when `when` agrees). */
export function onUtility(
  utility: string,
  reply: FakeReply | ((req: FakeRequest) => FakeReply | undefined),
  when: (req: FakeRequest) => boolean = () => true,
): Route {
  return (req) => {
    if (req.utility !== utility || !when(req)) return undefined;
    return typeof reply === "function" ? reply(req) : reply;
  };
}

/** A reply whose body is a recorded file under ../shared/fixtures/eutils. */
export function fixtureReply(relPath: string, contentType?: string): FakeReply {
  return { body: eutilsFixture(relPath), contentType };
}

/** The text of a file under the project's own fixtures/ folder. */
export function projectFixture(relPath: string): string {
  return readFileSync(join(REPO_DIR, "fixtures", relPath), "utf8");
}

/**
 * EFetch (retmode=xml) answered from records held in memory (`<PubmedArticle>` texts by PMID),
 * for requests whose ids pass `accept` (default: every id is held). Unknown ids are left out of
 * the set, as NCBI does.
 */
export function recordedEfetchRoute(
  records: ReadonlyMap<string, string>,
  accept: (ids: string[]) => boolean = (ids) => ids.every((id) => records.has(id)),
): Route {
  return onUtility(
    "efetch",
    (req) => ({
      body: `<?xml version="1.0" ?>\n<PubmedArticleSet>${(req.params.id ?? "")
        .split(",")
        .map((id) => records.get(id) ?? "")
        .join("\n")}</PubmedArticleSet>`,
    }),
    (req) => req.params.retmode === "xml" && accept((req.params.id ?? "").split(",")),
  );
}

/** NCBI's rate-limit body (ERRORS.md, quote 2), with HTTP 429 unless told otherwise. */
export function rateLimitReply(status = 429, retryAfterSeconds?: number): FakeReply {
  return {
    status,
    body: '{"error":"API rate limit exceeded","api-key":"203.0.113.7","count":"4","limit":"3"}',
    headers: retryAfterSeconds === undefined ? {} : { "Retry-After": String(retryAfterSeconds) },
  };
}

/**
 * The paths NCBI documents (https://www.ncbi.nlm.nih.gov/books/NBK25499/), written out here rather
 * than taken from the client so a wrong path in the client fails the tests: ECitMatch is a .cgi.
 * Any other path answers 404 and is recorded with an empty utility.
 */
const DOCUMENTED_ENDPOINTS = new Map<string, string>([
  ...["einfo", "esearch", "esummary", "efetch", "elink", "espell", "epost"].map(
    (u) => [`${u}.fcgi`, u] as const,
  ),
  ["ecitmatch.cgi", "ecitmatch"] as const,
]);

async function readParams(
  inc: IncomingMessage,
): Promise<{ utility: string; params: Record<string, string> }> {
  const url = new URL(inc.url ?? "/", "http://fake");
  const utility = DOCUMENTED_ENDPOINTS.get(url.pathname.split("/").pop() ?? "") ?? "";
  const params = Object.fromEntries(url.searchParams);
  const chunks: Buffer[] = [];
  for await (const chunk of inc) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  if (body) Object.assign(params, Object.fromEntries(new URLSearchParams(body)));
  return { utility, params };
}

/**
 * Runs `fn` after `ms`, or never if the client hangs up first: a delayed reply to a call that
 * timed out leaves no timer behind to hold the test process open.
 */
export function later(ms: number, res: ServerResponse, fn: () => void): void {
  const timer = setTimeout(() => {
    res.off("close", cancel);
    fn();
  }, ms);
  const cancel = () => clearTimeout(timer);
  res.once("close", cancel);
}

/** Writes `reply` (also used by the fake literature services, fake-literature.ts). */
export function send(res: ServerResponse, reply: FakeReply): void {
  if (reply.hangup) {
    res.socket?.destroy();
    return;
  }
  const body = Buffer.from(reply.body, "utf8");
  res.writeHead(reply.status ?? 200, {
    "Content-Type": reply.contentType ?? guessType(reply.body),
    "Content-Length": String(body.length),
    ...reply.headers,
  });
  if (reply.truncate) {
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.socket?.destroy());
    return;
  }
  res.end(body);
}

function guessType(body: string): string {
  const head = body.trimStart().slice(0, 64).toLowerCase();
  if (head.startsWith("{") || head.startsWith("[")) return "application/json; charset=UTF-8";
  if (head.startsWith("<!doctype html") || head.startsWith("<html"))
    return "text/html; charset=UTF-8";
  if (head.startsWith("<")) return "text/xml; charset=UTF-8";
  return "text/plain; charset=UTF-8";
}

/** The most of `requests` that arrived within any sliding window of `ms`. */
export function maxInWindow(requests: readonly { at: number }[], ms: number): number {
  const times = requests.map((r) => r.at).sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < times.length; hi++) {
    while ((times[hi] ?? 0) - (times[lo] ?? 0) >= ms) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}
