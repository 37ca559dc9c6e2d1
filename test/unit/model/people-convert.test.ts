// models/people/convert.py: the committed packages are what it makes today, and bad input is refused
// with a message that says what is wrong, writing nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { PYTHON, runPython } from '../../helpers/python.js';
import { ROOT } from '../../helpers/paths.js';

const CONVERT = join(ROOT, 'models', 'people', 'convert.py');
const TFLITE = join(ROOT, 'node_modules', '@mediapipe', 'selfie_segmentation', 'selfie_segmentation.tflite');
const work = mkdtempSync(join(tmpdir(), 'edgeseg-convert-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function convert(input: string, out: string) {
  const r = spawnSync(PYTHON, [CONVERT, input, out], { encoding: 'utf8' });
  return { status: r.status, stderr: r.stderr };
}

/**
 * The model with one operator code changed: the flatbuffer's OperatorCode entries of `from` (both the
 * deprecated byte and the int) rewritten to `to`, found with the converter's own reader.
 */
function withOpcode(from: number, to: number): string {
  const script = `
import sys; sys.path.insert(0, ${JSON.stringify(join(ROOT, 'models', 'people'))})
from tflite_reader import Buffer, Table
data = bytearray(open(${JSON.stringify(TFLITE)}, 'rb').read())
buf = Buffer(bytes(data)); model = Table(buf, buf.u32(0))
for code in model.tables(1):
    if code.scalar(3, '<i') == ${from}:
        data[code._field(0)] = ${to}
        data[code._field(3):code._field(3) + 4] = (${to}).to_bytes(4, 'little')
sys.stdout.buffer.write(data)`;
  const file = join(work, `opcode-${to}.tflite`);
  writeFileSync(file, runPython(script));
  return file;
}

describe('convert.py', () => {
  test.each([
    ['general', 'selfie_segmentation.tflite'],
    ['landscape', 'selfie_segmentation_landscape.tflite'],
  ])('converting the original again gives the committed %s package, byte for byte', (name, file) => {
    const out = join(work, name);
    expect(convert(join(dirname(TFLITE), file), out).status).toBe(0);
    const committed = join(ROOT, 'models', 'people', name);
    expect(readFileSync(join(out, 'weights.onnx')).equals(readFileSync(join(committed, 'weights.onnx')))).toBe(true);
    for (const f of ['inference_config.json', 'class_names.txt', 'LICENSE', 'NOTICE']) {
      expect(readFileSync(join(out, f), 'utf8'), f).toBe(readFileSync(join(committed, f), 'utf8'));
    }
  });

  test('an op it does not know: named in the error, nothing written', () => {
    // HARD_SWISH (117) → LOCAL_RESPONSE_NORMALIZATION (13).
    const out = join(work, 'unknown-op');
    const r = convert(withOpcode(117, 13), out);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the model uses ops the converter does not translate: LOCAL_RESPONSE_NORMALIZATION; nothing written');
    expect(existsSync(out)).toBe(false);
  });

  test('a truncated file: a clear error, nothing written', () => {
    const file = join(work, 'truncated.tflite');
    writeFileSync(file, readFileSync(TFLITE).subarray(0, 100_000));
    const out = join(work, 'truncated');
    const r = convert(file, out);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/truncated or corrupt TFLite file: .* lies? past its end \(100000 bytes\); nothing written/);
    expect(existsSync(out)).toBe(false);
  });

  test('a file that is not TFLite: a clear error, nothing written', () => {
    const out = join(work, 'png');
    const r = convert(join(ROOT, 'models', 'people', 'samples', 'images', 'camera.png'), out);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("not a TFLite model: the file identifier at bytes 4-8 is not 'TFL3'; nothing written");
    expect(existsSync(out)).toBe(false);
  });

  test('a missing file: a clear error', () => {
    const r = convert(join(work, 'absent.tflite'), join(work, 'absent'));
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('cannot read');
    expect(r.stderr).toContain('No such file or directory; nothing written');
  });
});
