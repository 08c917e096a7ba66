// Thin GraphQL resolver over WorkflowService: map arguments, call, map results.
import { Arg, Ctx as GqlCtx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import {
  CreateWorkflowInput,
  IntendedUseInput,
  WorkflowGql,
  WorkflowRevisionGql,
  type WorkflowStepGql,
  WorkflowStepInput,
} from './workflow.graphql';
import type { RevisionView, WorkflowService, WorkflowView } from './workflow.service';
import { holderPolicyOf, type WorkflowStep } from './workflow.steps';

const stepsIn = (steps: WorkflowStepInput[] | undefined): WorkflowStep[] | undefined =>
  steps?.map((s) => ({
    primitive: s.primitive,
    ...(s.claims ? { claims: s.claims as WorkflowStep['claims'] } : {}),
    ...(s.threshold !== undefined && s.threshold !== null ? { threshold: s.threshold } : {}),
    ...(s.documents !== undefined && s.documents !== null ? { documents: s.documents } : {}),
    ...(s.terms !== undefined && s.terms !== null ? { terms: s.terms } : {}),
    ...(s.gateAfter ? { gate_after: true } : {}),
    ...(s.conditions
      ? {
          conditions: s.conditions.map((c) => ({
            claim: c.claim,
            operator: c.operator,
            values: c.values,
            outcome: c.outcome,
            ...(c.skipTo !== undefined && c.skipTo !== null ? { skip_to: c.skipTo } : {}),
            ...(c.failureReason ? { failure_reason: c.failureReason } : {}),
          })),
        }
      : {}),
    ...(s.holder ? { holder: s.holder } : {}),
    ...(s.routes ? { routes: s.routes } : {}),
  }));

const stepsOut = (steps: WorkflowStep[]): WorkflowStepGql[] =>
  steps.map((s) => ({
    primitive: s.primitive,
    claims: s.claims,
    threshold: s.threshold,
    documents: s.documents,
    terms: s.terms,
    gateAfter: s.gate_after === true,
    conditions: (s.conditions ?? []).map((c) => ({
      claim: c.claim,
      operator: c.operator,
      values: c.values,
      outcome: c.outcome,
      skipTo: c.skip_to,
      failureReason: c.failure_reason,
    })),
    holder: holderPolicyOf(s),
    routes: s.routes,
  }));

const workflowOut = (w: WorkflowView): WorkflowGql => ({ ...w, draftSteps: stepsOut(w.draftSteps) });
const revisionOut = (r: RevisionView): WorkflowRevisionGql => ({ ...r, steps: stepsOut(r.steps) });

export function createWorkflowResolver(service: WorkflowService) {
  @Resolver()
  class WorkflowResolver {
    @Roles(RULES.read)
    @Query(() => [WorkflowGql], { description: "The business's workflows." })
    async workflows(@GqlCtx() { ctx }: GqlContext): Promise<WorkflowGql[]> {
      return (await service.list(ctx)).map(workflowOut);
    }

    @Roles(RULES.read)
    @Query(() => WorkflowGql)
    async workflow(@Arg('id', () => ID) id: string, @GqlCtx() { ctx }: GqlContext): Promise<WorkflowGql> {
      return workflowOut(await service.get(ctx, id));
    }

    @Roles(RULES.read)
    @Query(() => [WorkflowRevisionGql], { description: 'Published revisions, oldest first.' })
    async workflowRevisions(
      @Arg('workflowId', () => ID) workflowId: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WorkflowRevisionGql[]> {
      return (await service.revisions(ctx, workflowId)).map(revisionOut);
    }

    @Roles(RULES.build)
    @Mutation(() => WorkflowGql)
    async createWorkflow(
      @Arg('input', () => CreateWorkflowInput) input: CreateWorkflowInput,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WorkflowGql> {
      return workflowOut(
        await service.create(ctx, {
          name: input.name,
          apiOnly: input.apiOnly ?? undefined,
          steps: stepsIn(input.steps),
          intendedUse: input.intendedUse ?? undefined,
        }),
      );
    }

    @Roles(RULES.build)
    @Mutation(() => WorkflowGql, { description: "Replaces the draft's steps." })
    async setWorkflowSteps(
      @Arg('workflowId', () => ID) workflowId: string,
      @Arg('steps', () => [WorkflowStepInput]) steps: WorkflowStepInput[],
      @Arg('apiOnly', () => Boolean, { nullable: true }) apiOnly: boolean | undefined,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WorkflowGql> {
      return workflowOut(await service.setSteps(ctx, workflowId, stepsIn(steps), apiOnly ?? undefined));
    }

    @Roles(RULES.build)
    @Mutation(() => WorkflowGql, {
      description:
        "Replaces the draft's intended use (null clears it: the business's default purpose applies); sessions get it from the next published revision.",
    })
    async setWorkflowIntendedUse(
      @Arg('workflowId', () => ID) workflowId: string,
      @Arg('intendedUse', () => IntendedUseInput, { nullable: true }) intendedUse: IntendedUseInput | null,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WorkflowGql> {
      return workflowOut(await service.setIntendedUse(ctx, workflowId, intendedUse ?? null));
    }

    @Roles(RULES.build)
    @Mutation(() => WorkflowRevisionGql, {
      description:
        'Publishes the draft as a new immutable revision; a draft identical to the latest revision (steps, name, API-only, intended use) publishes nothing and answers that revision.',
    })
    async publishWorkflow(
      @Arg('workflowId', () => ID) workflowId: string,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<WorkflowRevisionGql> {
      return revisionOut(await service.publish(ctx, workflowId));
    }
  }
  return WorkflowResolver;
}
