// Owns tracing: OpenTelemetry spans for HTTP requests (the /v1 pipeline and Express), database transactions, webhook
// deliveries and KMS calls, with W3C `traceparent` read from requests and sent with webhook deliveries.
// Off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: the OpenTelemetry API then hands out non-recording spans and
// nothing is exported. Spans carry route templates, methods, statuses and kinds of work, never a raw path,
// a session id, a URL of a business or a key: span attributes leave the process like log lines.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { Config } from '../config/config';

const TRACER = 'credential-verification-service';

export interface Tracing {
  /** Exports what is buffered and unregisters the provider (service close). */
  shutdown(): Promise<void>;
}

/**
 * Registers the process's tracer provider when the configuration names a collector. One service per process
 * in production; a test that starts several services one after the other gets a fresh registration each time.
 */
export async function startTracing(config: Config): Promise<Tracing | undefined> {
  if (!config.tracing) return undefined;
  // the SDK and exporter load only when tracing is on
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }] =
    await Promise.all([
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace-node'),
    ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.tracing.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${config.tracing.endpoint}/v1/traces` }), {
        scheduledDelayMillis: 1000,
      }),
    ],
  });
  provider.register(); // global provider, AsyncLocalStorage context, W3C trace-context propagator
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

const tracer = () => trace.getTracer(TRACER);

/** Runs fn inside a span that ends with it; an error marks the span and is rethrown. */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (e) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.name : 'error' });
      throw e;
    } finally {
      span.end();
    }
  });
}

/** Adds the current trace's `traceparent` (and `tracestate`) to outgoing headers. */
export function injectTraceHeaders(headers: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), headers);
  return headers;
}

const pipelineRoutes = new WeakMap<IncomingMessage, string>();

/**
 * Wraps the HTTP listener (only when tracing is on): one SERVER span per request, child of the caller's
 * `traceparent` if it sent one, active for everything the request does, and named `METHOD route` when it
 * ends, with the route template of whichever stack answered (the /v1 pipeline's, or `routeOf` for Express).
 */
export function traceRequests(
  listener: RequestListener,
  routeOf: (req: IncomingMessage) => string,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    const parent = propagation.extract(context.active(), req.headers);
    const span = tracer().startSpan(
      `HTTP ${req.method}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '' } },
      parent,
    );
    res.once('finish', () => {
      const route = pipelineRoutes.get(req) ?? routeOf(req);
      span.updateName(`${req.method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), () => listener(req, res));
  };
}

/** The /v1 pipeline names the route template of a request it answers (Express requests: routeOf). */
export function nameRoute(req: IncomingMessage, route: string): void {
  pipelineRoutes.set(req, route);
}
