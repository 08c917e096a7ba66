// Thin GraphQL operations of the return_url origins and the branding over BrandingService (ADR 0019).
import { GraphQLUpload } from 'graphql-upload-ts';
import { Arg, Field, Ctx as GqlCtx, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { AppError, isAppError } from '../../common/errors';
import { Roles, RULES } from '../../common/roles';
import type { GqlContext } from '../../graphql/context';
import type { UploadValue } from '../document/uploads';
import { type BrandingService, LOGO_LIMITS } from './branding.service';

@ObjectType('Branding', { description: 'How the hosted page presents the business in this environment.' })
export class BrandingGql {
  @Field(() => String, { nullable: true, description: 'Shown instead of the business name; null: the name.' })
  displayName!: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Accent colour #rrggbb (at least 4.5:1 against white); null: the default.',
  })
  accentColor!: string | null;
  @Field(() => String, {
    nullable: true,
    description:
      'Path of the logo on this service (/branding/logos/<sha256>, cached for a year); null: no logo.',
  })
  logoUrl!: string | null;
}

@InputType('BrandingInput')
export class BrandingInputGql {
  @Field(() => String, { nullable: true, description: '1-80 characters; null or absent: the business name.' })
  displayName?: string | null;
  @Field(() => String, {
    nullable: true,
    description: '#rrggbb with at least 4.5:1 contrast against white, else branding_contrast_insufficient.',
  })
  accentColor?: string | null;
}

/** Names the GraphQL argument at fault (`input.displayName`). */
async function gqlParams<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (isAppError(e) && e.param && !e.param.startsWith('input.'))
      throw new AppError(e.code, e.message, { param: `input.${e.param}`, cause: e, extra: e.extra });
    throw e;
  }
}

/** graphql-upload-ts's 413 (the file hit its maxFileSize while streaming) or our own cap: logo_too_large. */
const tooLarge = () =>
  new AppError('logo_too_large', `A logo may have at most ${LOGO_LIMITS.maxBytes} bytes (256 KiB).`, {
    param: 'logo',
    extra: { max_bytes: LOGO_LIMITS.maxBytes },
  });

/**
 * Reads an uploaded logo, stopping as soon as it passes LOGO_LIMITS.maxBytes. Its file name and declared type
 * are ignored: the service judges the bytes.
 */
async function readLogo(upload: UploadValue): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const file = await upload;
    for await (const chunk of file.createReadStream()) {
      size += (chunk as Buffer).length;
      if (size > LOGO_LIMITS.maxBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (e) {
    if (isAppError(e)) throw e;
    const status = (e as { status?: unknown } | null)?.status;
    if (status === 413) throw tooLarge();
    if (typeof status === 'number' && status >= 400 && status < 500)
      throw new AppError('validation_failed', (e as Error).message, { param: 'logo', cause: e });
    if (e instanceof Error && (e as { syscall?: unknown }).syscall === undefined)
      throw new AppError('validation_failed', 'The logo file part is cut off or malformed.', {
        param: 'logo',
        cause: e,
      });
    throw e;
  }
  return Buffer.concat(chunks);
}

export function createBrandingResolver(service: BrandingService) {
  @Resolver()
  class BrandingResolver {
    @Roles(RULES.read)
    @Query(() => [String], {
      description: 'The origins a session return_url may use in this environment (normalised, sorted).',
    })
    async returnOrigins(@GqlCtx() { ctx }: GqlContext): Promise<string[]> {
      return service.returnOrigins(ctx);
    }

    @Roles(RULES.build)
    @Mutation(() => [String], {
      description:
        'Replaces the origins (scheme://host[:port]) a session return_url may use in this environment; ' +
        'https only in production. Returns them normalised.',
    })
    async setReturnOrigins(
      @Arg('origins', () => [String]) origins: string[],
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<string[]> {
      return service.setReturnOrigins(ctx, origins);
    }

    @Roles(RULES.read)
    @Query(() => BrandingGql, { description: 'The hosted page branding of this environment.' })
    async branding(@GqlCtx() { ctx }: GqlContext): Promise<BrandingGql> {
      return service.branding(ctx);
    }

    @Roles(RULES.build)
    @Mutation(() => BrandingGql, {
      description: 'Replaces the hosted page branding of this environment (display name, accent colour).',
    })
    async setBranding(
      @Arg('input', () => BrandingInputGql) input: BrandingInputGql,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<BrandingGql> {
      return gqlParams(() => service.setBranding(ctx, input));
    }

    @Roles(RULES.build)
    @Mutation(() => BrandingGql, {
      description:
        'Replaces the hosted page logo of this environment (a GraphQL multipart request): a PNG, JPEG or WebP ' +
        'image (judged by its bytes; never SVG) of at most 256 KiB and 16-2048 pixels per side, else ' +
        'logo_type_unsupported, logo_too_large or logo_dimensions_invalid and nothing is stored.',
    })
    async setLogo(
      // nullable in the schema so that authorization runs before the file is looked at: an Upload! variable
      // fails coercion (validation) before any resolver or @Roles check could answer
      @Arg('logo', () => GraphQLUpload, {
        nullable: true,
        description: 'The image file (multipart file part); required.',
      })
      logo: UploadValue | null | undefined,
      @GqlCtx() { ctx }: GqlContext,
    ): Promise<BrandingGql> {
      if (!logo)
        throw new AppError('validation_failed', 'Attach the logo as a multipart file part.', {
          param: 'logo',
        });
      return service.setLogo(ctx, await readLogo(logo));
    }

    @Roles(RULES.build)
    @Mutation(() => BrandingGql, { description: 'Removes the hosted page logo of this environment.' })
    async removeLogo(@GqlCtx() { ctx }: GqlContext): Promise<BrandingGql> {
      return service.removeLogo(ctx);
    }
  }
  return BrandingResolver;
}
