/**
 * MeSH via E-utilities db=mesh. No recorded db=mesh reply is public, so every reply here is
 * written by the project after NCBI's documentation: the version 2.0 XML after eSummary_mesh.dtd
 * (DocumentSummary with DS_MeshTerms, DS_ScopeNote, DS_Subheading, DS_IdxLinks/LinksType/TreeNum,
 * DS_HeadingMappedTo …, plus DS_RecordType and DS_MeshUI, which NCBI's JSON rendering carries as
 * ds_recordtype / ds_meshui), the legacy DocSum after esummary-v1.dtd (Item Name/Type), and the
 * retmode=json rendering (result.uids, ds_* members). Record contents follow the MeSH Browser
 * entries for Asthma (D001249) and Hidradenitis Suppurativa (D017497).
 */
import { describe, expect, it } from "@jest/globals";
import { EntrezError, UpstreamError } from "../../src/errors.js";
import { parseESearch } from "../../src/ncbi/parse/esearch.js";
import { meshRecordSchema, meshSearchTerm, parseMeshSummary } from "../../src/ncbi/parse/mesh.js";

const ASTHMA_V2 = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD esummary mesh 20250101//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20250101/esummary_mesh.dtd">
<eSummaryResult>
<DocumentSummarySet status="OK">
<DbBuild>Build250101-1200.1</DbBuild>
<DocumentSummary uid="68001249">
	<DS_YearIntroduced></DS_YearIntroduced>
	<DS_ScopeNote>A form of bronchial disorder with three distinct components: airway hyper-responsiveness (RESPIRATORY HYPERSENSITIVITY), airway INFLAMMATION, and intermittent AIRWAY OBSTRUCTION. It is characterized by spasmodic contraction of airway smooth muscle, WHEEZING, and dyspnea (DYSPNEA, PAROXYSMAL).
	</DS_ScopeNote>
	<DS_RegistryNumber></DS_RegistryNumber>
	<DS_HeadingMappedTo></DS_HeadingMappedTo>
	<DS_MeshTerms>
		<string>Asthma</string>
		<string>Asthmas</string>
		<string>Bronchial Asthma</string>
		<string>Asthma, Bronchial</string>
	</DS_MeshTerms>
	<DS_Subheading>
		<string>blood</string>
		<string>drug therapy</string>
		<string>prevention &amp; control</string>
		<string>veterinary</string>
	</DS_Subheading>
	<DS_PaPx>
	</DS_PaPx>
	<DS_PreviousIndexing>
	</DS_PreviousIndexing>
	<DS_SeeRelated>
	</DS_SeeRelated>
	<DS_PaList>
	</DS_PaList>
	<DS_IdxLinks>
		<LinksType>
			<Parent>68001982</Parent>
			<TreeNum>C08.127.108</TreeNum>
			<Children>
				<int>68001250</int>
				<int>68059265</int>
			</Children>
		</LinksType>
		<LinksType>
			<Parent>68008173</Parent>
			<TreeNum>C08.381.495.108</TreeNum>
			<Children>
			</Children>
		</LinksType>
		<LinksType>
			<Parent>68012130</Parent>
			<TreeNum>C20.543.480.680.095</TreeNum>
			<Children>
			</Children>
		</LinksType>
	</DS_IdxLinks>
	<DS_EntryDate>1999/01/01 00:00</DS_EntryDate>
	<DS_RevisionDate>2024/06/28 00:00</DS_RevisionDate>
	<DS_HeadingMappedToList>
	</DS_HeadingMappedToList>
	<DS_RecordType>descriptor</DS_RecordType>
	<DS_MeshUI>D001249</DS_MeshUI>
</DocumentSummary>
<DocumentSummary uid="1">
	<error>cannot get document summary</error>
</DocumentSummary>
</DocumentSummarySet>
</eSummaryResult>`;

const SCR_V1 = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSummaryResult PUBLIC "-//NLM//DTD esummary v1 20041029//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20041029/esummary-v1.dtd">
<eSummaryResult>
<DocSum>
	<Id>67414177</Id>
	<Item Name="DS_ScopeNote" Type="String">RefSeq NM_003046</Item>
	<Item Name="DS_HeadingMappedTo" Type="String">*Cationic Amino Acid Transporter 2</Item>
	<Item Name="DS_MeshTerms" Type="List">
		<Item Name="string" Type="String">SLC7A2 protein, human</Item>
		<Item Name="string" Type="String">hCAT-2 transport protein</Item>
		<Item Name="string" Type="String">CAT-2 transporter, human</Item>
	</Item>
	<Item Name="DS_Subheading" Type="List"></Item>
	<Item Name="DS_IdxLinks" Type="List">
		<Item Name="LinksType" Type="Structure">
			<Item Name="Parent" Type="Integer">1000048</Item>
			<Item Name="TreeNum" Type="String">@3065</Item>
			<Item Name="Children" Type="List"></Item>
		</Item>
	</Item>
</DocSum>
</eSummaryResult>`;

