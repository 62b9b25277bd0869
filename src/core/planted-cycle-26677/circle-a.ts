import { b } from "./circle-b";
export interface A { n: number }
export const a = () => b;
