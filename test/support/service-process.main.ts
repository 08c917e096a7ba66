// Child-process entry of service-process.ts: a test service on its own database, one business, an identify
// and a sign workflow. Stops (and drops its database) on SIGTERM.
import { Api, createBusiness, setUpIdentifyWorkflow, startTestService } from './harness';
import { setUpSignWorkflow } from './sign-workflow';

const t = await startTestService({ label: 'child', workers: false });
const { apiKey } = await createBusiness(t);
const api = new Api(t.baseUrl, apiKey);
const { workflowId } = await setUpIdentifyWorkflow(api, `${t.baseUrl}/dev/webhook-receiver`, ['given_name']);
const { workflowId: signWorkflowId } = await setUpSignWorkflow(api);
process.stdout.write(
  `${JSON.stringify({ ready: true, baseUrl: t.baseUrl, apiKey, workflowId, signWorkflowId })}\n`,
);
process.on('SIGTERM', () => {
  t.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
