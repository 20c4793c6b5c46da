/**
 * ESpell XML (eSpellResult) → ESpellResult. `corrected` is returned as NCBI gave it: "" means no
 * suggestion, and deciding what that means is the service's job. ESpell always sends an empty
 * <ERROR/>; only one with text is an error.
 */
import type { ESpellResult } from "../types.js";
import { childText, parseEutilsXml, throwOnErrors } from "./common.js";

const UTILITY = "ESpell";

export function parseESpell(xml: string): ESpellResult {
  const root = parseEutilsXml(xml, UTILITY, "eSpellResult");
  throwOnErrors(root, UTILITY);
  return {
    original: childText(root, "Query") ?? "",
    corrected: childText(root, "CorrectedQuery") ?? "",
  };
}
