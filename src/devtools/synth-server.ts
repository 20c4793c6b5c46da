/**
 * The synthetic NCBI behind a real HTTP server on loopback, for the offline demo and benchmarks
 * (tests use __tests__/helpers/fake-eutils.ts, which adds fault injection). Optional latency and
 * a request ceiling imitate NCBI: a reply leaves `latencyMs` after its request arrived (or once
 * made, if that takes longer), and over `maxRps` requests in a sliding second get HTTP 429 with
 * NCBI's rate-limit body. `prerender` renders every record's EFetch XML before the server listens,
 * so a benchmark's EFetch replies take the latency it set rather than the generator's CPU time
 * (only for a corpus not revised while served). The literature services (PMC ID Converter,
 * Europe PMC, Unpaywall, PubTator) are served on the same port under their own paths; `env`
 * points the server at them.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SYNTH_BASES, synthLiterature } from "./synth-literature.js";
import { synthHandler } from "./synth-ncbi.js";
import { articleXml } from "./synth-xml.js";
import type { SynthCorpus } from "./synth.js";

export interface SynthServer {
  baseUrl: string;
  /** The literature services' base URLs on this server (NCBI_IDCONV_BASE_URL, EUROPEPMC_BASE_URL, …). */
  env: Record<string, string>;
  /** Requests received (including refused ones). */
  requests: number;
  /** Requests refused with 429 for exceeding maxRps. */
  refused: number;
  close(): Promise<void>;
}

export async function startSynthServer(
  corpus: SynthCorpus,
  opts: {
    host?: string;
    port?: number;
    latencyMs?: number;
    maxRps?: number;
    prerender?: boolean;
  } = {},
): Promise<SynthServer> {
  const handle = synthHandler(corpus, opts.prerender ? { renderedArticle: prerender(corpus) } : {});
  const literature = synthLiterature(corpus);
  const starts: number[] = [];
  const state = { requests: 0, refused: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      state.requests++;
      const url = new URL(req.url ?? "/", "http://localhost");
      const params = Object.fromEntries(url.searchParams);
      Object.assign(
        params,
        Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())),
      );
      const utility =
        url.pathname
          .split("/")
          .pop()
          ?.replace(/\.f?cgi$/, "") ?? "";
      const now = Date.now();
      while (starts.length > 0 && (starts[0] ?? 0) <= now - 1000) starts.shift();
      starts.push(now);
      const limited = opts.maxRps !== undefined && starts.length > opts.maxRps;
      const reply = limited
        ? {
            status: 429,
            body: '{"error":"API rate limit exceeded","count":"11"}',
            contentType: "application/json",
          }
        : (literature(url.pathname, params) ??
          handle({ utility, params }) ?? {
            status: 404,
            body: `no such utility: ${utility}`,
            contentType: "text/plain",
          });
      if (limited) state.refused++;
      const made = Date.now() - now;
      setTimeout(
        () => {
          res.writeHead(reply.status ?? 200, { "Content-Type": reply.contentType ?? "text/xml" });
          res.end(reply.body);
        },
        Math.max(0, (opts.latencyMs ?? 0) - made),
      );
    });
  });
  await new Promise<void>((resolve) =>
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/entrez/eutils`,
    env: {
      NCBI_IDCONV_BASE_URL: `http://127.0.0.1:${port}${SYNTH_BASES.idconv}`,
      EUROPEPMC_BASE_URL: `http://127.0.0.1:${port}${SYNTH_BASES.europepmc.replace(/\/$/, "")}`,
      UNPAYWALL_BASE_URL: `http://127.0.0.1:${port}${SYNTH_BASES.unpaywall.replace(/\/$/, "")}`,
      PUBTATOR_BASE_URL: `http://127.0.0.1:${port}${SYNTH_BASES.pubtator.replace(/\/$/, "")}`,
    },
    get requests() {
      return state.requests;
    },
    get refused() {
      return state.refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function prerender(corpus: SynthCorpus): (pmid: string) => string | undefined {
  const rendered: string[] = [];
  for (let i = 0; i < corpus.size; i++) rendered.push(articleXml(corpus.recordAt(i)));
  return (pmid) => {
    const index = corpus.indexOf(pmid);
    return index === undefined ? undefined : rendered[index];
  };
}
