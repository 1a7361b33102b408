// Quality metrics for the benchmark and for training-time evaluation (pure TS, no DOM).
export { levenshtein, normalizedLevenshtein, nes, chars } from './levenshtein.ts';
export { cer, corpusCer, textEdits, type EditCount } from './text.ts';
export { teds, tedsBoth, tableTree, type TedsScores } from './teds.ts';
export { formulaNes, formulaExact, latexTokens } from './formula.ts';
export { treeEditDistance, treeSize, type Tree, type EditCosts } from './tree-edit.ts';
export { readingOrderText, pageTextEdits, BODY_TEXT_CLASSES, type OrderedText } from './page.ts';
export { LENGTH_BUCKETS, lengthBucket, mean, median, ratio, perSecond, pooledTpf, groupBy, type LengthBucket } from './stats.ts';
export { quality, speedPair, pairRecords, equalityRate, byType, byLength, pageSpeed, forwardsOf } from './summary.ts';
export type { RegionRecord, QualitySummary, SpeedPair, PageRecordRun, PageSpeed, Scope, SpeedMethod, Task } from './summary.ts';
export { sortByBox, regionTextFromUnits, textRegionEdits, summarizeUnits, type TextUnit, type TruthRegion, type UnitPage, type UnitSummary } from './units.ts';
