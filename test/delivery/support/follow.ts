/**
 * Applies stream messages to a local copy the way a client must: a snapshot replaces it, a patch must apply to
 * its version (`base`), and each patch or event must follow the one before (`seq + 1`, or the `prevSeq` a
 * conflated stream names). Throws on a gap, a duplicate or a wrong base.
 */
import type { ServerMessage } from '@racewire/client/protocol';
import fjp from 'fast-json-patch';

export function follow(messages: readonly ServerMessage[], stream: string) {
  let doc: unknown;
  let seq = 0;
  let documentSeq = 0;
  const seqs: number[] = [];
  for (const m of messages) {
    if (!('stream' in m) || m.stream !== stream) continue;
    if (m.type === 'snapshot') {
      doc = structuredClone(m.document);
      seq = m.seq;
      documentSeq = m.documentSeq;
      seqs.push(m.seq);
    } else if (m.type === 'resumed') {
      seq = m.fromSeq;
    } else if (m.type === 'patch' || m.type === 'event') {
      const prev = m.prevSeq ?? m.seq - 1;
      if (prev !== seq)
        throw new Error(`gap or duplicate: ${m.type} ${m.seq} follows ${prev}, copy at ${seq}`);
      seq = m.seq;
      seqs.push(m.seq);
      if (m.type === 'patch') {
        if (m.base !== documentSeq) throw new Error(`base ${m.base} but copy at ${documentSeq}`);
        doc = fjp.applyPatch(doc, m.ops, true, false).newDocument;
        documentSeq = m.seq;
      }
    }
  }
  return { doc, seq, documentSeq, seqs };
}
