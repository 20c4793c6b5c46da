/**
 * pubmed_spell: ESpell suggestions for a query.
 */
import { parseESpell } from "../ncbi/parse/espell.js";
import { getEutils } from "../state.js";

export interface SpellOutput {
  original: string;
  corrected: string;
  hasSuggestion: boolean;
}

export async function spellCheck(query: string, signal: AbortSignal): Promise<SpellOutput> {
  const res = await getEutils().request("espell", { db: "pubmed", term: query }, { signal });
  const parsed = parseESpell(res.body);
  // ESpell answers an empty CorrectedQuery when it has nothing to suggest.
  const corrected = parsed.corrected.trim() || query;
  return {
    original: query,
    corrected,
    hasSuggestion: corrected.toLowerCase() !== query.trim().toLowerCase(),
  };
}
