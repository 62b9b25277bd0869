/** One section of `yoke bench` / `npm run bench`: a named group of measurements. */
export interface BenchMetric {
  name: string;
  /** null: not measured in this run (the note says why) — never a stand-in number. */
  value: number | null;
  unit: string;
  /** The same measurement for the baseline in the same run, when there is one. */
  baseline?: number;
  /** value / baseline, when meaningful. */
  ratio?: number;
  note?: string;
}

export interface BenchSection {
  section: string;
  method: string;
  metrics: BenchMetric[];
  /** More text for the human output (e.g. a Markdown table), printed after the metrics. */
  details?: string;
  /** The section's own JSON document: `--json` prints it alone when this is the only section run. */
  document?: unknown;
}

export type BenchFn = () => Promise<BenchSection>;
