// `POST /infer/{project}/{version}`: hosted segmentation of one image (see ../inference.ts).
import { sendJson } from '../http.js';
import { hostedSegmentation } from '../inference.js';
import { findProject, type Platform, type Route } from './route.js';

export function inferenceRoute({ segmenters, limits }: Platform): Route {
  return {
    methods: ['POST'],
    path: '/infer/:project/:version',
    auth: 'key',
    otherMethods: 'use POST',
    answer: async ({ req, res, url, params, readBody, ws }) => {
      const project = findProject(ws!, params.project!);
      sendJson(
        res,
        200,
        await hostedSegmentation(
          readBody,
          url,
          project.versions.find((v) => String(v.number) === params.version),
          segmenters,
          limits,
          req.headers['content-type'],
        ),
      );
    },
  };
}
