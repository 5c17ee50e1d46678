// How the HTTP servers (MCP and the web view) log their requests. Fastify's default writes two
// info lines per request, "incoming request" and "request completed"; an MCP client sends a
// request per call and pings between, so at `brain serve`'s info level every call cost two
// synchronous writes of JSON, and a log that said little. A CPU profile put them at 0.6-0.9 ms a
// request on a busy machine; on a quiet one a raw ping's p50 went from 2.49-3.21 to 2.37-2.83 ms
// without them (docs/performance.md, "The import's peak at 30,000 pages; export in batches; the
// request log").
//
// Now a request that went well is logged at debug (BRAIN_LOG_LEVEL=debug shows both lines as
// before); one the server refused (4xx) at info, with what was asked and the answer; failures
// stay at error. Sessions opened and closed are still logged at info (services/mcp/http.ts).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class QuietRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
      return;
    }
    // The request line goes with a refusal: "incoming request" was not written at info.
    if (reply.statusCode >= 400) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request refused');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
