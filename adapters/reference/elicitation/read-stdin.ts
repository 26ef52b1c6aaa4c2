// Reads the whole of stdin as UTF-8 text (the plan or the atomic rows), bounded in size.

const MAX_INPUT_BYTES = 64 * 1024 * 1024;

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_INPUT_BYTES) throw new Error(`stdin exceeds ${MAX_INPUT_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
