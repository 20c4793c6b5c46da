/**
 * §12 Reference verification: pubmed_verify_references through a real MCP client (SDK in-memory
 * transport, the server's state in this process) against the fake E-utilities server answering as
 * PubMed would from the recorded records (src/devtools/fixture-pubmed.ts), with NCBI's ceiling:
 * NCBI_MAX_RPS=10 at the client, and the fake refusing (HTTP 429) any request past 10 in a sliding
 * second, as NCBI does. The references are src/devtools/reference-set.ts's — real ones in six
 * styles, ones with a wrong field, invented ones — sent in batches of 100 of one style (shuffled,
 * so kinds mix). Per style: real references verified with the right PMID, invented ones called
 * verified, mismatches naming the wrong field, NCBI requests per reference, time per batch and
 * its rate floor (the batch's requests ÷ NCBI_MAX_RPS: no client can be faster), with the goals.
 */
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  rateLimitReply,
  startFakeEutils,
  type FakeEutils,
  type Route,
} from "../../__tests__/helpers/fake-eutils.js";
import { loadConfig } from "../../src/config.js";
import { fixturePubmedRoute, loadFixturePubmed } from "../../src/devtools/fixture-pubmed.js";
import {
  REFERENCE_KINDS,
  REFERENCE_STYLES,
  buildReferenceSet,
  type ReferenceCase,
} from "../../src/devtools/reference-set.js";
import { Rng } from "../../src/devtools/synth-random.js";
import { createSession } from "../../src/server.js";
import { closeProcess, initProcess } from "../../src/worker/process.js";
import type { BenchOptions } from "../lib/options.js";
import {
  GOALS,
  align,
  emptyTally,
  judge,
  pct,
  statusLine,
  tally,
  type BatchOutcome,
  type StyleTally,
  type VerifyResult,
} from "../lib/reference-scoring.js";
import { emptySection, figure, ratio, timed, type SectionResult } from "../lib/stats.js";
import { pgliteDir } from "../lib/stores.js";

const TOOL = "pubmed_verify_references";
const RPS = 10;
const BATCH = 100;
/** Per reply, on top of the client's own wait for its turn (NCBI answers in 100–500 ms). */
const LATENCY_MS = 50;
const SEED = 12;

/** NCBI's ceiling at the fake: a request past `rps` in the last second gets a 429. */
function ceiling(fake: FakeEutils, rps: number, refused: { n: number }): Route {
  return (req) => {
    const recent = fake.requests.filter((r) => r.at <= req.at && req.at - r.at < 1000).length;
    if (recent <= rps) return undefined;
    refused.n++;
    return rateLimitReply();
  };
}

function shuffled<T>(items: readonly T[], rng: Rng): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** `n` of a style's cases (all when undefined), every kind among them in its share, shuffled. */
function sample(cases: readonly ReferenceCase[], n: number | undefined, rng: Rng): ReferenceCase[] {
  const mixed = shuffled(cases, rng);
  if (n === undefined || n >= mixed.length) return mixed;
  const kinds = [...new Set(mixed.map((c) => c.kind))];
  const picked = kinds.flatMap((kind) => {
    const of = mixed.filter((c) => c.kind === kind);
    return of.slice(0, Math.max(1, Math.floor((n * of.length) / mixed.length)));
  });
  const rest = mixed.filter((c) => !picked.includes(c)).slice(0, Math.max(0, n - picked.length));
  return shuffled([...picked, ...rest], rng);
}

async function callBatch(client: Client, cases: ReferenceCase[]): Promise<VerifyResult[]> {
  const res = await client.callTool(
    { name: TOOL, arguments: { references: cases.map((c) => c.text) } },
    undefined,
    { timeout: 600_000 },
  );
  const first = (res.content as { type: string; text?: string }[])[0];
  if (res.isError) throw new Error(`${TOOL} failed: ${first?.text ?? "no text"}`);
  const out = (res.structuredContent ?? JSON.parse(first?.text ?? "{}")) as {
    results?: VerifyResult[];
  };
  return out.results ?? [];
}

