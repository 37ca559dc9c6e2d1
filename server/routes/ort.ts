// `GET /ort/{project}/{version}`: where a client downloads a version's model package (signed file URLs).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { notFound, sendJson } from '../http.js';
import { findProject, findVersion, modelFolder, type Platform, type Route } from './route.js';

export function ortRoute({ signer, segmenters }: Platform): Route {
  return {
    methods: ['GET'],
    path: '/ort/:project/:version',
    auth: 'key',
    answer: async ({ res, urls, params, ws: caller }) => {
      const ws = caller!;
      const project = findProject(ws, params.project!);
      const version = findVersion(ws, params.project!, params.version!);
      if (!version.model) throw notFound(`version ${version.number} of ${project.url} has no trained model`);
      // One signature for the version's folder; as a query, which the package caches leave out of their
      // keys, so a fresh signature on the next start still finds the cached files.
      const folder = modelFolder(ws, project, version);
      const file = (name: string) => signer.signUrl(`${urls.base}${folder}${name}`, folder);
      const dir = segmenters.modelDir(version);
      const has = async (name: string) => (await stat(join(dir, name)).catch(() => null)) !== null;
      sendJson(res, 200, {
        ort: {
          classes: project.classes,
          model: file('weights.onnx'),
          ...((await has('environment.json')) ? { environment: file('environment.json') } : {}),
          ...((await has('inference_config.json')) ? { inference_config: file('inference_config.json') } : {}),
          colors: project.colors,
          modelType: version.model.modelType,
        },
      });
    },
  };
}
