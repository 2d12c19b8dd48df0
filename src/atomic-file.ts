/**
 * A small file replaced whole: written to a temporary file beside it, synced, then renamed over it, so a crash
 * (SIGKILL, a power cut after the sync) leaves the old content or the new, never a torn mix. Used for what
 * DATA_DIR keeps outside the database: the upstream clock's instant and the request window's starts.
 */
import { open, rename } from 'node:fs/promises';

export async function writeFileAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await open(temporary, 'w');
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}
