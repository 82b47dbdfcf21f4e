export interface SlugOptions {
  /** Put between words; "-" unless given. */
  separator?: string;
  /** Cut the slug to at most this many characters. */
  maxLength?: number;
}

/** slugify turns a title into a slug for a URL: "Crème brûlée" becomes "creme-brulee". */
export function slugify(input: string, options: SlugOptions = {}): string {
  const separator = options.separator ?? "-";
  let slug = input
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, separator);
  if (options.maxLength !== undefined && slug.length > options.maxLength) {
    slug = slug.slice(0, options.maxLength);
  }
  return slug;
}
