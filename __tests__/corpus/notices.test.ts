/**
 * Integrity notices in the corpus (docs/trust.md) through a real MCP client, on both Postgres
 * backends: rag_search and rag_get show a paper's corrections and expressions of concern, a later
 * sync's revision walk (MDAT) brings new ones, a paper that gains a retraction leaves rag_search,
 * and a store written before notices were kept gets them: its documents rows by the migration
 * that added their column, its chunk rows (read with the payload) from those.
 * The synthetic NCBI serves project-written records; these tests add CommentsCorrections links
 * to some of them, as PubMed does when a notice is published.
 */
import { afterEach, beforeEach, expect, it, jest } from "@jest/globals";
import { sql } from "kysely";
import { articleXml } from "../../src/devtools/synth-xml.js";
import { synthHandler } from "../../src/devtools/synth-ncbi.js";
import { openStore } from "../../src/store/db.js";
import { migrations } from "../../src/store/migrations/index.js";
import type { Notice } from "../../src/ncbi/notices.js";
import { corpusDb } from "../helpers/corpus-db.js";
import { useCorpusServer } from "../helpers/corpus-server.js";
import type { SyncOut } from "../helpers/corpus.js";
import { describeEachBackend } from "../helpers/db.js";
import { loadQdrantSpec, startFakeQdrant, type FakeQdrant } from "../helpers/fake-qdrant.js";
import { callTool, type Harness } from "../helpers/mcp.js";
import { useSynthNcbi } from "../helpers/synth-ncbi.js";

jest.setTimeout(120_000);

const TERM = "statin myopathy";
const KEY = "statins";
const MIGRATION = "2026_12_01_001_document_notices";

interface Paper {
  title: string;
  version: number;
  notices?: Notice[];
}
interface Result {
  doc_id: string;
  notices?: Notice[];
}

/** A CommentsCorrections link as PubMed writes it on the record the notice is about. */
const link = (refType: string, pmid: string, refSource: string) =>
  `<CommentsCorrections RefType="${refType}"><RefSource>${refSource}</RefSource>` +
  `<PMID Version="1">${pmid}</PMID></CommentsCorrections>`;

const ERRATUM = link("ErratumIn", "39990001", "J Test Notices. 2024 Mar 5;12(3):e1");
const CORRECTION: Notice = { type: "correction", notice_pmid: "39990001", date: "2024-03-05" };
const CONCERN_LINK = link("ExpressionOfConcernIn", "39990002", "J Test Notices. 2025 Jun;13(6):e9");
const CONCERN: Notice = { type: "expression_of_concern", notice_pmid: "39990002", date: "2025-06" };
const RETRACTION_LINK = link("RetractionIn", "39990003", "J Test Notices. 2025;13:e10");
const REPUBLISHED_LINK = link(
  "RetractedandRepublishedIn",
  "39990004",
  "J Test Notices. 2025;13:e11",
);

