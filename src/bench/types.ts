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
}

export type BenchFn = () => Promise<BenchSection>;
