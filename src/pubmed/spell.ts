/**
 * pubmed_spell: ESpell suggestions for a query.
 */
import { getEutils } from "../state.js";

export interface SpellOutput {
  original: string;
  corrected: string;
  hasSuggestion: boolean;
}

export async function spellCheck(query: string, signal: AbortSignal): Promise<SpellOutput> {
  const { value: parsed } = await getEutils().espell(query, { signal });
  // ESpell answers an empty CorrectedQuery when it has nothing to suggest.
  const corrected = parsed.corrected.trim() || query;
  return {
    original: query,
    corrected,
    hasSuggestion: corrected.toLowerCase() !== query.trim().toLowerCase(),
  };
}
