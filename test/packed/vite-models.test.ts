// What a Vite production build carries of the bundled models: an app that imports one
// (`edgeseg/models/people`) gets that model's files and no other's, and runs it: the command line's
// payload with that model. (vite-build.test.ts checks that an app with its own model folder carries none.)
import { cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startStaticServer, type StaticServer } from '../fixtures/static-server.js';
import { runCli } from '../helpers/built-cli.js';
import { ROOT } from '../helpers/paths.js';
import { builtFiles, expectCliPayload, INLINE_PEOPLE } from './expect-payload.js';
import { closeBrowser, runPage, type PagePayload } from './run-page.js';
import { recordingLogger } from './warnings.js';

const { appDir } = inject('packed');
const APP = join(appDir, 'app-people');
const OUT_DIR = join(APP, 'dist');
const PHOTO = join(ROOT, 'models', 'people', 'samples', 'images', 'astronaut.png');
const { logger, warnings } = recordingLogger();
let site: StaticServer;

beforeAll(async () => {
  cpSync(join(ROOT, 'test', 'packed', 'app-people'), APP, { recursive: true });
  // The test app's page, which loads ./main.js.
  cpSync(join(ROOT, 'test', 'packed', 'app', 'index.html'), join(APP, 'index.html'));
  mkdirSync(join(APP, 'public'));
  cpSync(PHOTO, join(APP, 'public', 'photo.png'));
  await build({ root: APP, configFile: false, customLogger: logger, logLevel: 'warn', build: { outDir: OUT_DIR, emptyOutDir: true } });
  site = await startStaticServer(OUT_DIR, { isolate: true, spaFallback: true });
});
afterAll(async () => {
  await closeBrowser();
  await site?.close();
});

describe('a Vite app that imports edgeseg/models/people', () => {
  test('the build prints no warning', () => {
    expect(warnings).toEqual([]);
  });

  // Its small files (inference_config.json, class_names.txt) are inline: Vite writes files under 4 KiB as data: URLs.
  test("the build carries the people model's weights and no other model's", () => {
    const files = builtFiles(OUT_DIR);
    const onnx = files.filter((path) => path.endsWith('.onnx'));
    expect(onnx).toHaveLength(1);
    expect(readFileSync(onnx[0]!).equals(readFileSync(join(ROOT, 'models', 'people', 'general', 'weights.onnx')))).toBe(true);
    // createVideoEffect's default (the same model, inline) is not reached: left out.
    expect(files.filter((path) => readFileSync(path, 'latin1').includes(INLINE_PEOPLE))).toEqual([]);
  });

  test("the page segments the photo with it: the command line's payload for --model people", async () => {
    const cli = await runCli(['segment', PHOTO, '--model', 'people']);
    expect(cli.code, cli.stderr).toBe(0);
    const result = await runPage(`${site.url}/`);
    expectCliPayload(result, JSON.parse(cli.stdout.toString()) as PagePayload);
    expect(result).toMatchObject({ backend: 'wasm', fallbacks: [] });
  });
});
