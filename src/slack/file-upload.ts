import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

// Slack's file upload is three calls: `files.getUploadURLExternal`, a POST of the bytes to the
// address it answers, `files.completeUploadExternal`. The Web API client's `files.uploadV2` makes
// all three, but reads the whole file into memory first (@slack/web-api's getFileUploadJob). The
// client still makes the first and the last; this POSTs the file from disk as a stream, so that
// a large file (the audit trail's export) is never held whole.

/** How long the bytes may take to reach Slack: a file of some megabytes on a slow link. */
export const FILE_UPLOAD_TIMEOUT_MS = 60_000;

/** POSTs the file at `path` (`length` bytes) to Slack's upload address, read as it is sent. */
export async function postFileToUploadUrl(
  uploadUrl: string,
  path: string,
  length: number,
  fetchFn: typeof fetch = fetch,
): Promise<void> {
  const response = await fetchFn(uploadUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', 'content-length': String(length) },
    body: Readable.toWeb(createReadStream(path)),
    // A streamed request body must say so (the Fetch standard's half duplex).
    duplex: 'half',
    redirect: 'error',
    signal: AbortSignal.timeout(FILE_UPLOAD_TIMEOUT_MS),
  });
  await response.body?.cancel();
  // The address is a capability for this one file: never in an error, which may be logged.
  if (response.status !== 200)
    throw new Error(`Slack refused the file's bytes (HTTP ${response.status})`);
}