describeEachBackend("integrity notices in the corpus", (kind) => {
  const ncbi = useSynthNcbi({
    seed: 5,
    now: new Date("2025-06-30T12:00:00Z"),
    terms: [{ term: TERM, count: 60, edatFrom: "2020-01-01", edatTo: "2025-06-20" }],
  });
  const server = useCorpusServer(kind, ncbi);
  /** The links each record gains, by PMID (its reply carries them from then on). */
  let links: Map<string, string[]>;
  let h: Harness;
  let qdrant: FakeQdrant | undefined;

  beforeEach(() => {
    links = new Map();
    const handle = synthHandler(ncbi.corpus, {
      renderedArticle: (pmid) => {
        const record = ncbi.corpus.record(pmid);
        if (!record) return undefined;
        const xml = articleXml(record);
        const added = links.get(pmid);
        if (!added) return xml;
        // Where the DTD puts the list: after CitationSubset, before MeshHeadingList.
        const list = `<CommentsCorrectionsList>${added.join("")}</CommentsCorrectionsList>`;
        const at = ["<MeshHeadingList>", "<KeywordList", "</MedlineCitation>"]
          .map((tag) => xml.indexOf(tag))
          .find((i) => i >= 0);
        return `${xml.slice(0, at)}${list}${xml.slice(at)}`;
      },
    });
    ncbi.fake.route((req) => handle(req));
  });
  afterEach(async () => {
    await qdrant?.stop();
    expect(qdrant?.violations ?? []).toEqual([]);
    qdrant = undefined;
  });

  /** Records with no link of their own (the synthetic corpus retracts about 1 in 97). */
  const plain = () => ncbi.corpus.pmidsFor(TERM).filter((p) => !ncbi.corpus.record(p)?.retraction);
  const sync = async () => {
    const out = await callTool(h.client, "pubmed_sync_delta", { query_key: KEY, term: TERM });
    expect(out.isError).toBe(false);
    return out.json as SyncOut;
  };
  const paper = async (pmid: string) =>
    (await callTool(h.client, "rag_get", { doc_id: `pmid:${pmid}` })).json as Paper;
  const search = async (query: string) =>
    (
      (await callTool(h.client, "rag_search", { query, top_k: 20, quality_bias: false })).json as {
        results: Result[];
      }
    ).results;
  /** rag_search for the paper's own title: its result, and every result that has notices. */
  const searchFor = async (pmid: string) => {
    const results = await search((await paper(pmid)).title);
    return {
      own: results.find((r) => r.doc_id === `pmid:${pmid}`),
      withNotices: results.filter((r) => r.notices).map((r) => r.doc_id),
    };
  };

  /** The scenario every configuration runs: an erratum, then a revision bringing a concern. */
  async function erratumThenConcern(target: string): Promise<void> {
    links.set(target, [ERRATUM]);
    expect((await sync()).inserted).toBe(ncbi.corpus.pmidsFor(TERM).length);
    expect((await paper(target)).notices).toEqual([CORRECTION]);
    expect(await searchFor(target)).toEqual({
      own: expect.objectContaining({ notices: [CORRECTION] }),
      withNotices: [`pmid:${target}`],
    });

    ncbi.corpus.revise(target, { lr: new Date() });
    links.set(target, [ERRATUM, CONCERN_LINK]);
    expect(await sync()).toMatchObject({ inserted: 0, updated: 1, pmids_processed: 1 });
    expect(await paper(target)).toMatchObject({ version: 2, notices: [CORRECTION, CONCERN] });
    expect((await searchFor(target)).own?.notices).toEqual([CORRECTION, CONCERN]);
  }

  it("shows a correction, then the revision walk's expression of concern; a retraction leaves rag_search", async () => {
    h = await server.open();
    const [target, retracted, republished, other] = plain();
    await erratumThenConcern(target ?? "");
    // rag_get and the paper resource stay identical; a paper with no notice has no field.
    const resource = await h.client.readResource({ uri: `resource://pubmed/paper/${target}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(
      await paper(target ?? ""),
    );
    expect(await paper(other ?? "")).not.toHaveProperty("notices");

    for (const p of [retracted, republished]) {
      expect((await searchFor(p ?? "")).own).toBeDefined();
      ncbi.corpus.revise(p ?? "", { lr: new Date() });
    }
    links.set(retracted ?? "", [RETRACTION_LINK]);
    links.set(republished ?? "", [REPUBLISHED_LINK]);
    // The walk reads the first target again too (revised within the overlap): unchanged, skipped.
    expect(await sync()).toMatchObject({ inserted: 0, updated: 2 });
    expect((await paper(retracted ?? "")).notices).toEqual([
      { type: "retraction", notice_pmid: "39990003", date: "2025" },
    ]);
    expect((await paper(republished ?? "")).notices).toEqual([
      { type: "retraction", notice_pmid: "39990004", date: "2025" },
    ]);
    for (const p of [retracted, republished])
      expect((await searchFor(p ?? "")).own).toBeUndefined();
  });

  it("reads the notices with dense payloads too (hash embeddings)", async () => {
    h = await server.open({ EMBEDDINGS_PROVIDER: "hash" });
    await erratumThenConcern(plain()[7] ?? "");
  });

  const spec = loadQdrantSpec();
  (spec ? it : it.skip)(
    "keeps them in Qdrant's payload, and reads them from the documents rows for points written before",
    async () => {
      qdrant = await startFakeQdrant(spec!);
      h = await server.open({ VECTOR_STORE: "qdrant", QDRANT_URL: qdrant.url });
      const target = plain()[9] ?? "";
      await erratumThenConcern(target);
      const points = [...(qdrant.collections.get("pubmed_chunks")?.points.values() ?? [])];
      const own = points.filter((p) => p.payload.pmid === target);
      expect(own.length).toBeGreaterThan(0);
      for (const p of own) expect(p.payload.notices).toEqual([CORRECTION, CONCERN]);
      expect(points.find((p) => p.payload.pmid !== target)?.payload.notices).toEqual([]);
      // Points stored before payloads carried notices have no such field.
      for (const p of points) delete p.payload.notices;
      expect((await searchFor(target)).own?.notices).toEqual([CORRECTION, CONCERN]);
    },
  );

  it("gives the rows stored before the notices columns theirs (the migration, then the chunk rows)", async () => {
    h = await server.open();
    const [target, other] = plain();
    links.set(target ?? "", [ERRATUM, CONCERN_LINK]);
    await sync();
    const rows = async () =>
      (
        await sql<{ pmid: string; notices: Notice[] | null; version: number; updated_at: Date }>`
          select pmid, notices, version, updated_at from documents
          where pmid in (${target}, ${other}) order by pmid`.execute(corpusDb)
      ).rows;
    const written = await rows();
    await server.close();

    // The store as it was before the migration, with these records in it (and the chunk rows
    // as the pgvector adapter wrote them then); then migrated, and the server opened on it.
    const { env } = server.backend;
    const store = await openStore({
      dataDir: env.PUBMED_MCP_DATA_DIR ?? "",
      databaseUrl: env.DATABASE_URL,
    });
    try {
      await migrations[MIGRATION]?.down?.(store.db);
      await sql`alter table chunk_vectors drop column notices`.execute(store.db);
      const columns = await sql<{ n: number }>`select count(*)::int as n
        from information_schema.columns
        where table_name in ('documents', 'chunk_vectors') and column_name = 'notices'`.execute(
        store.db,
      );
      expect(columns.rows[0]?.n).toBe(0);
      await migrations[MIGRATION]?.up(store.db);
    } finally {
      await store.close();
    }

    h = await server.open();
    // The same values the writer stored, and no new version: the records did not change.
    expect(await rows()).toEqual(written);
    expect(written.find((r) => r.pmid === target)?.notices).toEqual([CORRECTION, CONCERN]);
    expect(written.find((r) => r.pmid === other)?.notices).toBeNull();
    expect((await paper(target ?? "")).notices).toEqual([CORRECTION, CONCERN]);
    expect((await searchFor(target ?? "")).own?.notices).toEqual([CORRECTION, CONCERN]);
    const chunkRows = await sql<{ pmid: string; notices: Notice[] | null }>`select pmid, notices
      from chunk_vectors where pmid in (${target}, ${other})`.execute(corpusDb);
    for (const r of chunkRows.rows) {
      expect(r.notices).toEqual(r.pmid === target ? [CORRECTION, CONCERN] : null);
    }
    expect(chunkRows.rows.length).toBeGreaterThan(1);
  });
});
