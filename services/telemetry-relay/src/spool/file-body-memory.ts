// What a body file costs in memory while it is sent, which replay leases by: the sender (upstream/streamed-body.ts)
// holds at most its header line and a chunk in each buffer on the way, whatever the file's size.

export const CHUNK_BYTES = 64 * 1024;
/** The envelope header line is at most 64 KiB (the tunnel refuses longer ones), plus its newline. */
export const HEAD_MAX_BYTES = 64 * 1024 + 1;

/**
 * The most memory one streamed body holds at once: its head line and a chunk in each buffer on the way (the file
 * stream's, the one prepending the head, undici's write and the socket's).
 */
export const STREAMED_BODY_BYTES = HEAD_MAX_BYTES + 4 * CHUNK_BYTES;
