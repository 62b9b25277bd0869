import { y } from "./chain-y";
export const x = y + 1;
