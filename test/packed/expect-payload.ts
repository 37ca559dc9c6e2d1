// The assertion every packed-package test makes: the page's payload is the command line's, pixel for pixel.
import { expect } from 'vitest';
import { base64ToBytes, decodeMaskPng } from '../../src/payload/index.js';
import type { PagePayload, PageResult } from './run-page.js';

export function expectCliPayload(result: PageResult, cli: PagePayload): void {
  expect(result.failed, `${result.failed?.message}\n${result.console.join('\n')}`).toBeUndefined();
  const payload = result.payload!;
  expect(payload.image).toEqual(cli.image);
  expect(payload.class_map).toEqual(cli.class_map);
  const page = decodeMaskPng(base64ToBytes(payload.segmentation_mask));
  const node = decodeMaskPng(base64ToBytes(cli.segmentation_mask));
  let differing = 0;
  for (let p = 0; p < node.classIds.length; p++) if (page.classIds[p] !== node.classIds[p]) differing++;
  expect(differing).toBe(0);
  // Not a mask of one class: the comparison means something.
  expect(new Set(node.classIds).size).toBeGreaterThan(1);
}
