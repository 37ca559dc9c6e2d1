// Protobuf's C++ reader (the one onnxruntime parses models with), through Debian's python3-protobuf: what it
// makes of some bytes as an ONNX ModelProto of scripts/onnx-schema/onnx.proto, written back canonically.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { ROOT } from './paths.js';
import { PYTHON } from './python.js';

/** The C++ reader's verdict: null where it refuses the bytes, else the model it read, written canonically. */
export type CppVerdict = Uint8Array | null;

const framed = (bytes: Uint8Array) => {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, true);
  out.set(bytes, 4);
  return out;
};

/** Reads each model with the C++ reader, in one Python process. */
export async function cppRead(models: readonly Uint8Array[]): Promise<CppVerdict[]> {
  const root = new protobuf.Root().loadSync(join(ROOT, 'scripts', 'onnx-schema', 'onnx.proto'), { keepCase: true }).resolveAll();
  const set = (root as unknown as { toDescriptor(syntax: string): object }).toDescriptor('proto2');
  const schema = (descriptor as unknown as { FileDescriptorSet: protobuf.Type }).FileDescriptorSet.encode(set).finish();
  const child = spawn(PYTHON, [join(ROOT, 'test', 'helpers', 'protobuf_cpp.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  const errors: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => errors.push(c));
  const done = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.write(framed(schema));
  for (const m of models) child.stdin.write(framed(m));
  child.stdin.end();
  const code = await done;
  if (code !== 0) throw new Error(`the C++ protobuf oracle failed: ${Buffer.concat(errors).toString()}`);
  const out = Buffer.concat(chunks);
  const verdicts: CppVerdict[] = [];
  let at = 0;
  while (at < out.length) {
    if (out[at++] === 0) {
      verdicts.push(null);
      continue;
    }
    const length = out.readUInt32LE(at);
    verdicts.push(new Uint8Array(out.subarray(at + 4, at + 4 + length)));
    at += 4 + length;
  }
  if (verdicts.length !== models.length) throw new Error(`the oracle answered ${verdicts.length} of ${models.length} models`);
  return verdicts;
}
