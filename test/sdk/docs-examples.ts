/**
 * The `data` example of every event type in docs/events.md, parsed from the page: a `### type` (or
 * `### a / b`) heading and the first json block after it (the data, or `{ type, data }`), `"race": {…}`
 * standing for the race of "Common objects" and `…` for elided text.
 */
import { readFileSync } from 'node:fs';

const page = readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
const jsonAfter = (text: string) => /```json\n([\s\S]*?)```/.exec(text)?.[1];

/** The race object docs/events.md shows under "Common objects", which `"race": {…}` stands for. */
export const DOCS_RACE = JSON.parse(jsonAfter(page.slice(page.indexOf('## Common objects'))) ?? 'null') as {
  meetingName: string;
  raceName: string;
};

export interface DocsExample {
  type: string;
  data: unknown;
}

export function docsEventExamples(): DocsExample[] {
  const out: DocsExample[] = [];
  for (const section of page.split(/^### /m).slice(1)) {
    const heading = section.slice(0, section.indexOf('\n'));
    const json = jsonAfter(section);
    if (!json) throw new Error(`docs/events.md: "### ${heading}" has no json example`);
    const parsed = JSON.parse(
      json.replace(/"race": \{…\}/g, `"race": ${JSON.stringify(DOCS_RACE)}`).replace(/\{…\}/g, '{}'),
    ) as Record<string, unknown>;
    // The market sections show `{ "type", "data" }`, the others the data alone.
    const data = typeof parsed.type === 'string' && 'data' in parsed ? parsed.data : parsed;
    for (const type of heading.split(' / ')) out.push({ type: type.trim(), data });
  }
  return out;
}
