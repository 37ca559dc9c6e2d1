// `GET /{ws}/{project}/{version}/v2/trainings` and `…/v2/trainings/get`: a version's trainings and the models
// they produced, read by the platform's Python SDK for `version.models()` and `version.trainings()`.
import { notFound, sendJson } from '../http.js';
import { trainingRecord } from '../records.js';
import type { Route } from './route.js';

// Below the version look-up (see handler.ts): ctx.project and ctx.version are set.
export function trainingsRoutes(): Route[] {
  return [
    {
      methods: ['GET'],
      path: '/:workspace/:project/:version/v2/trainings',
      answer: ({ res, project, version }) => sendJson(res, 200, { trainings: version!.model ? [trainingRecord(project!, version!)] : [] }),
    },
    {
      methods: ['GET'],
      path: '/:workspace/:project/:version/v2/trainings/get',
      otherMethods: 'use GET',
      answer: ({ res, url, project, version }) => {
        // Without `trainingId`, the version's sole run, as on the platform.
        const asked = url.searchParams.get('trainingId');
        const training = version!.model ? trainingRecord(project!, version!) : null;
        if (training === null) throw notFound(`version ${version!.number} of ${project!.url} has no training`);
        if (asked !== null && asked !== training.trainingId)
          throw notFound(
            `no training ${JSON.stringify(asked.slice(0, 100))} of version ${version!.number}`,
            `its training is ${training.trainingId}`,
          );
        sendJson(res, 200, {
          ...training,
          modelCount: 1,
          models: training.modelIds.map((modelId) => ({ modelId, modelType: training.modelType })),
        });
      },
    },
  ];
}
