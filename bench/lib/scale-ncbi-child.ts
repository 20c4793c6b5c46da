/**
 * The `scale` section's synthetic NCBI, in a process of its own: the demo's generator
 * (src/devtools/synth.ts, deterministic by PMID) for `records` records of one term, its EFetch XML
 * rendered once into a file in `dir` before it listens (1,000,000 records are about 6 GB: in
 * memory that would be the machine's; rendered per request, the generator would take a core from
 * the sync it feeds). EFetch reads a record's bytes back from the file; ESearch, its history
 * server and PubMed's 9,999-record reach are the generic stand-in's (src/devtools/synth-ncbi.ts).
 *
 * Argument: JSON {records, seed, term, dir}. Prints {"baseUrl"} as its first stdout line. Control:
 *   POST /__scale/change {revise, late}  revises `revise` records (new abstract, LR and MDAT over
 *     the last four days)
 *     spread evenly over the corpus and adds `late` new PMIDs of the term with Entrez dates in the
 *     old range, created today; answers {revised, rewritten}: the revised PMIDs, and those whose
 *     abstract text changed (a record without an abstract keeps none).
 *   POST /__scale/add {term, count}       adds `count` records of another term, entered over the last week;
 *     answers {pmids, titles} (titles of the newest three, the last a sync fetches).
 * Exits when its stdin closes (the parent went away), removing `dir`.
 */
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createSynthCorpus } from "../../src/devtools/synth.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { articleXml } from "../../src/devtools/synth-xml.js";

export interface ScaleNcbiSpec {
  records: number;
  seed: number;
  term: string;
  dir: string;
}

/** The Entrez dates of the term's records: 25 years, about 110 records a day at 1,000,000. */
export const SCALE_SPAN = { edatFrom: "2000-01-01", edatTo: "2024-12-31" };

const spec = JSON.parse(process.argv[2] ?? "{}") as ScaleNcbiSpec;
const corpus = createSynthCorpus({
  seed: spec.seed,
  terms: [{ term: spec.term, count: spec.records, ...SCALE_SPAN }],
});

const file = join(spec.dir, "efetch.xml");
const offsets = new Float64Array(spec.records + 1);
{
  const fd = openSync(file, "w");
  let pending: string[] = [];
  let pendingBytes = 0;
  let at = 0;
  for (let i = 0; i < spec.records; i++) {
    const xml = articleXml(corpus.recordAt(i));
    const bytes = Buffer.byteLength(xml);
    offsets[i] = at;
    at += bytes;
    pending.push(xml);
    pendingBytes += bytes;
    if (pendingBytes > 8 << 20 || i === spec.records - 1) {
      writeSync(fd, pending.join(""));
      pending = [];
      pendingBytes = 0;
    }
  }
  offsets[spec.records] = at;
  closeSync(fd);
}
const reader = openSync(file, "r");
/** Records whose rendered XML is stale (revised since). */
const revised = new Set<number>();

function rendered(pmid: string): string | undefined {
  const i = corpus.indexOf(pmid);
  if (i === undefined) return undefined;
  if (i >= spec.records || revised.has(i)) return articleXml(corpus.recordAt(i));
  const from = offsets[i] ?? 0;
  const buf = Buffer.allocUnsafe((offsets[i + 1] ?? from) - from);
  readSync(reader, buf, 0, buf.length, from);
  return buf.toString("utf8");
}

const handle = synthHandler(corpus, { renderedArticle: rendered });
const today = () => new Date().toISOString().slice(0, 10);

function change(body: { revise: number; late: number }) {
  const now = new Date();
  const step = Math.max(1, Math.floor(spec.records / Math.max(1, body.revise)));
  const pmids: string[] = [];
  const rewritten: string[] = [];
  const text = (i: number) => JSON.stringify(corpus.recordAt(i).abstract);
  for (let k = 0; k < body.revise && k * step < spec.records; k++) {
    const i = k * step + Math.floor(step / 2);
    const was = text(i);
    // Over today and the three days before (inside the next sync's overlap): one day of 10,000
    // modifications would pass ESearch's reach, which the sync leaves to its next call.
    const mdat = new Date(now.getTime() - (k % 4) * 86_400_000);
    corpus.revise(corpus.pmidOf(i), { lr: mdat, changeAbstract: true });
    revised.add(i);
    pmids.push(corpus.pmidOf(i));
    if (text(i) !== was) rewritten.push(corpus.pmidOf(i));
  }
  corpus.add({ term: spec.term, count: body.late, ...SCALE_SPAN, createdAt: today() });
  return { revised: pmids, rewritten };
}

function add(body: { term: string; count: number }) {
  // Over the last week: one day of 10,000 would pass ESearch's reach (the sync warns, as it should).
  const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
  const pmids = corpus.add({
    term: body.term,
    count: body.count,
    edatFrom: day(7),
    edatTo: day(1),
  });
  const titles = pmids.slice(-3).map((p) => corpus.record(p)?.title ?? "");
  return { pmids, titles };
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const body = Buffer.concat(chunks).toString();
    if (url.pathname.startsWith("/__scale/")) {
      const input = JSON.parse(body || "{}") as never;
      const out = url.pathname === "/__scale/change" ? change(input) : add(input);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(out));
      return;
    }
    const params = {
      ...Object.fromEntries(url.searchParams),
      ...Object.fromEntries(new URLSearchParams(body)),
    };
    const utility = (url.pathname.split("/").pop() ?? "").replace(/\.f?cgi$/, "");
    const reply = handle({ utility, params }) ?? { status: 404, body: "no such utility" };
    res.writeHead(reply.status ?? 200, { "content-type": reply.contentType ?? "text/xml" });
    res.end(reply.body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(
    `${JSON.stringify({ baseUrl: `http://127.0.0.1:${port}/entrez/eutils` })}\n`,
  );
});
const quit = () => {
  rmSync(spec.dir, { recursive: true, force: true });
  process.exit(0);
};
process.once("SIGTERM", quit);
process.stdin.on("end", quit);
process.stdin.resume();
