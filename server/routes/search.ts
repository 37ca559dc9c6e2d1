// `POST /{workspace}/{project}/search`: a project's images, filtered and ranked (see ../search.ts).
import { sendJson } from '../http.js';
import { search } from '../search.js';
import { imageUrl, type Platform, type Route } from './route.js';

export function searchRoute({ signer, maxJson }: Platform): Route {
  return {
    methods: ['POST'],
    path: '/:workspace/:project/search',
    otherMethods: 'use POST',
    answer: async ({ res, urls, readJson, ws, project }) =>
      sendJson(res, 200, search(project!, await readJson(maxJson), imageUrl(signer, urls, ws!, project!.url))),
  };
}
