/**
 * JATS reading moved to src/jats (issue 47). This re-export stays only until
 * bench/fulltext-figures.ts imports parseJats from src/jats/parse.ts; then it goes.
 */
export { parseJats } from "../jats/parse.js";
