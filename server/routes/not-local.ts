// The platform's routes for what the local platform does not have (uploads, new projects and versions,
// training, trained weights, workspace-wide search): each answers 501 `NotAvailableLocally`, saying so, rather
// than a 404 or a look-up error that would send a caller of the platform's Python SDK looking for a typo.
import { HttpError } from '../http.js';
import type { Route } from './route.js';

interface Missing {
  method: 'GET' | 'POST';
  path: string;
  /** What the route would do, as the message says it. */
  what: string;
  hint: string;
}

const notLocal =
  (auth?: 'key') =>
  ({ method, path, what, hint }: Missing): Route => ({
    methods: [method],
    path,
    ...(auth ? { auth } : {}),
    answer: () => {
      throw new HttpError(501, `${what} is not available on the local platform`, 'NotAvailableLocally', hint);
    },
  });

const DATA = 'the local platform serves the images and versions its data directory was seeded with';

/** Reached with any workspace's key: `/dataset/…` names no workspace. */
export const notLocalPlatformRoutes = (): Route[] =>
  (
    [
      { method: 'POST', path: '/dataset/:project/upload', what: 'uploading images', hint: DATA },
      { method: 'POST', path: '/dataset/:project/annotate/:image', what: 'uploading annotations', hint: DATA },
    ] satisfies Missing[]
  ).map(notLocal('key'));

/** Below a workspace whose key the dispatcher has checked, before the project look-up. */
export const notLocalWorkspaceRoutes = (): Route[] =>
  (
    [
      { method: 'POST', path: '/:workspace/projects', what: 'creating projects', hint: DATA },
      {
        method: 'POST',
        path: '/:workspace/search/v1',
        what: 'searching a whole workspace',
        hint: 'search one project: POST /{ws}/{project}/search',
      },
      {
        method: 'POST',
        path: '/:workspace/search/export',
        what: 'exporting search results',
        hint: 'search one project: POST /{ws}/{project}/search',
      },
      { method: 'POST', path: '/:workspace/:project/upload/zip', what: 'uploading datasets', hint: DATA },
      { method: 'POST', path: '/:workspace/:project/generate', what: 'generating versions', hint: DATA },
      { method: 'POST', path: '/:workspace/:project/:version/train', what: 'training', hint: 'use a version that has a model' },
      { method: 'POST', path: '/:workspace/:project/:version/v2/trainings', what: 'training', hint: 'use a version that has a model' },
      {
        method: 'GET',
        path: '/:workspace/:project/:version/ptFile',
        what: 'downloading PyTorch weights',
        hint: 'the model package (ONNX) is at GET /ort/{project}/{version}',
      },
    ] satisfies Missing[]
  ).map(notLocal());
