// Loaded before every test file (vitest.config.ts setupFiles): the decorator metadata polyfill that TypeORM and
// @peculiar/x509 (tsyringe) need before they are imported, as server/src/app/entities.ts loads it for the
// service. Without it a suite that imports x509 code before any entity fails at import.
import { createRequire } from 'node:module';

createRequire(new URL('../../server/package.json', import.meta.url))('reflect-metadata');
