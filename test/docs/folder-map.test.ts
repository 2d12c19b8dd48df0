/**
 * docs/architecture.md's folder map names every folder of src/ and no other: a folder added, moved or removed
 * changes the map in the same commit, so the map a newcomer reads is the tree they find.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function foldersUnder(dir: string): string[] {
  return readdirSync(`${ROOT}${dir}`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      return [`${path}/`, ...foldersUnder(path)];
    });
}

/** The `src/…/` folders the map's list names, from its marker to the next heading. */
function mappedFolders(markdown: string): string[] {
  const start = markdown.indexOf('<!-- folders:');
  if (start < 0) throw new Error('docs/architecture.md has no <!-- folders: --> list');
  const end = markdown.indexOf('\n#', start);
  const map = markdown.slice(start, end < 0 ? undefined : end);
  return [...new Set([...map.matchAll(/`(src\/[\w/-]+\/)`/g)].map((m) => m[1]!))];
}

describe('the folder map', () => {
  it('names exactly the folders of src/', () => {
    const doc = readFileSync(`${ROOT}docs/architecture.md`, 'utf8');
    expect(mappedFolders(doc).sort()).toEqual(foldersUnder('src').sort());
  });
});
