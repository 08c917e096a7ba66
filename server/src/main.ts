// Process entry point: load config, build the service, seed the sandbox quickstart, listen.
import 'reflect-metadata';
import { loadConfig } from './config/config';
import { assertProductionKeys } from './modules/kms/master-key';
import {
  ownerLinkBanner,
  quickstartBanner,
  quickstartOwnerLink,
  seedQuickstart,
} from './modules/quickstart/quickstart';
import { createService } from './service';

async function main(): Promise<void> {
  const config = loadConfig();
  // production never runs on keys beside the service (ADR 0048): checked before anything is written
  assertProductionKeys(config);
  const svc = await createService(config);
  // production signs wallet requests only under an access certificate a real CA issued (ADR 0034)
  if (config.appEnv === 'production') {
    try {
      await svc.verifierIdentity.assertProductionReady();
    } catch (e) {
      await svc.close();
      throw e;
    }
  }
  const url = await svc.listen().catch(async (e: unknown) => {
    await svc.close();
    if ((e as { code?: string }).code !== 'EADDRINUSE') throw e;
    throw new Error(
      `${config.host}:${config.port} is in use by another process: stop it, or set PORT to a free port`,
    );
  });
  // Graceful shutdown (service.close): stop accepting, finish requests and deliveries in flight, close the pool.
  // Registered as soon as the service listens, so a signal during the sandbox seeding below is graceful too.
  const shutdown = () => {
    svc.logger.info('shutting down');
    svc.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
  svc.logger.info('service listening', {
    url,
    base_url: config.baseUrl,
    hosted_url: config.hostedUrl,
    database: config.databaseUrl ? 'mysql' : 'sqlite',
  });
  if (config.seedSandbox) {
    const qs = await seedQuickstart(svc);
    if (qs) {
      process.stdout.write(quickstartBanner(qs));
      // a capability: printed to the terminal of whoever started the service, never logged
      const owner = await quickstartOwnerLink(svc, qs);
      if (owner) process.stdout.write(ownerLinkBanner(owner));
    }
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
