export { slugify, type SlugOptions } from "./slug.js";
export { wordCount, topWords } from "./words.js";
export { parseDuration, formatDuration } from "./duration.js";

export const VERSION = "0.3.1";
