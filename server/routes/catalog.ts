// What the platform holds, read with the key: the welcome, a workspace, a project, an image, a version and
// its export links.
import { EXPORT_FORMATS, exportToken } from '../exports.js';
import { notFound, sendJson } from '../http.js';
import { projectRecord, versionRecord, workspaceRecord } from '../records.js';
import { imageUrl, packageUrl, type Platform, type Route } from './route.js';

export interface CatalogRoutes {
  welcome: Route;
  workspace: Route;
  project: Route;
  image: Route;
  version: Route;
  exportLink: Route;
}

// The routes below the workspace run after the dispatcher's look-ups (see handler.ts): ctx.ws, and
// ctx.project and ctx.version where the table resolves them first.
export function catalogRoutes({ store, signer }: Platform): CatalogRoutes {
  const builtExports = (ws: string, project: string, version: number) =>
    EXPORT_FORMATS.filter((f) => Object.values(store.state.exports).some((e) => e.file === `exports/${ws}-${project}-${version}-${f}.zip`));

  return {
    welcome: {
      methods: ['GET', 'POST'],
      path: '/',
      auth: 'key',
      answer: ({ res, ws }) =>
        sendJson(res, 200, {
          welcome: 'Welcome to the edgeseg local platform.',
          instructions: 'You are successfully authenticated.',
          docs: 'https://github.com/ (see the edgeseg README: "The local platform")',
          workspace: ws!.url,
        }),
    },
    workspace: {
      methods: ['GET'],
      path: '/:workspace',
      otherMethods: 'use GET',
      answer: ({ res, ws }) =>
        sendJson(res, 200, { workspace: { ...workspaceRecord(ws!), projects: ws!.projects.map((p) => projectRecord(ws!, p)) } }),
    },
    project: {
      methods: ['GET'],
      path: '/:workspace/:project',
      otherMethods: 'use GET',
      answer: ({ res, urls, ws, project }) =>
        sendJson(res, 200, {
          workspace: workspaceRecord(ws!),
          project: projectRecord(ws!, project!),
          versions: project!.versions.map((v) => versionRecord(ws!, project!, v, urls, [], packageUrl(signer, urls, ws!, project!, v))),
        }),
    },
    image: {
      methods: ['GET'],
      path: '/:workspace/:project/images/:image',
      otherMethods: 'use GET',
      answer: ({ res, urls, params, ws, project }) => {
        const image = project!.images.find((i) => i.id === params.image || i.name === params.image);
        if (!image) throw notFound(`no image ${JSON.stringify(params.image)} in ${project!.url}`);
        const file = imageUrl(signer, urls, ws!, project!.url)(image);
        sendJson(res, 200, {
          image: {
            id: image.id,
            name: image.name,
            width: image.width,
            height: image.height,
            split: image.split,
            tags: image.tags,
            batch: image.batch,
            created: image.created / 1000,
            owner: image.owner,
            labels: image.classes,
            urls: { original: file },
          },
        });
      },
    },
    version: {
      methods: ['GET'],
      path: '/:workspace/:project/:version',
      answer: ({ res, urls, ws, project, version }) =>
        sendJson(res, 200, {
          workspace: workspaceRecord(ws!),
          project: projectRecord(ws!, project!),
          version: versionRecord(
            ws!,
            project!,
            version!,
            urls,
            builtExports(ws!.url, project!.url, version!.number),
            packageUrl(signer, urls, ws!, project!, version!),
          ),
        }),
    },
    exportLink: {
      methods: ['GET'],
      path: '/:workspace/:project/:version/:format',
      answer: async ({ res, urls, params, ws, project, version }) => {
        const format = params.format!;
        const token = await exportToken(store, ws!, project!, version!, format);
        const scope = `/exports/${token}/${project!.url}-${version!.number}-${format}.zip`;
        sendJson(res, 200, { export: { link: signer.signUrl(`${urls.base}${scope}`, scope), format } });
      },
    },
  };
}
