export { CA } from "./ca";
export { GB } from "./gb";
export { US } from "./us";
export type { City, CountryData } from "./types";
