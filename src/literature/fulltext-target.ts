/**
 * One identifier on its way down the full-text chain (./fulltext-chain.ts), and how a tier
 * records its failure on it: shared by the chain and its tiers (./fulltext-unpaywall.ts).
 */
import type { Attempt, FulltextResult, FulltextSource } from "./fulltext-output.js";
import type { RequestedId } from "./identity.js";

/** One identifier on its way down the chain. */
export interface Target {
  asked: RequestedId;
  pmcid?: string;
  doi?: string;
  /** Why the converter gave no PMCID, when it gave none. */
  unresolved?: string;
  /** The converter was asked (PMCIDs are converted only when Unpaywall needs their DOI). */
  converted: boolean;
  tried: Attempt[];
  result?: FulltextResult;
}

/** Records a tier's failure on a target, or rethrows what must end the call. */
export type Fail = (t: Target, source: FulltextSource, err: unknown) => void;

/** How an identifier is named in reasons: "PMID 123", "DOI 10.1/x", "PMC123". */
export const label = (id: RequestedId): string =>
  id.type === "pmid" ? `PMID ${id.value}` : id.type === "doi" ? `DOI ${id.value}` : id.value;
