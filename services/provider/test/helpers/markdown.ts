/** Markdown as GitHub renders it, for the docs tests: heading anchors and in-page links. */

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** The `#anchor` targets of the in-page links `[text](#anchor)`. */
export function inPageLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(#([^)\s]+)\)/g)].map((m) => m[1]!);
}
