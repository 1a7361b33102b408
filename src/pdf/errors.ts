// Typed document errors. They cross the worker boundary as {code, message} and are rebuilt here,
// so the UI can show a clear sentence per failure instead of a stack trace.

export type DocErrorCode = 'not-pdf' | 'corrupt' | 'encrypted' | 'empty' | 'too-large' | 'unsupported-image' | 'render-failed';

const MESSAGES: Record<DocErrorCode, string> = {
  'not-pdf': 'This file is not a PDF or a PNG/JPEG image.',
  corrupt: 'This PDF is damaged and cannot be read.',
  encrypted: 'This PDF is password-protected. Remove the password and try again.',
  empty: 'This PDF has no pages.',
  'too-large': 'This file is too large to open in the browser.',
  'unsupported-image': 'This image could not be decoded.',
  'render-failed': 'A page of this document could not be rendered.',
};

export class DocError extends Error {
  constructor(
    readonly code: DocErrorCode,
    detail?: string,
  ) {
    super(MESSAGES[code] + (detail ? ` (${detail})` : ''));
    this.name = 'DocError';
  }
}

export function userMessage(e: unknown): string {
  if (e instanceof DocError) return e.message;
  if (e instanceof Error) return `Something went wrong: ${e.message}`;
  return 'Something went wrong.';
}

/** What kind of file the bytes are, from their magic numbers (not the file name). */
export function sniffKind(bytes: Uint8Array): 'pdf' | 'png' | 'jpeg' | 'unknown' {
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  // The PDF header may be preceded by junk; readers accept it within the first 1 KiB.
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(1024, bytes.length)));
  return head.includes('%PDF-') ? 'pdf' : 'unknown';
}
