// How a route's path pattern matches the decoded path segments (the dispatcher's table, server/routes/).
import { expect, test } from 'vitest';
import { matchPath, SIGNED_SEGMENT } from '../../../server/routes/route.js';

test('literal segments match themselves, named ones take the segment as it was decoded', () => {
  expect(matchPath({ path: '/infer/:project/:version' }, ['infer', 'shapes', '2'])).toEqual({ project: 'shapes', version: '2' });
  expect(matchPath({ path: '/:workspace/:project/search' }, ['ws', 'a b/c', 'search'])).toEqual({ workspace: 'ws', project: 'a b/c' });
  expect(matchPath({ path: '/:workspace/:project/search' }, ['ws', 'p', 'Search'])).toBeNull();
  expect(matchPath({ path: '/infer/:project/:version' }, ['ort', 'shapes', '2'])).toBeNull();
});

test('a pattern matches exactly as many segments as it has; `/` matches the empty path only', () => {
  expect(matchPath({ path: '/' }, [])).toEqual({});
  expect(matchPath({ path: '/' }, ['ws'])).toBeNull();
  expect(matchPath({ path: '/:workspace' }, [])).toBeNull();
  expect(matchPath({ path: '/:workspace' }, ['ws', 'p'])).toBeNull();
  expect(matchPath({ path: '/exports/:token/:name' }, ['exports', 't'])).toBeNull();
});

test('a named segment with a pattern matches only what the pattern accepts', () => {
  const route = { path: '/model-files/:workspace/:project/:version/:signed/:file', where: { signed: SIGNED_SEGMENT } };
  expect(matchPath(route, ['model-files', 'ws', 'p', '2', 'signed.1700000060.ab12', 'weights.onnx'])).toEqual({
    workspace: 'ws',
    project: 'p',
    version: '2',
    signed: 'signed.1700000060.ab12',
    file: 'weights.onnx',
  });
  expect(matchPath(route, ['model-files', 'ws', 'p', '2', 'signed.x.ab12', 'weights.onnx'])).toBeNull();
  expect(matchPath(route, ['model-files', 'ws', 'p', '2', 'unsigned', 'weights.onnx'])).toBeNull();
});
