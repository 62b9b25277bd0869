import type { A } from "./circle-a";
export const b: A = { n: 1 };
