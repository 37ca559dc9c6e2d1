// createVideoEffect's settings as parsed: the effect's one spelling, 'color', and the old 'colour' kept as
// a deprecated alias for one release.
import { describe, expect, test } from 'vitest';
import { resolveSettings, type VideoEffectSettings } from '../../../src/video/video-options.js';

describe('video effect settings', () => {
  test("'color' replaces the background with the colour given; the deprecated 'colour' means the same", async () => {
    const color = await resolveSettings({ effect: 'color', background: [0, 255, 0] }, null);
    expect(color).toMatchObject({ effect: 'color', color: [0, 255, 0] });
    const old: VideoEffectSettings = { effect: 'colour', background: [0, 255, 0] };
    expect(await resolveSettings(old, null)).toEqual(color);
    // An update in the old spelling over settings made in the new.
    expect(await resolveSettings({ effect: 'colour' }, await resolveSettings({ effect: 'blur' }, null))).toMatchObject({ effect: 'color' });
  });

  test('an effect by another name is OPTION_INVALID, naming the ones there are (the new spelling)', async () => {
    await expect(resolveSettings({ effect: 'sparkle' as never }, null)).rejects.toMatchObject({
      code: 'OPTION_INVALID',
      message: 'effect must be one of none, overlay, blur, color, image, cutout; got sparkle',
    });
  });
});
