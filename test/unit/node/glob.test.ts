import { describe, expect, test } from 'vitest';
import { globToRegExp, isGlob, splitGlob } from '../../../src/cli/glob.js';

describe('glob patterns', () => {
  test.each([
    ['*.jpg', 'a.jpg', true],
    ['*.jpg', 'a.jpeg', false],
    ['*.jpg', 'sub/a.jpg', false],
    ['*.jpg', '.hidden.jpg', false],
    ['.*.jpg', '.hidden.jpg', true],
    ['?.png', 'a.png', true],
    ['?.png', 'ab.png', false],
    ['**/*.jpg', 'a.jpg', true],
    ['**/*.jpg', 'x/y/z/a.jpg', true],
    ['**/*.jpg', 'x/.git/a.jpg', false],
    ['trip/**', 'trip/a/b.png', true],
    ['trip/**', 'other/a.png', false],
    ['a/**/b/*.png', 'a/b/c.png', true],
    ['a/**/b/*.png', 'a/x/y/b/c.png', true],
    ['a/**/b/*.png', 'a/x/c.png', false],
    ['*.{jpg,png}', 'a.png', true],
    ['*.{jpg,png}', 'a.gif', false],
    ['img[0-9].jpg', 'img7.jpg', true],
    ['img[0-9].jpg', 'imgx.jpg', false],
    ['img[!0-9].jpg', 'imgx.jpg', true],
    ['img[!0-9].jpg', 'img7.jpg', false],
    ['a+b(1).jpg', 'a+b(1).jpg', true],
    ['a.jpg', 'axjpg', false],
    ['\\*.jpg', '*.jpg', true],
    ['\\*.jpg', 'a.jpg', false],
  ])('%s against %s: %s', (pattern, path, matches) => {
    expect(globToRegExp(pattern).test(path)).toBe(matches);
  });

  test('isGlob: wildcards outside escapes', () => {
    expect(['*.jpg', 'a/**/b', 'img?.png', '[ab].png', '{a,b}.png'].map(isGlob)).toEqual([true, true, true, true, true]);
    expect(['photos/a.jpg', 'photos', 'a\\*.jpg', ''].map(isGlob)).toEqual([false, false, false, false]);
  });

  test('splitGlob: the fixed folder, what is matched below it, how deep', () => {
    expect(splitGlob('photos/**/*.jpg')).toEqual({ base: 'photos', rest: '**/*.jpg', depth: Infinity });
    expect(splitGlob('photos/2024/*/*.jpg')).toEqual({ base: 'photos/2024', rest: '*/*.jpg', depth: 2 });
    expect(splitGlob('*.png')).toEqual({ base: '.', rest: '*.png', depth: 1 });
    expect(splitGlob('/data/in/*.png')).toEqual({ base: '/data/in', rest: '*.png', depth: 1 });
  });
});