const HIDRADENITIS_JSON = JSON.stringify({
  header: { type: "esummary", version: "0.3" },
  result: {
    uids: ["68017497"],
    "68017497": {
      uid: "68017497",
      ds_yearintroduced: "1993",
      ds_scopenote:
        "A chronic suppurative and cicatricial disease of the apocrine glands occurring chiefly in the regions of the anus, groin, and axilla.",
      ds_meshterms: ["Hidradenitis Suppurativa", "Suppurative Hidradenitis", "Acne Inversa"],
      ds_subheading: ["diagnosis", "surgery"],
      ds_idxlinks: [
        { parent: 68006558, treenum: "C01.150.252.819.420", children: [] },
        { parent: 68012873, treenum: "C17.800.838.765.420", children: [] },
      ],
      ds_recordtype: "descriptor",
      ds_meshui: "D017497",
    },
  },
});

describe("parseMeshSummary", () => {
  it("reads a version 2.0 descriptor with its search tag, and per-uid errors", () => {
    const { records, errors } = parseMeshSummary(ASTHMA_V2);
    expect(records).toEqual([
      {
        ui: "D001249",
        recordType: "descriptor",
        name: "Asthma",
        scopeNote: expect.stringMatching(
          /^A form of bronchial disorder .* \(DYSPNEA, PAROXYSMAL\)\.$/,
        ),
        treeNumbers: ["C08.127.108", "C08.381.495.108", "C20.543.480.680.095"],
        entryTerms: ["Asthmas", "Bronchial Asthma", "Asthma, Bronchial"],
        allowableQualifiers: [
          { name: "blood", abbreviation: "BL" },
          { name: "drug therapy", abbreviation: "DT" },
          { name: "prevention & control", abbreviation: "PC" },
          { name: "veterinary", abbreviation: "VE" },
        ],
        searchTag: '"Asthma"[Mesh]',
      },
    ]);
    expect(errors).toEqual([{ uid: "1", message: "cannot get document summary" }]);
    expect(meshRecordSchema.parse(records[0])).toEqual(records[0]);
  });

  it("reads the legacy DocSum: a supplementary concept without placeholder tree numbers", () => {
    const [record] = parseMeshSummary(SCR_V1).records;
    expect(record).toEqual({
      recordType: "supplementary",
      name: "SLC7A2 protein, human",
      scopeNote: "RefSeq NM_003046",
      entryTerms: ["hCAT-2 transport protein", "CAT-2 transporter, human"],
      headingMappedTo: "Cationic Amino Acid Transporter 2",
      searchTag: '"SLC7A2 protein, human"[Supplementary Concept]',
    });
  });

  it("reads retmode=json and caps entry terms", () => {
    const [record] = parseMeshSummary(HIDRADENITIS_JSON, { maxEntryTerms: 1 }).records;
    expect(record).toMatchObject({
      ui: "D017497",
      name: "Hidradenitis Suppurativa",
      treeNumbers: ["C01.150.252.819.420", "C17.800.838.765.420"],
      entryTerms: ["Suppurative Hidradenitis"],
      entryTermsOmitted: 1,
      allowableQualifiers: [
        { name: "diagnosis", abbreviation: "DI" },
        { name: "surgery", abbreviation: "SU" },
      ],
      searchTag: '"Hidradenitis Suppurativa"[Mesh]',
    });
  });

  it("maps NCBI's errors and malformed replies", () => {
    expect(() =>
      parseMeshSummary("<eSummaryResult><ERROR>Invalid uid abc</ERROR></eSummaryResult>"),
    ).toThrow(EntrezError);
    expect(() => parseMeshSummary("<eSummaryResult><DocumentSummarySet")).toThrow(UpstreamError);
    expect(() => parseMeshSummary('{"error":"API rate limit exceeded","count":"11"}')).toThrow(
      /rate limit/,
    );
    expect(parseMeshSummary('{"result":{"uids":[]}}')).toEqual({ records: [], errors: [] });
  });
});

describe("ESearch db=mesh", () => {
  it("searches a MeSH UI in the Unique ID field and anything else as given", () => {
    expect(meshSearchTerm(" d001249 ")).toBe("D001249[mhui]");
    expect(meshSearchTerm("asthma")).toBe("asthma");
  });

  it("is read by the shared ESearch parser", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8" ?>
<!DOCTYPE eSearchResult PUBLIC "-//NLM//DTD esearch 20060628//EN" "https://eutils.ncbi.nlm.nih.gov/eutils/dtd/20060628/esearch.dtd">
<eSearchResult><Count>3</Count><RetMax>3</RetMax><RetStart>0</RetStart><IdList>
<Id>68001249</Id><Id>68059265</Id><Id>68001250</Id>
</IdList><TranslationSet/><QueryTranslation>"asthma"[MeSH Terms] OR asthma[All Fields]</QueryTranslation></eSearchResult>`;
    expect(parseESearch(xml).ids).toEqual(["68001249", "68059265", "68001250"]);
  });
});
