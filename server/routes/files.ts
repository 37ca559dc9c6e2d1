// The files clients download without the key, by the signed URLs the other routes hand out (as the
// platform's signed storage URLs): model packages, images, exports.
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join, sep } from 'node:path';
import { PACKAGE_FILES } from '../../src/model/index.js';
import { notFound } from '../http.js';
import { findProject, findVersion, findWorkspaceByUrl, SIGNED_SEGMENT, type Platform, type Route, type RouteContext } from './route.js';

// In each, the signature is checked first, so an unsigned request learns nothing, not even whether the file exists.
export function fileRoutes({ store, signer, segmenters }: Platform): Route[] {
  const modelFile = (ctx: RouteContext, expires: string | null, sig: string | null) => {
    const { workspace, project, version: number, file } = ctx.params;
    signer.verify(`/model-files/${workspace}/${project}/${number}/`, expires, sig);
    const version = findVersion(findWorkspaceByUrl(store, workspace!), project!, number!);
    if (!version.model || !(PACKAGE_FILES as readonly string[]).includes(file!)) throw notFound('no such model file');
    const dir = segmenters.modelDir(version);
    return sendFile(ctx.res, dir, join(dir, file!), 'application/octet-stream');
  };
  return [
    {
      methods: ['GET'],
      path: '/model-files/:workspace/:project/:version/:file',
      auth: 'signature',
      answer: (ctx) => modelFile(ctx, ctx.url.searchParams.get('expires'), ctx.url.searchParams.get('sig')),
    },
    {
      // The package as a folder, signed in the path (see packageUrl).
      methods: ['GET'],
      path: '/model-files/:workspace/:project/:version/:signed/:file',
      where: { signed: SIGNED_SEGMENT },
      auth: 'signature',
      answer: (ctx) => {
        const [, expires, sig] = SIGNED_SEGMENT.exec(ctx.params.signed!)!;
        return modelFile(ctx, expires!, sig!);
      },
    },
    {
      methods: ['GET'],
      path: '/image-files/:workspace/:project/:image',
      auth: 'signature',
      answer: ({ res, url, parts, params }) => {
        signer.verify(`/${parts.join('/')}`, url.searchParams.get('expires'), url.searchParams.get('sig'));
        const image = findProject(findWorkspaceByUrl(store, params.workspace!), params.project!).images.find((i) => i.id === params.image);
        if (!image) throw notFound('no such image');
        return sendFile(res, store.dir, store.path(image.file), image.file.endsWith('.png') ? 'image/png' : 'image/jpeg');
      },
    },
    {
      methods: ['GET'],
      path: '/exports/:token/:name',
      auth: 'signature',
      answer: ({ res, url, parts, params }) => {
        signer.verify(`/${parts.join('/')}`, url.searchParams.get('expires'), url.searchParams.get('sig'));
        const entry = store.state.exports[params.token!];
        if (!entry) throw notFound('no such export (links come from the export route)');
        return sendFile(res, store.dir, store.path(entry.file), 'application/zip', params.name);
      },
    },
  ];
}

/**
 * Sends a regular file that lies inside `root`, symbolic links resolved first: a link in the data directory
 * (or a model folder) that leads out of it is answered as a missing file, as are directories and devices.
 */
async function sendFile(res: ServerResponse, root: string, path: string, type: string, downloadName?: string): Promise<void> {
  const [realRoot, real] = await Promise.all([realpath(root).catch(() => null), realpath(path).catch(() => null)]);
  if (realRoot === null || real === null || !real.startsWith(realRoot + sep)) throw notFound('the file is gone');
  path = real;
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw notFound('the file is gone');
  res.writeHead(200, {
    'content-type': type,
    'content-length': info.size,
    'cache-control': 'public, max-age=3600',
    ...(downloadName ? { 'content-disposition': `attachment; filename="${downloadName.replace(/[^\w.-]/g, '_')}"` } : {}),
  });
  // Node drops a HEAD answer's body: reading the file would only cost time.
  if (res.req.method === 'HEAD') return void res.end();
  await new Promise<void>((resolve, reject) => createReadStream(path).on('error', reject).on('end', resolve).pipe(res));
}