export async function referencesSection(opts: BenchOptions): Promise<SectionResult> {
  const section = emptySection("references");
  if (!opts.sharedDir) {
    section.skipped = "the recorded PubMed records are in ../shared (PUBMED_SHARED_DIR), absent";
    return section;
  }
  const pubmed = loadFixturePubmed(join(opts.sharedDir, "fixtures", "eutils"));
  const all = buildReferenceSet(pubmed.records.map((r) => r.article));
  const rng = Rng.of(SEED);
  const plan = REFERENCE_STYLES.map((style) => ({
    style,
    cases: sample(
      all.filter((c) => c.style === style),
      opts.sizes.references.perStyle,
      rng,
    ),
  }));

  const refused = { n: 0 };
  const fake = await startFakeEutils({ latencyMs: LATENCY_MS });
  fake.route(fixturePubmedRoute(pubmed));
  fake.route(ceiling(fake, RPS, refused));
  const scratch = await pgliteDir();
  const outcomes = new Map<string, BatchOutcome[]>();
  const failures: string[] = [];
  try {
    await initProcess(
      loadConfig({
        NCBI_EUTILS_BASE_URL: fake.baseUrl,
        NCBI_MAX_RPS: String(RPS),
        // Every batch pays for its own requests: no reply cached from an earlier batch.
        NCBI_CACHE_TTL_SECONDS: "0",
        PUBMED_MCP_DATA_DIR: scratch.dataDir,
        LOG_LEVEL: "error",
      }),
    );
    const session = createSession();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.connect(serverSide);
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(clientSide);
    try {
      for (const { style, cases } of plan) {
        const batches: BatchOutcome[] = [];
        for (let start = 0; start < cases.length; start += BATCH) {
          const batch = cases.slice(start, start + BATCH);
          const before = fake.requests.length;
          const t = await timed(() => callBatch(client, batch));
          const results = align(batch, t.value);
          batches.push({
            cases: batch,
            results,
            requests: fake.requests.length - before,
            ms: t.ms,
          });
          batch.forEach((c, i) => {
            const why = judge(c, results[i]);
            if (why)
              failures.push(
                `${style}/${c.kind} (expected ${JSON.stringify(c.expect)}), ${why}: ${c.text.replace(/\s+/g, " ").slice(0, 140)}`,
              );
          });
        }
        outcomes.set(style, batches);
      }
    } finally {
      await client.close().catch(() => undefined);
      await session.close().catch(() => undefined);
      await closeProcess();
    }
  } finally {
    await fake.close();
    await scratch.cleanup();
  }

  const tallies = new Map<string, StyleTally>();
  for (const [style, batches] of outcomes) {
    const t = emptyTally();
    for (const b of batches) tally(t, b);
    tallies.set(style, t);
  }
  const total = emptyTally();
  for (const b of [...outcomes.values()].flat()) tally(total, b);
  tallies.set("all", total);

  for (const [style, t] of tallies) {
    const batches = style === "all" ? [...outcomes.values()].flat() : (outcomes.get(style) ?? []);
    const k = `references.${style}`;
    section.figures.push(
      figure(
        `${k}.real_verified_pct`,
        `${style}: real references verified with the right PMID (goal ≥ ${GOALS.realVerifiedPct} %)`,
        "%",
        [pct(t.realVerified, t.real)],
      ),
      figure(
        `${k}.fabricated_verified`,
        `${style}: invented references called verified (goal ${GOALS.fabricatedVerified})`,
        "references",
        [t.fabricatedVerified],
      ),
      figure(
        `${k}.field_named_pct`,
        `${style}: references with one wrong field answered mismatch naming it (goal ≥ ${GOALS.fieldNamedPct} %)`,
        "%",
        [pct(t.wrongNamed, t.wrong)],
      ),
      figure(
        `${k}.requests_per_reference`,
        `${style}: NCBI requests per reference (goal ≤ ${GOALS.requestsPerReference})`,
        "requests",
        [t.requests / t.references],
      ),
      figure(
        `${k}.ms_per_100`,
        `${style}: time per batch, per 100 references`,
        "ms",
        batches.map((b) => (b.ms * BATCH) / b.cases.length),
      ),
      figure(
        `${k}.rate_floor_ms_per_100`,
        `${style}: rate floor per 100 references (requests ÷ NCBI_MAX_RPS)`,
        "ms",
        batches.map((b) => ((b.requests / RPS) * 1000 * BATCH) / b.cases.length),
      ),
    );
    section.ratios.push(
      ratio(
        `${k}.vs_rate_floor`,
        `${style}: batch time vs its rate floor (goal ≤ ${GOALS.vsRateFloor}×)`,
        "batch time ÷ (its NCBI requests ÷ NCBI_MAX_RPS), batch by batch",
        batches.map((b) => b.ms),
        batches.map((b) => (b.requests / RPS) * 1000),
      ),
    );
  }

  const met = [
    pct(total.realVerified, total.real) >= GOALS.realVerifiedPct,
    total.fabricatedVerified <= GOALS.fabricatedVerified,
    pct(total.wrongNamed, total.wrong) >= GOALS.fieldNamedPct,
    total.requests / total.references <= GOALS.requestsPerReference,
    (section.ratios.find((r) => r.key === "references.all.vs_rate_floor")?.max ?? Infinity) <=
      GOALS.vsRateFloor,
  ];
  section.notes.push(
    `${total.references} references (${pubmed.size} recorded PubMed records) in ${[...outcomes.values()].flat().length} batches of up to ${BATCH}, one style each; NCBI_MAX_RPS=${RPS}, replies after ${LATENCY_MS} ms, the fake NCBI refusing past ${RPS} requests in a sliding second (${refused.n} refused); fake and server share this process.`,
    `goals met overall: ${met.filter(Boolean).length} of ${met.length} (real verified ≥ ${GOALS.realVerifiedPct} %, no invented one verified, field named ≥ ${GOALS.fieldNamedPct} %, ≤ ${GOALS.requestsPerReference} requests per reference, every batch ≤ ${GOALS.vsRateFloor}× its rate floor).`,
    `mismatches naming the field and the right PMID: ${total.wrongNamedRightPmid} of ${total.wrong}; references with no result: ${total.unanswered}.`,
    ...REFERENCE_KINDS.filter((k) => total.statuses.has(k)).map(
      (kind) => `${kind}: ${statusLine(total.statuses.get(kind))}`,
    ),
  );
  if (failures.length > 0) {
    process.stderr.write(
      `\nreferences: ${failures.length} answers other than expected; the first 40:\n${failures.slice(0, 40).join("\n")}\n\n`,
    );
  }
  return section;
}
