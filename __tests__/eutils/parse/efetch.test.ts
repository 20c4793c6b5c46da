import { describe, expect, test } from "@jest/globals";
import { EntrezError, RateLimitError, UpstreamError } from "../../../src/errors.js";
import { parseEFetch as parseWithReader } from "../../../src/ncbi/parse/efetch.js";
import { parseEFetchXml2js as parseWithXml2js } from "../../../src/ncbi/parse/efetch-xml2js.js";
import { emptyArticle, type Article } from "../../../src/ncbi/types.js";
import { describeShared, eutilsFixture, HAS_SHARED } from "../../helpers/shared.js";

/** Every test below runs on both readers of an EFetch body: xml2js, and the bulk path's reader. */
const READERS = [
  ["xml2js", parseWithXml2js],
  ["xml-reader", parseWithReader],
] as const;

describe.each(READERS)("%s", (_reader, parseEFetch) => {
  /** Rows of a fixture TSV as header → cell maps (the files mix LF and CRLF line ends). */
  function tsv(relPath: string): Record<string, string>[] {
    const [header = "", ...lines] = eutilsFixture(relPath).trim().split(/\r?\n/);
    const names = header.split("\t");
    return lines.map((line) => {
      const cells = line.split("\t");
      return Object.fromEntries(names.map((n, i) => [n, (cells[i] ?? "").trim()]));
    });
  }

  // test.each refuses an empty table even inside a skipped block, hence the stand-in row.
  const FEATURE_ROWS = HAS_SHARED ? tsv("EFETCH_FEATURES.tsv") : [{ file: "(../shared absent)" }];

  function only(relPath: string): Article {
    const articles = parseEFetch(eutilsFixture(relPath));
    expect(articles).toHaveLength(1);
    return articles[0] as Article;
  }

  const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/;

  describeShared("parseEFetch on recorded PubmedArticleSet replies", () => {
    test.each(FEATURE_ROWS.map((r) => [r.file ?? "", r] as const))(
      "%s: article count and first PMID as EFETCH_FEATURES.tsv states",
      (file, row) => {
        const articles = parseEFetch(eutilsFixture(file));
        expect(articles).toHaveLength(Number(row.PubmedArticle) + Number(row.PubmedBookArticle));
        expect(articles.filter((a) => a.recordType === "PubmedBookArticle")).toHaveLength(
          Number(row.PubmedBookArticle),
        );
        // first_pmids lists the first <PMID> elements in document order, comment links included.
        const firstPmid = row.first_pmids?.split(" ")[0];
        if (firstPmid) expect(articles[0]?.pmid).toBe(firstPmid);
      },
    );

    test("every MANIFEST file holding a PubmedArticleSet is covered, with its article count", () => {
      const listed = new Set(FEATURE_ROWS.map((r) => r.file));
      const sets = tsv("MANIFEST.tsv").filter(
        (r) =>
          r.local_file?.endsWith(".xml") &&
          eutilsFixture(r.local_file).includes("<PubmedArticleSet"),
      );
      expect(sets.length).toBeGreaterThan(100);
      for (const row of sets) {
        expect(listed).toContain(row.local_file);
        const count = Number(
          row["article_count(PubmedArticle+PubmedBookArticle, or MEDLINE records)"],
        );
        expect(parseEFetch(eutilsFixture(row.local_file ?? ""))).toHaveLength(count);
      }
    });

    test("text fields are trimmed single-spaced plain text and dates are ISO-8601 UTC", () => {
      for (const { file = "" } of FEATURE_ROWS) {
        for (const a of parseEFetch(eutilsFixture(file))) {
          expect(a.pmid).toMatch(/^\d+$/);
          for (const s of [a.title, ...a.abstractSections.map((x) => x.text), ...a.keywords]) {
            expect(s).toBe(s.replace(/\s+/g, " ").trim());
            expect(s).not.toMatch(/<\/?(?:i|b|u|sup|sub|mml:\w+)\b/);
          }
          const joined = a.abstractSections.map((x) =>
            x.label ? `${x.label}: ${x.text}` : x.text,
          );
          expect(a.abstractText).toBe(joined.join("\n\n"));
          for (const d of Object.values(a.articleDates)) if (d !== null) expect(d).toMatch(ISO_UTC);
          if (a.pmcid !== null) expect(a.pmcid).toMatch(/^PMC\d+$/);
          for (const author of a.authors) {
            if (author.orcid !== null)
              expect(author.orcid).toMatch(/^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$/);
          }
        }
      }
    });

    test("an empty PubmedArticleSet gives no articles", () => {
      expect(parseEFetch(eutilsFixture("metapub/pmid_xml/37909814.xml"))).toEqual([]);
    });

    test("structured abstract: labels, NLM categories and the joined text", () => {
      const a = only("biopython/Entrez/pubmed5.xml");
      expect(a.abstractSections.map((s) => [s.label, s.nlmCategory])).toEqual([
        ["OBJECTIVES", "OBJECTIVE"],
        ["METHODS", "METHODS"],
        ["RESULTS", "RESULTS"],
        ["CONCLUSIONS", "CONCLUSIONS"],
      ]);
      expect(a.abstractText).toMatch(/^OBJECTIVES: Animal studies suggest that exposure/);
      expect(a.abstractText).toContain(
        "applicators.\n\nMETHODS: Self-reported lifetime pesticide use was obtained",
      );
      // <u>&lt;</u> and <sub>Q3</sub> read inline, in place.
      expect(a.abstractText).toContain("compared with normal TSH (0.4-<4.5 mIU/L)");
      expect(a.abstractText).toContain("(ORQ3=4.15, 95% CI 1.56 to 11.01, ORQ4=4.76,");

      const labelsOnly = only("biopython/Entrez/pubmed4.xml").abstractSections;
      expect(labelsOnly.map((s) => [s.label, s.nlmCategory])).toEqual([
        ["OBJECTIVE", null],
        ["DESIGN", null],
        ["RESULTS", null],
        ["CONCLUSIONS", null],
      ]);
      expect(only("metapub/pmid_xml/31588070.xml").abstractSections[0]).toMatchObject({
        label: "PURPOSE",
        nlmCategory: "OBJECTIVE",
      });
    });

    test("inline markup in titles and abstracts reads in document order", () => {
      const gut = only("biopython/Entrez/pubmed4.xml");
      expect(gut.title).toBe(
        "Leucocyte telomere length, genetic variants at the TERT gene region and risk of pancreatic cancer.",
      );
      expect(gut.abstractSections[2]?.text).toContain(
        "95% CI 1.07 to 2.78; ptrend=0.048). Results remained unchanged",
      );
      expect(gut.abstractSections[2]?.text).toContain(
        "Three SNPs at TERT (linkage disequilibrium r2<0.25) were associated",
      );
      expect(only("biopython/Entrez/pubmed6.xml").title).toBe(
        'A "Blood Relationship" Between the Overlooked Minimum Lactate Equivalent and Maximal Lactate Steady State in Trained Runners. Back to the Old Days?',
      );
      expect(only("metapub/pmid_xml/38988993.xml").title).toBe(
        "Prey size preference in the tokay gecko (Gekko gecko).",
      );
      expect(only("metapub/pmid_28731372.xml").title).toBe(
        "Exploring the effect of vitamin D3 supplementation on the anti-EBV antibody response in relapsing-remitting multiple sclerosis.",
      );
      const [contrived] = parseEFetch(
        eutilsFixture("Eutils-JSON/samples/efetch.pubmedexample.xml"),
      );
      expect(contrived?.title).toBe(
        "Sequencing and analysis of chromosome 1 of Eimeria tenella reveals a unique segmental organization.",
      );
      expect(contrived?.abstractText).toBe("dummy-label: Lorem ipsum and ipsum lorem.");
    });

    test("MathML reads as its token text, without its indentation", () => {
      const runners = only("biopython/Entrez/pubmed6.xml").abstractText;
      expect(runners).toContain(
        "maximal oxygen uptake ( V.O2max ) 67.6 ± 4.1 ml·kg-1·min-1] homogeneous",
      );
      expect(runners).toContain("running test for V.O2max determination, and 2)");
      const lungs = only("biopython/Entrez/pubmed7.xml").abstractText;
      expect(lungs).toContain("(1) inhaled He3/Xe129 MRI ventilation and apparent diffusion");
      expect(lungs).toContain("(3) ultrashort echo-time H1 MRI proton density measurements");
    });

    test("authors: collective names, ORCID iDs (URL form normalised), several affiliations", () => {
      const lungs = only("biopython/Entrez/pubmed7.xml");
      expect(lungs.authors[0]).toEqual({
        lastName: "Guo",
        firstName: "Fumin",
        initials: "F",
        collectiveName: null,
        orcid: null,
        affiliations: [
          "University of Western Ontario, Robarts Research Institute, London, Ontario, Canada.",
          "University of Western Ontario, Graduate Program in Biomedical Engineering, London, Ontario, Canada.",
          "University of Toronto, Sunnybrook Research Institute, Toronto, Canada.",
        ],
      });
      // <Identifier Source="ORCID">https://orcid.org/0000-0002-4590-7461</Identifier>
      expect(lungs.authors[1]).toMatchObject({ lastName: "Capaldi", orcid: "0000-0002-4590-7461" });
      expect(lungs.authors.at(-1)).toEqual({
        lastName: null,
        firstName: null,
        initials: null,
        collectiveName: "Canadian Respiratory Research Network",
        orcid: null,
        affiliations: [],
      });
      expect(only("metapub/pmid_xml/34843274.xml").authors).toEqual([
        {
          lastName: null,
          firstName: null,
          initials: null,
          collectiveName: "Guideline Development Panel for the Treatment of Depressive Disorders",
          orcid: null,
          affiliations: [],
        },
      ]);
      expect(only("metapub/sample_article_23435529.xml").authors.at(-1)?.collectiveName).toBe(
        "TAX 325 Study Group",
      );
    });

    test("2013-era records: the Article-level Affiliation goes to the first author", () => {
      const [first] = parseEFetch(eutilsFixture("Eutils-JSON/samples/efetch.pubmed.xml"));
      expect(first?.authors.slice(0, 2).map((a) => [a.lastName, a.affiliations])).toEqual([
        [
          "Ling",
          [
            "Malaysia Genome Institute, UKM-MTDC Smart Technology Centre, Universiti Kebangsaan Malaysia, 43600 UKM Bangi, Selangor DE, Malaysia.",
          ],
        ],
        ["Rajandream", []],
      ]);
    });

    test("journal, identifiers, dates, grants and comment links of a recent record", () => {
      const gut = only("biopython/Entrez/pubmed4.xml");
      expect(gut.journalInfo).toEqual({
        title: "Gut",
        isoAbbreviation: "Gut",
        issn: null,
        eissn: "1468-3288",
        nlmId: "2985108R",
        volume: "66",
        issue: "6",
        pages: "1116-1122",
        publicationDate: { year: "2017", month: "06", day: null, medlineDate: null },
      });
      expect(gut.doi).toBe("10.1136/gutjnl-2016-312510");
      expect(gut.pmcid).toBe("PMC5442267");
      expect(gut.articleDates).toEqual({
        edat: "2016-11-01T06:00:00Z",
        lr: "2018-04-17T00:00:00Z",
        pubmed: "2016-11-01T06:00:00Z",
      });
      expect(gut.keywords).toEqual(["PANCREATIC CANCER"]);
      expect(gut.grantList).toHaveLength(35);
      expect(gut.grantList[0]).toEqual({
        grantId: "KL2 TR001100",
        acronym: "TR",
        agency: "NCATS NIH HHS",
        country: "United States",
      });
      expect(gut.commentsCorrections.slice(0, 2)).toEqual([
        { refType: "CommentIn", pmid: "27920200" },
        { refType: "Cites", pmid: "2657958" },
      ]);
      expect(gut.isRetracted).toBe(false);
      expect(only("metapub/pmid_xml/35679569.xml").commentsCorrections).toEqual([
        { refType: "CommentOn", pmid: "35679550" },
        { refType: "CommentOn", pmid: "35679567" },
      ]);
      expect(only("metapub/pmid_xml/36987902.xml").languages).toEqual(["eng", "nor"]);
    });

    test("book chapter: title, sections, authors without the book's editors, book as container", () => {
      const book = only("metapub/sample_article_20301577.xml");
      expect(book.recordType).toBe("PubmedBookArticle");
      expect(book.pmid).toBe("20301577");
      expect(book.title).toBe("CACNA1C-Related Disorders");
      expect(book.abstractSections.map((s) => s.label)).toEqual([
        "CLINICAL CHARACTERISTICS",
        "DIAGNOSIS/TESTING",
        "MANAGEMENT",
        "GENETIC COUNSELING",
      ]);
      expect(book.abstractSections[2]?.text).toMatch(
        /^Treatment of manifestations: Beta-blockers \(nadolol preferred\)/,
      );
      expect(book.authors.map((a) => [a.lastName, a.affiliations.length])).toEqual([
        ["Napolitano", 2],
        ["Priori", 1],
      ]);
      expect(book.journalInfo.title).toBe(
        "GeneReviews®. Seattle (WA): University of Washington, Seattle",
      );
      expect(book.journalInfo.publicationDate.year).toBe("1993");
      expect(book.publicationTypes).toEqual(["Review"]);
      expect(book.articleDates).toEqual({
        edat: "2024-12-19T00:00:00Z",
        lr: "2024-12-19T00:00:00Z",
        pubmed: "2024-12-19T00:00:00Z",
      });
    });

    test("whole article: a published erratum", () => {
      const affiliation =
        "Lab. Oncología Molecular, Departamento de Química Biológica and IQUIBICEN-UBA/CONICET, Facultad de Ciencias Exactas y Naturales, Universidad de Buenos Aires, Buenos Aires, Argentina.";
      const author = (lastName: string, firstName: string, initials: string, extra = "") => ({
        lastName,
        firstName,
        initials,
        collectiveName: null,
        orcid: null,
        affiliations: [affiliation + extra],
      });
      expect(only("metapub/pmid_xml/38833988.xml")).toEqual({
        pmid: "38833988",
        title:
          'Corrigendum to "MageC2 protein is upregulated by oncogenic activation of MAPK pathway and causes impairment of the p53 transactivation function" [Biochim. Biophys. Acta, Mol. Cell Res. vol. 1868 (Issue 3) (March 2021) 118918].',
        abstractText: "",
        abstractSections: [],
        authors: [
          author("Pascucci", "Franco Andrés", "FA"),
          author("Ladelfa", "María Fátima", "MF"),
          author("Toledo", "María Fernanda", "MF"),
          author("Escalada", "Micaela", "M"),
          author("Suberbordes", "Melisa", "M"),
          author("Monte", "Martín", "M", " Electronic address: mmonte@qb.fcen.uba.ar."),
        ],
        journalInfo: {
          title: "Biochimica et biophysica acta. Molecular cell research",
          isoAbbreviation: "Biochim Biophys Acta Mol Cell Res",
          issn: null,
          eissn: "1879-2596",
          nlmId: "101731731",
          volume: "1871",
          issue: "6",
          pages: "119767",
          publicationDate: { year: "2024", month: "Aug", day: null, medlineDate: null },
        },
        publicationTypes: ["Published Erratum"],
        keywords: [],
        meshTerms: [],
        grantList: [],
        doi: "10.1016/j.bbamcr.2024.119767",
        pmcid: null,
        articleDates: {
          edat: "2024-06-04T18:08:00Z",
          lr: "2024-06-11T00:00:00Z",
          pubmed: "2024-06-05T01:46:00Z",
        },
        isRetracted: false,
        // A notice's link keeps its citation (the notice's date); other links do not.
        commentsCorrections: [
          {
            refType: "ErratumFor",
            pmid: "33279609",
            refSource:
              "Biochim Biophys Acta Mol Cell Res. 2021 Mar;1868(3):118918. doi: 10.1016/j.bbamcr.2020.118918.",
          },
        ],
        citationSubsets: ["IM"],
        languages: ["eng"],
        recordType: "PubmedArticle",
      });
    });

    test("whole article: MeSH headings with qualifiers, Season as month", () => {
      const [season, mesh] = parseEFetch(eutilsFixture("biopython/Entrez/pubmed1.xml"));
      expect(season?.journalInfo.publicationDate).toEqual({
        year: "1990",
        month: "Spring",
        day: null,
        medlineDate: null,
      });
      expect(season?.keywords).toEqual(["Health Care and Public Health", "Legal Approach"]);
      const heading = (descriptorName: string, descriptorUi: string, major = false) => ({
        descriptorName,
        descriptorUi,
        isMajorTopic: major,
        qualifiers: [] as { name: string; ui: string; isMajorTopic: boolean }[],
      });
      expect(mesh).toEqual({
        pmid: "9997",
        title:
          "Magnetic studies of Chromatium flavocytochrome C552. A mechanism for heme-flavin interaction.",
        abstractText: ABSTRACT_9997,
        abstractSections: [{ label: null, nlmCategory: null, text: ABSTRACT_9997 }],
        authors: [
          {
            lastName: "Strekas",
            firstName: "T C",
            initials: "TC",
            collectiveName: null,
            orcid: null,
            affiliations: [],
          },
        ],
        journalInfo: {
          title: "Biochimica et biophysica acta",
          isoAbbreviation: "Biochim Biophys Acta",
          issn: "0006-3002",
          eissn: null,
          nlmId: "0217513",
          volume: "446",
          issue: "1",
          pages: "179-91",
          publicationDate: { year: "1976", month: "Sep", day: "28", medlineDate: null },
        },
        publicationTypes: ["Journal Article"],
        keywords: [],
        meshTerms: [
          heading("Binding Sites", "D001665"),
          {
            ...heading("Chromatium", "D002844"),
            qualifiers: [{ name: "enzymology", ui: "Q000201", isMajorTopic: true }],
          },
          heading("Cytochrome c Group", "D003574", true),
          heading("Electron Spin Resonance Spectroscopy", "D004578"),
          heading("Flavins", "D005415"),
          heading("Heme", "D006418"),
          heading("Hydrogen-Ion Concentration", "D006863"),
          {
            ...heading("Iron", "D007501"),
            qualifiers: [{ name: "analysis", ui: "Q000032", isMajorTopic: false }],
          },
          heading("Magnetics", "D008280"),
          heading("Oxidation-Reduction", "D010084"),
          heading("Protein Binding", "D011485"),
          heading("Protein Conformation", "D011487"),
          heading("Temperature", "D013696"),
        ],
        grantList: [],
        doi: "10.1016/0005-2795(76)90109-4",
        pmcid: null,
        articleDates: {
          edat: "1976-09-28T00:00:00Z",
          lr: "2019-06-09T00:00:00Z",
          pubmed: "1976-09-28T00:00:00Z",
        },
        isRetracted: false,
        commentsCorrections: [],
        citationSubsets: ["IM"],
        languages: ["eng"],
        recordType: "PubmedArticle",
      });
    });

    test("whole article: a whole book (GeneReviews), titled by its BookTitle", () => {
      const text = eutilsFixture("Eutils-JSON/samples/efetch.pubmedbook.xml");
      const abstract = /<AbstractText>([^<]*)<\/AbstractText>/.exec(text)?.[1] ?? "";
      expect(abstract.length).toBeGreaterThan(500);
      expect(only("Eutils-JSON/samples/efetch.pubmedbook.xml")).toEqual({
        pmid: "20301295",
        title: "GeneReviews™",
        abstractText: abstract,
        abstractSections: [{ label: null, nlmCategory: null, text: abstract }],
        authors: [],
        journalInfo: {
          title: "GeneReviews™. Seattle (WA): University of Washington, Seattle",
          isoAbbreviation: null,
          issn: null,
          eissn: null,
          nlmId: null,
          volume: null,
          issue: null,
          pages: null,
          publicationDate: { year: "1993", month: null, day: null, medlineDate: null },
        },
        publicationTypes: [],
        keywords: [],
        meshTerms: [],
        grantList: [],
        doi: null,
        pmcid: null,
        articleDates: { edat: "2010-03-20T06:00:00Z", lr: null, pubmed: "2010-03-20T06:00:00Z" },
        isRetracted: false,
        commentsCorrections: [],
        citationSubsets: [],
        languages: ["eng"],
        recordType: "PubmedBookArticle",
      });
    });

    test("an HTML page instead of XML is an UpstreamError", () => {
      const html = eutilsFixture("biopython/Entrez/pubmed3.html");
      expect(() => parseEFetch(html)).toThrow(UpstreamError);
      expect(() => parseEFetch(html)).toThrow(/HTML page instead of an EFetch XML reply/);
    });

    test("a reply cut off mid-record (also inside a reference list) is an UpstreamError", () => {
      for (const file of ["biopython/Entrez/pubmed4.xml", "metapub/pmid_xml/32051057.xml"]) {
        const whole = eutilsFixture(file);
        for (const cut of [0.3, 0.9, 0.999]) {
          const truncated = whole.slice(0, Math.floor(whole.length * cut));
          expect(() => parseEFetch(truncated)).toThrow(UpstreamError);
          expect(() => parseEFetch(truncated)).toThrow(
            /NCBI returned a truncated or malformed EFetch reply .*; retry the call/,
          );
        }
      }
    });
  });

  const ABSTRACT_9997 =
    "Electron paramagnetic resonance and magnetic susceptibility studies of Chromatium flavocytochrome C552 and its diheme flavin-free subunit at temperatures below 45 degrees K are reported. The results show that in the intact protein and the subunit the two low-spin (S = 1/2) heme irons are distinguishable, giving rise to separate EPR signals. In the intact protein only, one of the heme irons exists in two different low spin environments in the pH range 5.5 to 10.5, while the other remains in a constant environment. Factors influencing the variable heme iron environment also influence flavin reactivity, indicating the existence of a mechanism for heme-flavin interaction.";

  /** A minimal PubmedArticle in the 2025 DTD's element order, with the given parts spliced in. */
  function record(parts: {
    pubDate?: string;
    journal?: string;
    title?: string;
    article?: string;
    citation?: string;
    data?: string;
  }): string {
    return `<PubmedArticle><MedlineCitation Status="MEDLINE" Owner="NLM"><PMID Version="1">123</PMID>
  <Article PubModel="Print"><Journal>${parts.journal ?? ""}<JournalIssue CitedMedium="Print">
  <PubDate>${parts.pubDate ?? "<Year>2020</Year>"}</PubDate></JournalIssue></Journal>
  <ArticleTitle>${parts.title ?? "T."}</ArticleTitle>${parts.article ?? ""}</Article>
  <MedlineJournalInfo><MedlineTA>J</MedlineTA></MedlineJournalInfo>${parts.citation ?? ""}
  </MedlineCitation><PubmedData>${parts.data ?? ""}</PubmedData></PubmedArticle>`;
  }

  function parseOne(parts: Parameters<typeof record>[0]): Article {
    const articles = parseEFetch(`<PubmedArticleSet>${record(parts)}</PubmedArticleSet>`);
    expect(articles).toHaveLength(1);
    return articles[0] as Article;
  }

  const title = (xml: string) => parseOne({ title: xml }).title;

  describe("parseEFetch on hand-written edge cases", () => {
    test("a record with only the required elements: nulls and empty lists, never a throw", () => {
      // emptyArticle() is by definition what a record with nothing but its PMID parses to.
      const empty = emptyArticle("123");
      expect(parseOne({})).toEqual({
        ...empty,
        title: "T.",
        journalInfo: {
          ...empty.journalInfo,
          publicationDate: { year: "2020", month: null, day: null, medlineDate: null },
        },
      });
    });

    test("inline markup: nesting, mid-word sup/sub, spaces between tags, empty tags", () => {
      expect(title("Growth of <i>Escherichia coli</i> in media")).toBe(
        "Growth of Escherichia coli in media",
      );
      expect(title("a <i><b>bold italic</b> word</i>, then <u>more</u>")).toBe(
        "a bold italic word, then more",
      );
      expect(title("a dose of 10<sup>-3</sup> M of CO<sub>2</sub>")).toBe(
        "a dose of 10-3 M of CO2",
      );
      expect(title("<i>Homo</i> <i>sapiens</i>")).toBe("Homo sapiens");
      expect(title("x<sup/>y <b></b> z")).toBe("xy z");
      expect(title("\n  spread\n\tover   lines  \n")).toBe("spread over lines");
      expect(title("&lt;i&gt; is escaped &amp; kept")).toBe("<i> is escaped & kept");
    });

    test("MathML: token text in order; annotations dropped; mspace is a space", () => {
      const math = `<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML">
        <mml:semantics><mml:mrow>
          <mml:msup><mml:mi>x</mml:mi><mml:mn>2</mml:mn></mml:msup>
          <mml:mo>+</mml:mo><mml:mi>y</mml:mi><mml:mspace width="1em"/><mml:mtext>mg</mml:mtext>
        </mml:mrow><mml:annotation encoding="application/x-tex">x^2+y</mml:annotation></mml:semantics>
      </mml:math>`;
      expect(title(`Effect of ${math} on <i>z</i>`)).toBe("Effect of x2+y mg on z");
      const abstract = parseOne({
        article: `<Abstract><AbstractText>Solve <DispFormula>${math}</DispFormula>.</AbstractText></Abstract>`,
      });
      expect(abstract.abstractText).toBe("Solve x2+y mg.");
    });

    test("abstract: unlabelled paragraphs join with a blank line; empty sections are skipped", () => {
      const a = parseOne({
        article: `<Abstract><AbstractText>First <i>one</i>.</AbstractText><AbstractText/>
          <AbstractText Label="">Second.</AbstractText>
          <AbstractText Label="RESULTS" NlmCategory="RESULTS">Third.</AbstractText>
          <CopyrightInformation>© Someone</CopyrightInformation></Abstract>`,
        citation: `<OtherAbstract Type="Publisher"><AbstractText>Not this.</AbstractText></OtherAbstract>`,
      });
      expect(a.abstractSections).toEqual([
        { label: null, nlmCategory: null, text: "First one." },
        { label: null, nlmCategory: null, text: "Second." },
        { label: "RESULTS", nlmCategory: "RESULTS", text: "Third." },
      ]);
      expect(a.abstractText).toBe("First one.\n\nSecond.\n\nRESULTS: Third.");
    });

    test("MedlineDate: kept as printed, year from its first four-digit run", () => {
      const a = parseOne({ pubDate: "<MedlineDate>1998 Dec-1999 Jan</MedlineDate>" });
      expect(a.journalInfo.publicationDate).toEqual({
        year: "1998",
        month: null,
        day: null,
        medlineDate: "1998 Dec-1999 Jan",
      });
      expect(
        parseOne({ pubDate: "<MedlineDate>Winter</MedlineDate>" }).journalInfo.publicationDate,
      ).toEqual({ year: null, month: null, day: null, medlineDate: "Winter" });
    });

    test("retraction: by publication type or by a RetractionIn link", () => {
      const byType = parseOne({
        article: `<PublicationTypeList><PublicationType UI="D016441">Retracted Publication</PublicationType></PublicationTypeList>`,
      });
      expect(byType.isRetracted).toBe(true);
      const byLink = parseOne({
        citation: `<CommentsCorrectionsList>
          <CommentsCorrections RefType="RetractionIn"><RefSource>J. 2021;1:2.</RefSource><PMID Version="1">999</PMID></CommentsCorrections>
          <CommentsCorrections RefType="ErratumIn"><RefSource>J. 2020;1:1.</RefSource></CommentsCorrections>
        </CommentsCorrectionsList>`,
      });
      expect(byLink.isRetracted).toBe(true);
      expect(byLink.commentsCorrections).toEqual([
        { refType: "RetractionIn", pmid: "999", refSource: "J. 2021;1:2." },
        { refType: "ErratumIn", pmid: null, refSource: "J. 2020;1:1." },
      ]);
      const notice = parseOne({
        citation: `<CommentsCorrectionsList><CommentsCorrections RefType="RetractionOf"><RefSource>x</RefSource><PMID Version="1">5</PMID></CommentsCorrections></CommentsCorrectionsList>`,
      });
      expect(notice.isRetracted).toBe(false);
    });

    test("DOI from ELocationID when ArticleIdList has none, skipping ValidYN=N; PMC ids", () => {
      const elocation = parseOne({
        article: `<ELocationID EIdType="doi" ValidYN="N">10.1/bad</ELocationID><ELocationID EIdType="pii" ValidYN="Y">S1</ELocationID><ELocationID EIdType="doi" ValidYN="Y">10.1/good</ELocationID>`,
        data: `<ArticleIdList><ArticleId IdType="pubmed">123</ArticleId><ArticleId IdType="pmc">4567</ArticleId></ArticleIdList>
          <ReferenceList><Reference><Citation>x</Citation><ArticleIdList><ArticleId IdType="doi">10.9/ref</ArticleId></ArticleIdList></Reference></ReferenceList>`,
      });
      expect(elocation.doi).toBe("10.1/good");
      expect(elocation.pmcid).toBe("PMC4567");
      const listed = parseOne({
        article: `<ELocationID EIdType="doi" ValidYN="Y">10.1/eloc</ELocationID>`,
        data: `<ArticleIdList><ArticleId IdType="doi">10.1/listed</ArticleId></ArticleIdList>`,
      });
      expect(listed.doi).toBe("10.1/listed");
    });

    test("authors: ORCID forms, ValidYN=N names left out, affiliations flattened", () => {
      const person = (last: string, orcid: string, valid = "Y") =>
        `<Author ValidYN="${valid}"><LastName>${last}</LastName><ForeName>A</ForeName><Initials>A</Initials><Identifier Source="ORCID">${orcid}</Identifier><AffiliationInfo><Affiliation>Dept of <i>X</i>, Y.</Affiliation><Identifier Source="ROR">https://ror.org/1</Identifier></AffiliationInfo></Author>`;
      const a = parseOne({
        article: `<AuthorList CompleteYN="Y">${[
          person("Bare", "000000021825009x"),
          person("Url", "http://orcid.org/0000-0002-1825-0097"),
          person("Wrong", "0000-0002-1825-0097", "N"),
          person("Junk", "not an orcid"),
        ].join("")}</AuthorList>`,
      });
      expect(a.authors.map((x) => [x.lastName, x.orcid, x.affiliations])).toEqual([
        ["Bare", "0000-0002-1825-009X", ["Dept of X, Y."]],
        ["Url", "0000-0002-1825-0097", ["Dept of X, Y."]],
        ["Junk", null, ["Dept of X, Y."]],
      ]);
    });

    test("journal: ISSN types, pages from StartPage/EndPage, dates with hour and minute", () => {
      const a = parseOne({
        journal: `<ISSN IssnType="Electronic">1111-2222</ISSN>`,
        article: `<Pagination><StartPage>e12</StartPage><EndPage>e19</EndPage></Pagination>`,
        data: `<History><PubMedPubDate PubStatus="entrez"><Year>2021</Year><Month>3</Month><Day>9</Day><Hour>23</Hour><Minute>5</Minute></PubMedPubDate>
          <PubMedPubDate PubStatus="pubmed"><Year>2021</Year><Month>2</Month><Day>30</Day></PubMedPubDate></History>`,
        citation: `<CitationSubset>AIM</CitationSubset><CitationSubset>IM</CitationSubset>`,
      });
      expect(a.journalInfo).toMatchObject({ issn: null, eissn: "1111-2222", pages: "e12-e19" });
      // 30 February is not a date: null rather than a rolled-over 2 March.
      expect(a.articleDates).toEqual({ edat: "2021-03-09T23:05:00Z", lr: null, pubmed: null });
      expect(a.citationSubsets).toEqual(["AIM", "IM"]);
      const untyped = parseOne({ journal: `<ISSN>3333-4444</ISSN>` });
      expect([untyped.journalInfo.issn, untyped.journalInfo.eissn]).toEqual(["3333-4444", null]);
      const onePage = parseOne({ article: `<Pagination><StartPage>7</StartPage></Pagination>` });
      expect(onePage.journalInfo.pages).toBe("7");
    });

    test("nested reference lists and DeleteCitation do not disturb the records", () => {
      const refs = `<ReferenceList><Title>References</Title><ReferenceList><Reference><Citation>a <i>b</i></Citation></Reference></ReferenceList></ReferenceList>`;
      const two = `<PubmedArticleSet>${record({ data: `<ArticleIdList><ArticleId IdType="pmc">PMC1</ArticleId></ArticleIdList>${refs}` })}${record({ title: "Second." })}<DeleteCitation><PMID Version="1">1</PMID></DeleteCitation></PubmedArticleSet>`;
      expect(parseEFetch(two).map((a) => [a.title, a.pmcid])).toEqual([
        ["T.", "PMC1"],
        ["Second.", null],
      ]);
    });

    test("a whole book: authors from <Book> when the document has none, DOI from the book", () => {
      const [book] = parseEFetch(`<PubmedArticleSet><PubmedBookArticle><BookDocument>
        <PMID Version="1">42</PMID><ArticleIdList><ArticleId IdType="bookaccession">NBK1</ArticleId></ArticleIdList>
        <Book><Publisher><PublisherName>Press</PublisherName></Publisher><BookTitle book="b">Big <i>Book</i></BookTitle>
          <PubDate><Year>2001</Year><Month>May</Month></PubDate>
          <AuthorList Type="authors"><Author><LastName>Writer</LastName></Author></AuthorList>
          <AuthorList Type="editors"><Author><LastName>Editor</LastName></Author></AuthorList>
          <Volume>2</Volume><ELocationID EIdType="doi">10.5/book</ELocationID></Book>
        <Language>eng</Language><PublicationType UI="D0">Retracted Publication</PublicationType>
        <DateRevised><Year>2020</Year><Month>01</Month><Day>02</Day></DateRevised>
      </BookDocument></PubmedBookArticle></PubmedArticleSet>`);
      expect(book).toMatchObject({
        pmid: "42",
        title: "Big Book",
        authors: [expect.objectContaining({ lastName: "Writer" })],
        journalInfo: {
          title: "Big Book. Press",
          volume: "2",
          publicationDate: { year: "2001", month: "May", day: null, medlineDate: null },
        },
        doi: "10.5/book",
        isRetracted: true,
        articleDates: { edat: null, lr: "2020-01-02T00:00:00Z", pubmed: null },
        recordType: "PubmedBookArticle",
      });
      expect(book?.authors).toHaveLength(1);
    });

    test("empty sets, in both spellings", () => {
      expect(parseEFetch("<PubmedArticleSet/>")).toEqual([]);
      expect(
        parseEFetch('<?xml version="1.0"?>\n<PubmedArticleSet>\n</PubmedArticleSet>\n'),
      ).toEqual([]);
    });
  });

  describe("parseEFetch on replies that are not a PubmedArticleSet", () => {
    test("NCBI's <ERROR> document is an EntrezError carrying its text", () => {
      const reply = `<?xml version="1.0" encoding="UTF-8" ?>
  <!DOCTYPE eFetchResult PUBLIC "-//NLM//DTD efetch 20131226//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20131226/efetch.dtd">
  <eFetchResult>
  \t<ERROR>Cannot retrieve history data. query_key: 1, WebEnv: MCID_abc</ERROR>
  </eFetchResult>`;
      expect(() => parseEFetch(reply)).toThrow(EntrezError);
      expect(() => parseEFetch(reply)).toThrow(
        "NCBI EFetch reported an error: Cannot retrieve history data. query_key: 1, WebEnv: MCID_abc",
      );
      const bare = "<ERROR>Empty id list - nothing todo</ERROR>";
      expect(() => parseEFetch(bare)).toThrow(EntrezError);
      expect(() => parseEFetch(bare)).toThrow("Empty id list - nothing todo");
    });

    test("other documents, empty bodies, non-XML text and garbage are UpstreamErrors", () => {
      const cases = [
        "<eSearchResult><Count>1</Count></eSearchResult>",
        "",
        "   \n",
        "Service unavailable",
        "<PubmedArticleSet><PubmedArticle><MedlineCitation>",
        "<PubmedArticleSet><PubmedArticle></PubmedArticleSet>",
        "<PubmedArticleSet>&bogus;</PubmedArticleSet>",
        '{"esearchresult": {}}',
      ];
      for (const body of cases) expect(() => parseEFetch(body)).toThrow(UpstreamError);
      expect(() => parseEFetch(cases[0] ?? "")).toThrow(
        "NCBI returned an unexpected EFetch reply (root <eSearchResult>, expected <PubmedArticleSet>); retry the call.",
      );
    });

    test("NCBI's JSON rate-limit body is a RateLimitError", () => {
      const body =
        '{"error":"API rate limit exceeded","api-key":"203.0.113.7","count":"4","limit":"3"}';
      expect(() => parseEFetch(body)).toThrow(RateLimitError);
    });
  });
});
