// The sign workflow as suites set it up, in one place: a published workflow whose sign step takes uploaded
// documents (often after an identify or age step, sometimes before others), and its sessions created as a
// business creates them, POST /v1/sessions as multipart/form-data with the documents as file parts. Suites
// that test the upload or the workflow's validation themselves call createMultipart and publishWorkflow.
import fs from 'node:fs';
import path from 'node:path';
import type { Api, Json } from './harness';
import { startedSession } from './signer';
import { createMultipart, type FilePart, minimalPdf, publishWorkflow, type StepInput } from './workflows';

export interface SignWorkflowOptions {
  /** How many documents the sign step takes (default 1). */
  documents?: number;
  /** An identify step first, asking these claims (`gateAfter` and the rest in `before` when it needs more). */
  identifyBefore?: string[];
  /** Steps before the sign step (after the identify step of `identifyBefore`). */
  before?: StepInput[];
  /** Steps after the sign step. */
  after?: StepInput[];
  /** More fields of the sign step: holder, routes, conditions, gateAfter. */
  sign?: Omit<StepInput, 'primitive' | 'documents'>;
  /** Configures the webhook endpoint; its secret is in the answer. */
  webhookUrl?: string;
  /** The workflow's name (default "Workflow"). */
  name?: string;
  /** API-only access (default true); false lets dashboard users create its sessions. */
  apiOnly?: boolean;
}

/** Creates and publishes a workflow with a sign step; answers its id and, with `webhookUrl`, the hook secret. */
export async function setUpSignWorkflow(
  api: Api,
  opts: SignWorkflowOptions = {},
): Promise<{ workflowId: string; webhookSecret: string }> {
  const steps: StepInput[] = [
    ...(opts.identifyBefore ? [{ primitive: 'identify' as const, claims: opts.identifyBefore }] : []),
    ...(opts.before ?? []),
    { primitive: 'sign', documents: opts.documents ?? 1, ...opts.sign },
    ...(opts.after ?? []),
  ];
  const { workflowId, webhookSecret } = await publishWorkflow(
    api,
    steps,
    opts.webhookUrl,
    opts.name,
    opts.apiOnly,
  );
  // without a webhook URL there is no secret; suites that ask for one always pass the URL
  return { workflowId, webhookSecret: webhookSecret as string };
}

/** A PDF document part (unless the bytes are given, a minimal real PDF that names the file). */
export const pdfPart = (filename: string, bytes: Uint8Array | string = minimalPdf(filename)): FilePart => ({
  filename,
  type: 'application/pdf',
  bytes,
});

/** A plain-text document part. */
export const textPart = (filename: string, text: string): FilePart => ({
  filename,
  type: 'text/plain',
  bytes: text,
});

/**
 * POST /v1/sessions as multipart/form-data for a sign workflow: the documents in upload order (default one
 * PDF, contract.pdf) and more form fields (metadata, expires_in) as strings.
 */
export function createSignSession(
  api: Api,
  workflowId: string,
  documents: FilePart[] = [pdfPart('contract.pdf', minimalPdf())],
  fields: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  return createMultipart(api, { workflow_id: workflowId, ...fields }, documents);
}

/** A sign session created (201) and started by the person's browser: its id and that browser. */
export async function startSignSession(
  api: Api,
  workflowId: string,
  documents?: FilePart[],
  fields?: Record<string, string>,
) {
  return startedSession(api.baseUrl, await createSignSession(api, workflowId, documents, fields));
}

/** Every file of the content-addressed document store below `root` (DATA_DIR/blobs): what uploads left on disk. */
export function blobFiles(root: string): string[] {
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[])
    .map((p) => path.join(root, p))
    .filter((p) => fs.statSync(p).isFile());
}
