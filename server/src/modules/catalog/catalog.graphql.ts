// GraphQL types of the credential route catalog (dashboard API). Entities are never exposed directly.
import { Field, ID, ObjectType } from 'type-graphql';
import { PRIMITIVE_SPECS, PRIMITIVES } from '../workflow/primitives';

@ObjectType('PrimitiveAvailability', {
  description: 'Per primitive: whether it can be used (capability and availability combined).',
})
export class PrimitiveFlagsGql {
  [graphqlField: string]: boolean;
}

@ObjectType('PrimitiveFormats', {
  description: "Per primitive, the route's credential formats this service accepts for it.",
})
export class PrimitiveFormatsGql {
  [graphqlField: string]: string[];
}

// one field per primitive, named by its spec (PrimitiveSpec.graphqlField), in the registry's order
for (const p of PRIMITIVES) {
  Field(() => Boolean)(PrimitiveFlagsGql.prototype, PRIMITIVE_SPECS[p].graphqlField);
  Field(() => [String])(PrimitiveFormatsGql.prototype, PRIMITIVE_SPECS[p].graphqlField);
}

@ObjectType('RouteAcceptance', { description: 'Production needs all three acceptances.' })
export class RouteAcceptanceGql {
  @Field(() => Boolean) provider!: boolean;
  @Field(() => Boolean) issuer!: boolean;
  @Field(() => Boolean) service!: boolean;
}

@ObjectType('RouteEnvironment')
export class RouteEnvironmentGql {
  @Field(() => Boolean) available!: boolean;
  @Field(() => PrimitiveFlagsGql) primitives!: PrimitiveFlagsGql;
  @Field(() => RouteAcceptanceGql, { nullable: true, description: 'Production only.' })
  acceptance?: RouteAcceptanceGql;
}

@ObjectType('RouteWallet')
export class RouteWalletGql {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) provider!: string;
}

@ObjectType('CredentialIssuer')
export class CredentialIssuerGql {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: 'The iss of its credentials (or the name its trust is filed under).' })
  identifier!: string;
  @Field(() => String, { nullable: true }) country!: string | null;
  @Field(() => Boolean, { description: 'A test issuer: its routes never reach production.' })
  sandboxOnly!: boolean;
}

@ObjectType('CredentialRoute', { description: 'A wallet presenting credentials of an issuer.' })
export class CredentialRouteGql {
  @Field(() => ID) id!: string;
  @Field(() => RouteWalletGql) wallet!: RouteWalletGql;
  @Field(() => CredentialIssuerGql) issuer!: CredentialIssuerGql;
  @Field(() => [String]) formats!: string[];
  @Field(() => PrimitiveFormatsGql) primitiveFormats!: PrimitiveFormatsGql;
  @Field(() => [String], {
    description:
      'The claim names an identify step may request over this route (document_status: the status check); empty when the route cannot identify.',
  })
  identifyClaims!: string[];
  @Field(() => PrimitiveFormatsGql, {
    description:
      'Per primitive, the Digital Credentials API protocols a wallet can answer over: openid4vp, and org-iso-mdoc (ISO 18013-7 Annex C) for mdoc identify and age_verify.',
  })
  primitiveProtocols!: PrimitiveFormatsGql;
  @Field(() => PrimitiveFlagsGql, { description: 'What the route can do, whatever the environment.' })
  capabilities!: PrimitiveFlagsGql;
  @Field(() => RouteEnvironmentGql) sandbox!: RouteEnvironmentGql;
  @Field(() => RouteEnvironmentGql) production!: RouteEnvironmentGql;
  @Field(() => String) notes!: string;
}

@ObjectType('Wallet')
export class WalletGql {
  @Field(() => ID) id!: string;
  @Field(() => String) name!: string;
  @Field(() => String) provider!: string;
  @Field(() => String) description!: string;
  @Field(() => [String]) platforms!: string[];
  @Field(() => [String]) formats!: string[];
  @Field(() => RouteEnvironmentGql) sandbox!: RouteEnvironmentGql;
  @Field(() => RouteEnvironmentGql) production!: RouteEnvironmentGql;
  @Field(() => [ID]) routes!: string[];
}
