// The video effect's background in a real engine: bytes (a URL, a Blob) go through the checks every image
// edgeseg decodes gets, with the browser's own decoder behind them.
import { expect, test } from 'vitest';
import { resolveSettings } from '../../src/video/video-options.js';

const PNG = '/test/fixtures/images/sample.png';

/** The sample PNG (24×16) with its header saying `width`×`height` (the CRC left as it is: no check reads it first). */
async function pngSaying(width: number, height: number): Promise<Blob> {
  const bytes = new Uint8Array(await (await fetch(PNG)).arrayBuffer());
  new DataView(bytes.buffer).setUint32(16, width);
  new DataView(bytes.buffer).setUint32(20, height);
  return new Blob([bytes], { type: 'image/png' });
}

test('a background image that says 20000×20000 is IMAGE_TOO_LARGE, an SVG IMAGE_FORMAT_UNSUPPORTED; a real one is decoded at its size', async () => {
  await expect(resolveSettings({ effect: 'image', background: await pngSaying(20000, 20000) }, null)).rejects.toMatchObject({
    name: 'InvalidInputError',
    code: 'IMAGE_TOO_LARGE',
  });
  const svg = new Blob(['<svg xmlns="http://www.w3.org/2000/svg" width="30000" height="30000"/>'], { type: 'image/svg+xml' });
  await expect(resolveSettings({ effect: 'image', background: svg }, null)).rejects.toMatchObject({ code: 'IMAGE_FORMAT_UNSUPPORTED' });
  await expect(resolveSettings({ effect: 'image', background: PNG }, null, 24 * 16 - 1)).rejects.toMatchObject({ code: 'IMAGE_TOO_LARGE' });
  for (const background of [PNG, new URL(PNG, location.href), await (await fetch(PNG)).blob()]) {
    const { image } = await resolveSettings({ effect: 'image', background }, null);
    expect([image?.width, image?.height]).toEqual([24, 16]);
  }
});
