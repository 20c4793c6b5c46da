/**
 * The tool registry: data, not code. To add a tool, write src/tools/<family>/<tool_name>.ts
 * exporting a `defineTool({...})` object and list it here; the inventory test checks the rest.
 */
import { corpusCheckpointGet } from "./corpus/corpus_checkpoint_get.js";
import { corpusCheckpointSet } from "./corpus/corpus_checkpoint_set.js";
import { pubmedSyncDelta } from "./corpus/pubmed_sync_delta.js";
import { ragGet } from "./corpus/rag_get.js";
import { ragSearch } from "./corpus/rag_search.js";
import { europepmcSearch } from "./pubmed/europepmc_search.js";
import { pubmedAnnotations } from "./pubmed/pubmed_annotations.js";
import { pubmedCite } from "./pubmed/pubmed_cite.js";
import { pubmedConvertIds } from "./pubmed/pubmed_convert_ids.js";
import { pubmedFetch } from "./pubmed/pubmed_fetch.js";
import { pubmedFulltext } from "./pubmed/pubmed_fulltext.js";
import { pubmedMatchCitations } from "./pubmed/pubmed_match_citations.js";
import { pubmedMesh } from "./pubmed/pubmed_mesh.js";
import { pubmedRelated } from "./pubmed/pubmed_related.js";
import { pubmedSearch } from "./pubmed/pubmed_search.js";
import { pubmedSpell } from "./pubmed/pubmed_spell.js";
import { pubmedTrend } from "./pubmed/pubmed_trend.js";
import { pubmedExport } from "./pubmed/pubmed_export.js";
import { reviewAdd } from "./review/review_add.js";
import { reviewCreate } from "./review/review_create.js";
import { reviewDecide } from "./review/review_decide.js";
import { reviewExport } from "./review/review_export.js";
import { reviewScreen } from "./review/review_screen.js";
import { reviewStatus } from "./review/review_status.js";
import type { ToolDef } from "./tool.js";
import { pubmedVerifyReferences } from "./trust/pubmed_verify_references.js";

export const TOOLS: readonly ToolDef[] = [
  pubmedSearch,
  pubmedFetch,
  pubmedRelated,
  pubmedCite,
  pubmedSpell,
  pubmedMatchCitations,
  pubmedTrend,
  pubmedFulltext,
  pubmedConvertIds,
  pubmedMesh,
  europepmcSearch,
  pubmedAnnotations,
  pubmedVerifyReferences,
  pubmedSyncDelta,
  ragSearch,
  ragGet,
  corpusCheckpointGet,
  corpusCheckpointSet,
  reviewCreate,
  reviewAdd,
  reviewScreen,
  reviewDecide,
  reviewStatus,
  reviewExport,
  pubmedExport,
] as unknown as readonly ToolDef[];
